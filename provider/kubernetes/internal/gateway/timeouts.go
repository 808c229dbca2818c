package gateway

import (
	"strconv"
	"time"

	"github.com/sliceway/sliceway/config/dynamic"
	"github.com/sliceway/sliceway/provider/kubernetes/internal/translate"
)

// An HTTPRoute rule's timeouts reach Traefik as a servers transport with
// the forwarding timeouts filter.HTTPRuleTimeouts gives them (what they
// bound, and what Traefik cannot, is said there): each load balancer of
// the rule is reached through a service derived from it that names the
// transport ("<lb>-t<ms>ms"), shared by every rule with that timeout, and
// the transport ("gateway-timeout-<ms>ms") by every route with it.

// timeoutLimit is the wait timeouts bound a backend's response headers
// by; 0 when they bound none (both "0s", or none given), and Traefik's
// own transport then serves.
func timeoutLimit(timeouts *dynamic.ForwardingTimeouts) time.Duration {
	if timeouts == nil {
		return 0
	}
	return time.Duration(timeouts.ResponseHeaderTimeout)
}

// timeoutSuffix names what a limit derives: "t500ms".
func timeoutSuffix(limit time.Duration) string {
	return "t" + strconv.FormatInt(limit.Milliseconds(), 10) + "ms"
}

// timeoutTransport defines in the part the servers transport of
// timeouts, once, and returns its name. Its name says its limit, which
// decides the rest of the definition.
func (t *routeTranslation) timeoutTransport(timeouts *dynamic.ForwardingTimeouts) string {
	return t.transport("gateway-timeout-"+timeoutSuffix(timeoutLimit(timeouts))[1:], func() *dynamic.ServersTransport {
		ft := *timeouts
		return &dynamic.ServersTransport{ForwardingTimeouts: &ft}
	})
}

// transport defines in the part the servers transport name, made by
// build unless the part has it already (its name says all of its
// definition), and returns name.
func (t *routeTranslation) transport(name string, build func() *dynamic.ServersTransport) string {
	for _, tr := range t.p.Transports {
		if tr.Name == name {
			return name
		}
	}
	t.p.Transports = append(t.p.Transports, translate.NamedTransport{Name: name, Transport: build()})
	return name
}

// withTransport is base with its servers reached through the servers
// transport name; base is left as it is.
func withTransport(name string) func(*dynamic.Service) *dynamic.Service {
	return func(base *dynamic.Service) *dynamic.Service {
		if base == nil || base.LoadBalancer == nil {
			return base
		}
		out, lb := *base, *base.LoadBalancer
		lb.ServersTransport = name
		out.LoadBalancer = &lb
		return &out
	}
}
