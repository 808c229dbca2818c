package nginx

import (
	"errors"
	"fmt"
	"maps"
	"slices"
	"strconv"
	"strings"

	netv1 "k8s.io/api/networking/v1"

	"github.com/sliceway/sliceway/provider/kubernetes/internal/translate"
)

// checkCanary files the problems of a canary Ingress, which routes
// nothing of its own: a path no main Ingress has (ingress-nginx drops
// such a canary with a warning in its log; a request for it is not
// served by the canary), a path whose canary is another, a backend that
// cannot take requests, what the canary's annotations say that cannot
// apply. It asks for the load balancer of each of its paths, so that a
// change of those Services reports again.
func checkCanary(env *translate.IngressEnv, opts *Options, p *translate.Part, ing *netv1.Ingress) {
	cfg, _ := opts.ParseAnnotations(ing.Annotations)
	checkCanaryAnnotations(p, ing, &cfg.Canary)
	if ing.Spec.DefaultBackend != nil {
		// ingress-nginx makes it an alternative of every location of the
		// default server.
		p.Problem("spec.defaultBackend", translate.SeverityError, errors.New("a canary's default backend is not supported (it is not used)"))
	}
	for i, rule := range ing.Spec.Rules {
		if rule.HTTP == nil {
			continue
		}
		if err := translate.CheckHost(rule.Host); err != nil {
			p.Problem("spec.rules["+strconv.Itoa(i)+"].host", translate.SeverityError, fmt.Errorf("%w (the rule is skipped)", err))
			continue
		}
		host := readCanaryHost(env, opts, ing, rule.Host)
		for j, path := range rule.HTTP.Paths {
			checkCanaryPath(env, p, ing, host, rule.Host, translate.NewPathRef(i, j), path)
		}
	}
}

// canaryHost is what a canary reads of the Ingresses of its host: the
// canaries and the main paths.
type canaryHost struct {
	canaries canaryPaths
	mains    map[canaryPath][]mainPath
}

// mainPath is a path of an Ingress that is not a canary.
type mainPath struct {
	ing     *netv1.Ingress
	backend translate.PortKey
}

func readCanaryHost(env *translate.IngressEnv, opts *Options, self *netv1.Ingress, host string) canaryHost {
	ings := []*netv1.Ingress{self}
	if env.Hosts != nil {
		ings = env.Hosts(host)
	}
	h := canaryHost{mains: map[canaryPath][]mainPath{}}
	for _, ing := range ings {
		if ing == nil {
			continue
		}
		cfg, problems := opts.ParseAnnotations(ing.Annotations)
		if cfg.Canary.Enabled {
			h.canaries.add(host, ing, cfg, problems, env.PlanOptions.MaxOutput)
			continue
		}
		if closedBy(problems) {
			continue
		}
		for _, rule := range ing.Spec.Rules {
			if rule.Host != host || rule.HTTP == nil {
				continue
			}
			for _, path := range rule.HTTP.Paths {
				if sb := path.Backend.Service; sb != nil {
					cp := pathOf(path)
					h.mains[cp] = append(h.mains[cp], mainPath{ing: ing, backend: translate.BackendPort(ing.Namespace, sb)})
				}
			}
		}
	}
	return h
}

// checkCanaryPath files the problems of one path of a canary.
func checkCanaryPath(env *translate.IngressEnv, p *translate.Part, ing *netv1.Ingress, h canaryHost, host string, ref translate.PathRef, path netv1.HTTPIngressPath) {
	problem := func(field string, err error) { p.Problem(ref.String()+field, translate.SeverityError, err) }
	sb := path.Backend.Service
	if sb == nil {
		problem(".backend", errors.New("a canary needs a service backend (the path is not a canary)"))
		return
	}
	backend := translate.BackendPort(ing.Namespace, sb)
	lb := env.LoadBalancer(backend, serviceName(backend))
	switch {
	case lb.Err != nil:
		problem(".backend.service", fmt.Errorf("%w (the main Ingress's backend takes every request)", lb.Err))
	case lb.NoServers() && !env.AllowEmptyServices:
		problem(".backend.service", fmt.Errorf("service %s/%s port %s has no servers (the main Ingress's backend takes every request; allowEmptyServices keeps the canary)", ing.Namespace, sb.Name, backend.Text()))
	}
	cp := pathOf(path)
	where := fmt.Sprintf("host %q path %q", host, cp.path)
	if cp.pathType != "" {
		where += " (" + string(cp.pathType) + ")"
	}
	var mains, others []string
	for _, m := range h.mains[cp] {
		key := m.ing.Namespace + "/" + m.ing.Name
		if m.ing.Namespace != ing.Namespace {
			others = append(others, key)
			continue
		}
		mains = append(mains, key)
		switch chosen, _ := h.canaries.choose(cp, ing.Namespace, m.backend); {
		case m.backend == backend:
			problem(".backend.service", fmt.Errorf("%s: the main Ingress %s sends to the same Service port: there is nothing to split (the canary is not used)", where, key))
		case chosen.ing != ing:
			problem("", fmt.Errorf("%s: the main Ingress %s has an older canary, %s/%s, and ingress-nginx uses one canary per path (this one is not used)", where, key, chosen.ing.Namespace, chosen.ing.Name))
		}
	}
	if len(mains) == 0 {
		err := fmt.Errorf("%s: no Ingress that is not a canary has this host, path and path type (the canary is not used)", where)
		if len(others) > 0 {
			err = fmt.Errorf("%s: only Ingresses of other namespaces (%s) have this host, path and path type, and a canary takes its share from an Ingress of its own namespace alone (the canary is not used)", where, strings.Join(others, ", "))
		}
		problem("", err)
	}
}

// checkCanaryAnnotations warns of what the annotations of a canary say
// that does not apply.
func checkCanaryAnnotations(p *translate.Part, ing *netv1.Ingress, c *CanaryConfig) {
	warn := func(name string, err error) {
		p.Problem("metadata.annotations["+AnnotationPrefix+name+"]", translate.SeverityWarning, err)
	}
	for _, key := range slices.Sorted(maps.Keys(ing.Annotations)) {
		name, ok := strings.CutPrefix(key, AnnotationPrefix)
		if _, known := known[name]; !ok || !known || name == "canary" || strings.HasPrefix(name, "canary-") {
			continue
		}
		// ingress-nginx keeps the canary's affinity and load-balance
		// annotations; sliceway keeps none.
		warn(name, errors.New("is ignored on a canary Ingress: the main Ingress's annotations apply to the canary's share"))
	}
	if c.WeightTotal != 0 && c.WeightTotal < 100 {
		warn("canary-weight-total", fmt.Errorf("%d is less than 100, which ingress-nginx counts as 100", c.WeightTotal))
	}
	if total := max(c.WeightTotal, 100); c.Weight > total {
		warn("canary-weight", fmt.Errorf("%d is more than the total, %d: every request that the header and the cookie leave goes to the canary", c.Weight, total))
	}
	if c.HeaderValue != "" && c.HeaderPattern != "" {
		warn("canary-by-header-pattern", errors.New("is ignored: canary-by-header-value is set"))
	}
	if !c.decides() {
		warn("canary", errors.New("the canary has no weight, header or cookie: it takes no request"))
	}
}
