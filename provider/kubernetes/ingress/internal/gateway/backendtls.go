package gateway

import (
	"strings"

	"github.com/sliceway/sliceway/config/dynamic"
	"github.com/sliceway/sliceway/provider/kubernetes/ingress/internal/gateway/attach"
	"github.com/sliceway/sliceway/provider/kubernetes/ingress/internal/translate"
)

// A backend whose Service port an accepted BackendTLSPolicy takes is
// reached over TLS: its load balancer's servers become https://, through
// a servers transport of the policy ("backendtls-<namespace>-<name>"):
// serverName the policy's hostname (the SNI sent, and the name the
// certificate is verified against), rootCAs its CA certificates (none:
// the system's roots). With a rule's timeouts, the transport carries them
// too ("…-t<ms>ms"): a load balancer names one transport.

// tlsTransport defines in the part the servers transport of policy with
// timeouts (nil: none), once, and returns its name.
func (t *routeTranslation) tlsTransport(policy *attach.BackendTLS, timeouts *dynamic.ForwardingTimeouts) string {
	name := "backendtls-" + policy.Namespace + "-" + policy.Name
	if limit := timeoutLimit(timeouts); limit > 0 {
		name += "-" + timeoutSuffix(limit)
	} else {
		timeouts = nil
	}
	for _, tr := range t.p.Transports {
		if tr.Name == name {
			return name
		}
	}
	tr := &dynamic.ServersTransport{ServerName: policy.Hostname, RootCAs: policy.CAs}
	if timeouts != nil {
		ft := *timeouts
		tr.ForwardingTimeouts = &ft
	}
	t.p.Transports = append(t.p.Transports, translate.NamedTransport{Name: name, Transport: tr})
	return name
}

// toHTTPS is base with its servers reached over TLS; base is left as it
// is.
func toHTTPS(base *dynamic.Service) *dynamic.Service {
	if base == nil || base.LoadBalancer == nil {
		return base
	}
	out, lb := *base, *base.LoadBalancer
	lb.Servers = make([]dynamic.Server, len(base.LoadBalancer.Servers))
	for i, s := range base.LoadBalancer.Servers {
		for _, scheme := range []string{"http://", "h2c://"} {
			if rest, ok := strings.CutPrefix(s.URL, scheme); ok {
				s.URL = "https://" + rest
			}
		}
		lb.Servers[i] = s
	}
	out.LoadBalancer = &lb
	return &out
}
