package translate

import (
	"fmt"
	"math"
	"strconv"
	"strings"

	netv1 "k8s.io/api/networking/v1"

	"github.com/sliceway/sliceway/internal/excerpt"
)

// DefaultMaxIngressOutput is the default of the maxIngressOutput option,
// 8 MiB: some eighteen times what an Ingress of 1,000 paths with a few
// middlewares, entry points and TLS adds (about 470 KB), and a seventieth of
// what one Ingress within Kubernetes' limits adds when its 2,000 paths
// each copy a 250 KB router.middlewares annotation.
const DefaultMaxIngressOutput = 8 << 20

// What one Ingress adds to the configuration is its routers: one for each
// path with a Service backend, and one for its default backend. Each
// router copies the Ingress's router annotations (middlewares, entry
// points, TLS), the host of its rule and its own path, names, service and
// observability metadata. The copies are what grows out of proportion: a
// 465 KB Ingress whose 2,000 paths copy a 252 KB middlewares annotation
// made 588 MB of configuration. The load balancers of the Services and
// the certificates of the Secrets are not counted: each is in the
// configuration once, however many paths and Ingresses use it.
//
// The estimate is the routers' bytes as compact JSON, worked out from the
// lengths of what they copy, before any router is built. It is exact to a
// few bytes a router for plain text; escapes (a quote, a backslash, a
// control character) are counted where a rule holds them.

// outputEstimate is what the routers of one Ingress would add, and the
// largest share of it: copies times each bytes of one field.
type outputEstimate struct {
	routers int
	total   int64

	// The field copied the most: the host of rules[rule], or (rule < 0)
	// the router annotations of group, e.g. router.middlewares.
	rule   int
	group  string
	copies int   // routers that copy it
	share  int64 // bytes of the copies
}

// checkOutput estimates the routers of ing (whose router annotations are
// ra) and returns an error when they exceed limit, with the field that
// multiplies the most. It first bounds the estimate from the lengths
// alone, a pass of a few nanoseconds a path, and writes the rules out
// only when that bound is over the limit.
func checkOutput(ing *netv1.Ingress, ra *routerAnnotations, opts PlanOptions) (field string, err error) {
	limit := opts.MaxOutput
	if estimateOutput(ing, ra, opts, false).total <= limit {
		return "", nil
	}
	est := estimateOutput(ing, ra, opts, true)
	if est.total <= limit {
		return "", nil
	}
	if 2*est.share < est.total {
		// No copy makes most of it: the paths themselves do.
		return "spec.rules", fmt.Errorf("%d routers (about %d bytes each) would add about %d bytes to the configuration, over maxIngressOutput (%d bytes) (the Ingress is skipped)",
			est.routers, est.total/int64(max(est.routers, 1)), est.total, limit)
	}
	field, source, size := "spec.rules["+strconv.Itoa(est.rule)+"].host", "host", 0
	if est.rule < 0 {
		key := asWritten(ing.Annotations, est.group)
		if est.group == "router.tls" {
			key = longestAnnotation(ing.Annotations, est.group)
		}
		field, source, size = "metadata.annotations["+excerpt.Text(key)+"]", "annotation", len(ing.Annotations[key])
	} else {
		size = len(ing.Spec.Rules[est.rule].Host)
	}
	return field, fmt.Errorf("%d routers would each copy the %d bytes of this %s: about %d bytes of configuration (%d of them copies of it), over maxIngressOutput (%d bytes) (the Ingress is skipped)",
		est.copies, size, source, est.total, est.share, limit)
}

// estimateOutput estimates the routers of ing. exact writes each rule out
// to measure it; otherwise a rule counts five bytes for each of its host
// and path, more than any escape makes of one.
func estimateOutput(ing *netv1.Ingress, ra *routerAnnotations, opts PlanOptions, exact bool) outputEstimate {
	est := outputEstimate{rule: -1}
	shared := annotationBytes(ra)
	perRouter := shared.middlewares + shared.entryPoints + shared.tls + shared.priority
	if opts.SpecPriorities && ra.Priority == 0 {
		perRouter += fieldBytes("priority", 7) // specPriority
	}
	ns, name := int64(len(ing.Namespace)), int64(len(ing.Name))
	// The router's braces and observability metadata, and its service.
	fixed := int64(len(`:{},"observability":{"metadata":{"ingress":{"namespace":,"ingressName":,"serviceName":,"servicePort":}}},`)) +
		jsonLen(ing.Namespace) + jsonLen(ing.Name) + fieldBytes("service", 0)
	backendBytes := func(sb *netv1.IngressServiceBackend) int64 {
		port := int64(len(sb.Port.Name))
		if port == 0 {
			port = int64(len(strconv.Itoa(int(sb.Port.Number))))
		}
		svc := int64(len(sb.Name))
		return (svc + 2) + (port + 2) + (ns + 1 + svc + 1 + port + 2) // serviceName, servicePort, service
	}

	var scratch [256]byte
	for i, rule := range ing.Spec.Rules {
		if rule.HTTP == nil {
			continue
		}
		hostRule := int64(5*len(rule.Host) + len(`HostRegexp("^[a-zA-Z0-9-]+\.$")`)*2)
		if exact {
			hostRule = 0
			if rule.Host != "" {
				hostRule = jsonBody(appendHostRule(scratch[:0], rule.Host))
			}
		}
		copies := 0
		for _, path := range rule.HTTP.Paths {
			if path.Backend.Service == nil {
				continue
			}
			copies++
			pathRule := int64(10*len(path.Path) + len(`(Path("") || PathPrefix("/"))`)*2)
			if exact {
				pathRule = 0
				if path.Path != "" {
					pathRule = jsonBody(appendPathRule(scratch[:0], path.PathType, path.Path, ra.PathMatcher, opts.StrictPrefix))
				}
			}
			ruleBytes := 2 + hostRule + pathRule // as a JSON string
			switch {
			case hostRule == 0 && pathRule == 0:
				ruleBytes = jsonLen(`PathPrefix("/")`)
			case hostRule != 0 && pathRule != 0:
				ruleBytes += int64(len(` && `))
			}
			key := ns + 1 + name + 1 + int64(len(rule.Host)+len(path.Path)) + 2
			est.total += perRouter + fixed + key + fieldBytes("rule", ruleBytes) + backendBytes(path.Backend.Service)
		}
		est.routers += copies
		if share := int64(copies) * (hostRule + int64(len(rule.Host))); share > est.share && rule.Host != "" {
			est.rule, est.copies, est.share = i, copies, share
		}
	}
	if db := ing.Spec.DefaultBackend; db != nil && db.Service != nil {
		est.routers++
		est.total += perRouter + fixed + jsonLen(DefaultRouterName) + fieldBytes("rule", jsonLen(`PathPrefix("/")`)) +
			fieldBytes("priority", int64(len(strconv.Itoa(math.MinInt32)))) + backendBytes(db.Service)
	}

	// The annotation copied the most, if it outweighs the largest host.
	for _, a := range [...]struct {
		bytes int64
		group string
	}{
		{shared.middlewares, "router.middlewares"},
		{shared.entryPoints, "router.entrypoints"},
		{shared.tls, "router.tls"}, // named by its longest annotation
	} {
		if share := int64(est.routers) * a.bytes; share > est.share {
			est.rule, est.group, est.copies, est.share = -1, a.group, est.routers, share
		}
	}
	return est
}

// sharedBytes is what the router annotations add to each router.
type sharedBytes struct {
	middlewares, entryPoints, tls, priority int64
}

func annotationBytes(ra *routerAnnotations) sharedBytes {
	var b sharedBytes
	b.middlewares = listBytes("middlewares", ra.Middlewares)
	b.entryPoints = listBytes("entryPoints", ra.EntryPoints)
	if t := ra.TLS; t != nil {
		b.tls = int64(len(`"tls":{},`))
		if t.Options != "" {
			b.tls += fieldBytes("options", jsonLen(t.Options))
		}
		if t.CertResolver != "" {
			b.tls += fieldBytes("certResolver", jsonLen(t.CertResolver))
		}
		if len(t.Domains) > 0 {
			b.tls += int64(len(`"domains":[],`))
			for _, d := range t.Domains {
				b.tls += int64(len(`{},`)) + listBytes("sans", d.SANs)
				if d.Main != "" {
					b.tls += fieldBytes("main", jsonLen(d.Main))
				}
			}
		}
	}
	if ra.Priority != 0 {
		b.priority = fieldBytes("priority", int64(len(strconv.Itoa(ra.Priority))))
	}
	return b
}

// fieldBytes is the length of "name":value, with value bytes of value.
func fieldBytes(name string, value int64) int64 {
	return int64(len(name)+len(`"":,`)) + value
}

// listBytes is the length of "name":["a","b"], nothing for no list.
func listBytes(name string, list []string) int64 {
	if len(list) == 0 {
		return 0
	}
	n := fieldBytes(name, 2)
	for _, s := range list {
		n += jsonLen(s) + 1
	}
	return n
}

// jsonLen is the length of s as a JSON string (the configuration is
// written without HTML escapes).
func jsonLen[T string | []byte](s T) int64 {
	return jsonBody(s) + 2
}

// jsonBody is jsonLen without the quotes.
func jsonBody[T string | []byte](s T) int64 {
	n := int64(len(s))
	for i := 0; i < len(s); i++ {
		switch c := s[i]; {
		case c == '"' || c == '\\' || c == '\n' || c == '\r' || c == '\t':
			n++
		case c < 0x20:
			n += 5
		}
	}
	return n
}

// longestAnnotation is the provider's annotation under group (any case,
// as written) with the longest value.
func longestAnnotation(annotations map[string]string, group string) string {
	best := AnnotationPrefix + group
	size := -1
	for key, value := range annotations {
		rest, ok := strings.CutPrefix(key, AnnotationPrefix)
		if !ok || len(rest) < len(group) || !strings.EqualFold(rest[:len(group)], group) {
			continue
		}
		if len(value) > size || len(value) == size && key < best {
			best, size = key, len(value)
		}
	}
	return best
}
