package nginx

import (
	"github.com/sliceway/sliceway/config/dynamic"
	"github.com/sliceway/sliceway/provider/kubernetes/internal/translate"
)

// A path whose access annotations cannot be honoured is not left without
// a router: another Ingress's shorter path on the same host would then
// take its requests, past the access control it asked for. Its routers
// (plain and TLS, on its host and each alias) answer every request with
// 403, through an allow list that no client address matches; their
// service has no servers, and nothing reaches it.

// closedRange is a source range no client has: Traefik refuses an empty
// allow list.
const closedRange = "255.255.255.255/32"

// closedRouters gives the path routers that answer 403 to everyone.
func (pc *pathContext) closedRouters() {
	name := pc.ingressName("closed")
	pc.addMiddleware(name, dynamic.Middleware{"ipAllowList": map[string]any{"sourceRange": []string{closedRange}}})
	pc.answeringRouters(name, []string{name})
}

// unavailableRouters gives a path whose Service cannot be used (none, no
// such port, no servers) routers that answer 503, as ingress-nginx's
// location without endpoints does, rather than none, for the same reason
// as closed paths: a shorter path of the host must not take its requests.
// Its redirects (permanent-redirect, temporal-redirect, app-root) still
// answer: nginx returns them before it looks for an upstream.
func (pc *pathContext) unavailableRouters() {
	red, _ := pc.redirects(nil)
	pc.answeringRouters(pc.ingressName("unavailable"), red)
}

// answeringRouters gives the path routers, on its host and each alias,
// that send to service, a load balancer without servers (Traefik answers
// 503), through middlewares.
func (pc *pathContext) answeringRouters(service string, middlewares []string) {
	svc := pc.closedService(service)
	if pc.facts.tls && pc.tlsOptions == "" && !pc.clientCertTried {
		// The host's client certificate check, when it has one: a TLS
		// router of the host without its option would make Traefik fall
		// back to its default options, asking for no certificate, on the
		// whole host. Of what it adds, these routers take only the
		// option.
		m := markPart(pc.p)
		pc.clientCert(nil)
		pc.p.Middlewares = pc.p.Middlewares[:m.middlewares]
	}
	for _, host := range append([]string{pc.host}, pc.aliases()...) {
		r := pc.hostRoute(host, routedService{name: service, svc: svc})
		r.plainMws, r.tlsMws = middlewares, middlewares
		pc.routerPair(r)
	}
}

// closedService is the service named name of the part's closed or
// unavailable routers: a load balancer without servers, which Traefik
// accepts and answers 503 for.
func (pc *pathContext) closedService(name string) *dynamic.Service {
	for _, ns := range pc.p.Services {
		if ns.Name == name {
			return ns.Service
		}
	}
	svc := dynamic.NewServersService()
	pc.p.Services = append(pc.p.Services, translate.NamedService{Name: name, Service: svc})
	return svc
}

// partMark is how much a part had of what a path adds besides routers,
// so that a path that is not served takes back what it added.
type partMark struct{ services, middlewares, transports, tlsOptions int }

func markPart(p *translate.Part) partMark {
	return partMark{len(p.Services), len(p.Middlewares), len(p.Transports), len(p.TLSOptions)}
}

// rollback takes out of p what was added since m (nothing added since
// is in use: the path that added it has no router).
func (m partMark) rollback(p *translate.Part) {
	p.Services, p.Middlewares = p.Services[:m.services], p.Middlewares[:m.middlewares]
	p.Transports, p.TLSOptions = p.Transports[:m.transports], p.TLSOptions[:m.tlsOptions]
}
