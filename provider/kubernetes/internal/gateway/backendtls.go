package gateway

import (
	"fmt"

	gatewayv1 "sigs.k8s.io/gateway-api/apis/v1"

	"github.com/sliceway/sliceway/config/dynamic"
	"github.com/sliceway/sliceway/provider/kubernetes/internal/gateway/attach"
	"github.com/sliceway/sliceway/provider/kubernetes/internal/translate"
)

// A backend whose Service port an accepted BackendTLSPolicy takes is
// reached over TLS: its load balancer's servers become https://, through
// a servers transport of the policy ("backendtls-<namespace>-<name>"):
// serverName the policy's hostname (the SNI sent, and the name the
// certificate is verified against), rootCAs its CA certificates (none:
// the system's roots). With a rule's timeouts, the transport carries them
// too ("…-t<ms>ms"): a load balancer names one transport.

// tlsTransport defines in the part the servers transport of policy with
// the rule's timeouts and its Gateways' client certificate, once, and
// returns its name.
func (t *routeTranslation) tlsTransport(policy *attach.BackendTLS, tw backendTweaks) string {
	name := "backendtls-" + policy.Namespace + "-" + policy.Name
	timeouts := tw.timeouts
	if limit := timeoutLimit(timeouts); limit > 0 {
		name += "-" + timeoutSuffix(limit)
	} else {
		timeouts = nil
	}
	if tw.clientSecret != nil {
		name += "-client-" + tw.clientSecret.Namespace + "-" + tw.clientSecret.Name
	}
	return t.transport(name, func() *dynamic.ServersTransport {
		tr := &dynamic.ServersTransport{ServerName: policy.Hostname, RootCAs: policy.CAs}
		if timeouts != nil {
			ft := *timeouts
			tr.ForwardingTimeouts = &ft
		}
		if tw.clientCertificate != nil {
			tr.Certificates = []dynamic.Certificate{*tw.clientCertificate}
		}
		return tr
	})
}

// tlsSuffix names what TLS derives of a load balancer: "tls", or
// "tls-client-<namespace>-<name>" with a client certificate.
func tlsSuffix(tw backendTweaks) string {
	if tw.clientSecret == nil {
		return "tls"
	}
	return "tls-client-" + tw.clientSecret.Namespace + "-" + tw.clientSecret.Name
}

// clientCertificate is the client certificate the Gateways of rule ri's
// programmed listeners present to backends, or why the rule is left out:
// its routers share one service, which can present one.
func (t *routeTranslation) clientCertificate(ri int, att *attach.RouteAttachment) (*attach.SecretRef, *dynamic.Certificate, *attach.DroppedRule) {
	var ref *attach.SecretRef
	seen := false
	for pi := range att.Parents {
		parent := &att.Parents[pi]
		gw := t.env.Gateway(parent.GatewayNamespace, parent.GatewayName)
		if !parent.Accepted || gw == nil {
			continue
		}
		if seen && !sameSecret(ref, gw.BackendClientCertificate) {
			return nil, nil, &attach.DroppedRule{Index: ri, Reason: gatewayv1.RouteReasonUnsupportedValue,
				Message: "the route's Gateways present different client certificates to backends (spec.tls.backend), and a rule's backends are reached alike"}
		}
		ref, seen = gw.BackendClientCertificate, true
	}
	if ref == nil || t.env.ClientCertificate == nil {
		return nil, nil, nil
	}
	cert, err := t.env.ClientCertificate(*ref)
	if err != nil {
		t.p.Problem("spec.parentRefs", translate.SeverityError, fmt.Errorf("the Gateway's client certificate for backends: %w", err))
		return nil, nil, nil
	}
	return ref, &cert, nil
}

func sameSecret(a, b *attach.SecretRef) bool {
	return (a == nil) == (b == nil) && (a == nil || *a == *b)
}

// toHTTPS is base with its servers reached over TLS; base is left as it
// is.
var toHTTPS = withScheme("https://", "http://", "h2c://")
