package nginx

import (
	"fmt"
	"strings"

	corev1 "k8s.io/api/core/v1"

	"github.com/sliceway/sliceway/config/dynamic"
	"github.com/sliceway/sliceway/internal/serverurl"
	"github.com/sliceway/sliceway/provider/kubernetes/internal/translate"
)

// serverTweak is how the backend annotations change a load balancer:
// the scheme of its servers (backend-protocol), its servers transport,
// its sticky cookie, and, with service-upstream, its one server.
type serverTweak struct {
	scheme    string
	transport string
	sticky    *dynamic.Sticky
	servers   []dynamic.Server // nil: the base's, with scheme
}

// apply makes a new service from base, a load balancer, with t's
// changes; base is never modified.
func (t *serverTweak) apply(base *dynamic.Service) *dynamic.Service {
	if base == nil || base.LoadBalancer == nil {
		return base
	}
	lb := *base.LoadBalancer
	if t.servers != nil {
		lb.Servers = t.servers
	} else if differentScheme(lb.Servers, t.scheme) {
		lb.Servers = make([]dynamic.Server, len(base.LoadBalancer.Servers))
		for i, s := range base.LoadBalancer.Servers {
			s.URL = withScheme(s.URL, t.scheme)
			lb.Servers[i] = s
		}
	}
	if t.transport != "" {
		lb.ServersTransport = t.transport
	}
	if t.sticky != nil {
		lb.Sticky = t.sticky
	}
	return &dynamic.Service{LoadBalancer: &lb}
}

// key says what t changes, so that the paths of an Ingress whose
// annotations change one load balancer alike share one service.
func (t *serverTweak) key() string {
	var b strings.Builder
	b.WriteString(t.scheme + "\x00" + t.transport + "\x00")
	if c := t.sticky; c != nil && c.Cookie != nil {
		k := *c.Cookie
		path := ""
		if k.Path != nil {
			path = *k.Path
		}
		k.Path = nil
		fmt.Fprintf(&b, "%+v\x00%s", k, path)
	}
	for _, s := range t.servers {
		b.WriteString("\x00" + s.URL)
	}
	return b.String()
}

// sharedName is the name of the service of the Ingress that base (the
// name of a load balancer) becomes with the changes key says: one for
// every path of the Ingress that changes base alike.
func (pc *pathContext) sharedName(what, base, key string) string {
	// name(what-base-hash), the hash FNV-1a of base, a zero byte and key,
	// built in one piece: every path of a full render names one.
	sum := fnv1a(fnv1a(fnv1a(fnvOffset, base), "\x00"), key)
	base = strings.TrimPrefix(base, NamePrefix)
	var b strings.Builder
	b.Grow(len(pc.namePrefix()) + len(what) + len(base) + 10)
	b.WriteString(pc.namePrefix())
	b.WriteString(what)
	b.WriteByte('-')
	b.WriteString(base)
	b.WriteByte('-')
	var hex [8]byte
	for i := range hex {
		hex[i] = "0123456789abcdef"[sum>>(28-4*i)&0xf]
	}
	b.Write(hex[:])
	return b.String()
}

// fnvOffset and fnvPrime are those of 32-bit FNV-1a (hash/fnv).
const (
	fnvOffset uint32 = 2166136261
	fnvPrime  uint32 = 16777619
)

// fnv1a continues the 32-bit FNV-1a hash h with the bytes of s.
func fnv1a(h uint32, s string) uint32 {
	for i := 0; i < len(s); i++ {
		h = (h ^ uint32(s[i])) * fnvPrime
	}
	return h
}

// addShared adds a service of the part once, however many paths name it.
func (pc *pathContext) addShared(ns translate.NamedService) *dynamic.Service {
	for _, o := range pc.p.Services {
		if o.Name == ns.Name {
			return o.Service
		}
	}
	pc.p.Services = append(pc.p.Services, ns)
	return ns.Service
}

// changes says whether t changes base.
func (t *serverTweak) changes(base *dynamic.Service) bool {
	return t.servers != nil || t.transport != "" || t.sticky != nil ||
		base != nil && base.LoadBalancer != nil && differentScheme(base.LoadBalancer.Servers, t.scheme)
}

// protocolScheme is the scheme of the servers' URLs for a backend
// protocol. ingress-nginx speaks plain HTTP unless told otherwise, even
// to a port 443 or one named https (which the Traefik-style load
// balancer reaches with https); GRPC is HTTP/2 without TLS (h2c), GRPCS
// HTTP/2 over TLS, which Traefik negotiates with ALPN.
func protocolScheme(protocol string) string {
	switch protocol {
	case "HTTPS", "GRPCS":
		return "https"
	case "GRPC":
		return "h2c"
	}
	return "http"
}

func differentScheme(servers []dynamic.Server, scheme string) bool {
	for _, s := range servers {
		if !strings.HasPrefix(s.URL, scheme+"://") {
			return true
		}
	}
	return false
}

// withScheme is url with its scheme replaced.
func withScheme(url, scheme string) string {
	if _, rest, ok := strings.Cut(url, "://"); ok {
		return scheme + "://" + rest
	}
	return url
}

// backendKeepsEmpty says whether the path is served although its Service
// has no servers: service-upstream sends to the cluster IP, and a usable
// default-backend annotation takes the requests.
func (pc *pathContext) backendKeepsEmpty() bool {
	c := &pc.cfg.Backend
	return c.ServiceUpstream && pc.clusterIPService() != nil || c.DefaultBackend != "" && pc.build().fallback != nil
}

// deriveService is how the backend annotations change the path's load
// balancer base: a func that makes the path's service from it (nil when
// they change nothing), and the name of that service, which the paths of
// the Ingress that change the load balancer alike share. false: the path
// is closed (a backend TLS annotation that cannot be honoured; the
// problem is filed).
//
// With a usable default-backend annotation, a path whose Service has no
// servers sends to the default backend's Service instead (its first
// port, reached as the path's servers are), as ingress-nginx does; the
// path's service is then a weighted service of that one alone, so that
// it follows the path's servers as they come and go.
func (pc *pathContext) deriveService(base *dynamic.Service) (func(*dynamic.Service) *dynamic.Service, string, bool) {
	c := &pc.cfg.Backend
	b := pc.build()
	if b.closed {
		return nil, "", false
	}
	tw := &serverTweak{scheme: protocolScheme(c.Protocol), transport: b.transport, sticky: pc.sticky()}
	fallback := ""
	if c.ServiceUpstream {
		tw.servers = pc.upstreamServers(tw.scheme)
	}
	// The default backend is needed only when the path's Service has no
	// servers now, or may lose them in place (allowEmptyServices):
	// otherwise the Service losing its servers translates the Ingress
	// again.
	if b.fallback != nil && tw.servers == nil && (pc.env.AllowEmptyServices || noServers(base)) {
		// The default backend, with the path's settings; it follows its
		// own load balancer.
		fb := *tw
		fallback = pc.sharedName("default-backend", b.fallbackName, tw.key())
		derive := fb.apply
		pc.addShared(translate.NamedService{Name: fallback, Service: derive(b.fallback.Service), Base: b.fallback.Service, Derive: derive})
	}
	if fallback == "" && !tw.changes(base) {
		return nil, "", true
	}
	return func(base *dynamic.Service) *dynamic.Service {
		if fallback != "" && noServers(base) {
			return weightedTo(fallback)
		}
		return tw.apply(base)
	}, pc.sharedName("svc", pc.lbName, tw.key()+"\x00"+fallback), true
}

func noServers(s *dynamic.Service) bool {
	return s != nil && s.LoadBalancer != nil && len(s.LoadBalancer.Servers) == 0
}

// weightedTo is a weighted service that sends everything to name.
func weightedTo(name string) *dynamic.Service {
	one := 1
	return &dynamic.Service{Weighted: &dynamic.WeightedRoundRobin{Services: []dynamic.WRRService{{Name: name, Weight: &one}}}}
}

// clusterIPService is the path's Service when service-upstream can send
// to its cluster IP, else nil.
func (pc *pathContext) clusterIPService() *corev1.Service {
	svc := pc.env.Snapshot.Service(pc.backend.Service.Namespace, pc.backend.Service.Name)
	if svc == nil || svc.Spec.Type == corev1.ServiceTypeExternalName || svc.Spec.ClusterIP == "" || svc.Spec.ClusterIP == corev1.ClusterIPNone {
		return nil
	}
	return svc
}

// upstreamServers is the one server of service-upstream: the Service's
// cluster IP and port, as ingress-nginx sends to it. A Service without a
// cluster IP (headless, ExternalName) keeps its endpoints, as in
// ingress-nginx, and the problem is filed; nil then.
//
// The cluster IP and port are read when the Ingress is translated: a
// change of the Service's port number that leaves its servers as they
// were reaches this server when the Ingress is translated again.
func (pc *pathContext) upstreamServers(scheme string) []dynamic.Server {
	ns, name := pc.backend.Service.Namespace, pc.backend.Service.Name
	svc := pc.clusterIPService()
	if svc == nil {
		if s := pc.env.Snapshot.Service(ns, name); s != nil {
			pc.problem(".backend.service", fmt.Errorf("service-upstream: service %s/%s has no cluster IP (headless or ExternalName): its endpoints are used", ns, name))
		}
		return nil
	}
	for _, p := range svc.Spec.Ports {
		if pc.backend.Port.Name != "" && p.Name == pc.backend.Port.Name || pc.backend.Port.Name == "" && p.Port == pc.backend.Port.Number {
			return []dynamic.Server{{URL: serverurl.String(scheme, svc.Spec.ClusterIP, int(p.Port))}}
		}
	}
	return nil // no such port: the load balancer has said so already
}
