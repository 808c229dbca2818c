package nginx

import (
	"errors"
	"fmt"
	"net/url"
	"strings"

	"github.com/sliceway/sliceway/config/dynamic"
	"github.com/sliceway/sliceway/provider/kubernetes/internal/translate"
)

// ssl-passthrough, as ingress-nginx does it with --enable-ssl-passthrough
// (enableSSLPassthrough here): the TLS connections whose SNI is the
// host go to the servers of the backend of the host's "/" path as they
// are, TLS and all, so the backend presents its own certificate and
// none of the Ingress's other annotations apply to them. Traefik does it
// with a TCP router on HostSNI with tls.passthrough, which takes the
// connection before any HTTP router of the entry point. The host's plain
// requests are served as the Ingress says (its https redirect
// included). Differences:
//   - only an Ingress of the host's owner namespace turns it on
//     (ingress-nginx takes any Ingress of the host), so that no other
//     namespace can take the host's TLS connections;
//   - a wildcard host is refused: HostSNI names one host.

// passthrough adds the TCP router and service of the path when it is the
// "/" path of a passthrough host on an Ingress that asks for it.
func (pc *pathContext) passthrough() {
	if !pc.cfg.Paths.SSLPassthrough || pc.path.Path != "/" || pc.closed {
		return
	}
	switch {
	case wildcardOrNone(pc.host):
		pc.annotationProblem("ssl-passthrough", translate.SeverityError,
			fmt.Errorf("the host %q is not one name, which HostSNI needs: its TLS connections are not passed through", pc.host))
		return
	case pc.facts.ownedElsewhere(pc.ing):
		o := pc.facts.owner
		pc.annotationProblem("ssl-passthrough", translate.SeverityError,
			fmt.Errorf("host %q belongs to namespace %s (its oldest Ingress is %s/%s): only that namespace passes its TLS connections through", pc.host, o.Namespace, o.Namespace, o.Name))
		return
	case !pc.facts.passthrough:
		return
	}
	lb := pc.env.LoadBalancer(pc.backend, pc.lbName)
	if lb.Err != nil || lb.NoServers() {
		return // the path's own problem says why; the host's TLS connections find no router
	}
	servers := make([]dynamic.TCPServer, 0, len(lb.Service.LoadBalancer.Servers))
	for _, s := range lb.Service.LoadBalancer.Servers {
		u, err := url.Parse(s.URL)
		if err != nil || u.Host == "" {
			pc.annotationProblem("ssl-passthrough", translate.SeverityError, errors.New("a server of the backend has no address"))
			return
		}
		servers = append(servers, dynamic.TCPServer{Address: u.Host})
	}
	name := NamePrefix + "passthrough_" + translate.Normalize(pc.host)
	pc.p.Passthroughs = append(pc.p.Passthroughs, translate.Passthrough{
		Name: name,
		Router: &dynamic.TCPRouter{Rule: "HostSNI(`" + pc.host + "`)", Service: name,
			TLS: &dynamic.RouterTCPTLSConfig{Passthrough: true}},
		Service: &dynamic.TCPService{LoadBalancer: &dynamic.TCPServersLoadBalancer{Servers: servers}},
	})
}

// sslPassthrough says whether o honours ssl-passthrough.
func (o *Options) sslPassthrough() bool { return o != nil && o.SSLPassthrough }

// wildcardOrNone says whether host is a wildcard or no host at all,
// neither of which HostSNI can name.
func wildcardOrNone(host string) bool { return host == "" || strings.HasPrefix(host, "*.") }
