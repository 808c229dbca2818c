package nginx

import (
	"fmt"
	"strings"

	netv1 "k8s.io/api/networking/v1"
)

// What one Ingress can add to the configuration is bounded as the
// Traefik-style dialect bounds it (maxIngressOutput), before anything is
// built: each path has up to two routers (plain and TLS, on each alias
// and www name) and middlewares of its own that may copy an annotation's
// value (a rewrite target, a redirect URL, a header list), so a path is
// counted as every annotation's bytes twice, its host and path, and a
// fixed share for names and fields. The count errs high: an Ingress near
// the bound is refused rather than built to be measured.

// routerShare is what a router and its own middleware references add
// besides the annotations, host and path they copy.
const routerShare = 512

// estimateOutput is the upper estimate of what ing's paths add.
func estimateOutput(ing *netv1.Ingress) (paths int, total int64) {
	var annotations int64
	for k, v := range ing.Annotations {
		if strings.HasPrefix(k, AnnotationPrefix) {
			annotations += int64(len(k) + len(v))
		}
	}
	hosts := int64(1)
	if aliases := ing.Annotations[AnnotationPrefix+"server-alias"]; aliases != "" {
		hosts += int64(strings.Count(aliases, ",") + 1)
	}
	for _, rule := range ing.Spec.Rules {
		if rule.HTTP == nil {
			continue
		}
		for _, p := range rule.HTTP.Paths {
			paths++
			total += hosts * 2 * (annotations + int64(2*len(rule.Host)+2*len(p.Path)) + routerShare)
		}
	}
	return paths, total
}

// checkOutput says why ing is not translated when its estimate is over
// limit (0: none, for a translation outside a provider, which always
// gives its maxIngressOutput).
func checkOutput(ing *netv1.Ingress, limit int64) error {
	if limit <= 0 {
		return nil
	}
	paths, total := estimateOutput(ing)
	if total <= limit {
		return nil
	}
	return fmt.Errorf("%d paths would add up to about %d bytes to the configuration (their routers, on each host and alias, and the middlewares that copy the annotations), over maxIngressOutput (%d bytes) (the Ingress is skipped)",
		paths, total, limit)
}
