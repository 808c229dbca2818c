package gateway

import (
	"testing"

	"github.com/stretchr/testify/require"
	netv1 "k8s.io/api/networking/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	gatewayv1 "sigs.k8s.io/gateway-api/apis/v1"

	"github.com/sliceway/sliceway/config/dynamic"
	"github.com/sliceway/sliceway/provider/kubernetes/internal/gateway/attach"
	"github.com/sliceway/sliceway/provider/kubernetes/internal/translate"
)

// A backend whose Service port an accepted BackendTLSPolicy takes is
// reached over TLS through the policy's servers transport (its hostname
// the server name, its CA certificates the roots), which carries the
// rule's timeouts too; one whose policy is not accepted is never reached
// (its share answers an error), never in clear.
func TestHTTPRouteBackendTLS(t *testing.T) {
	w := newWorld(t)
	policy := func(name, service string, refs ...string) *gatewayv1.BackendTLSPolicy {
		p := &gatewayv1.BackendTLSPolicy{ObjectMeta: metav1.ObjectMeta{Namespace: "shop", Name: name},
			Spec: gatewayv1.BackendTLSPolicySpec{
				TargetRefs: []gatewayv1.LocalPolicyTargetReferenceWithSectionName{{
					LocalPolicyTargetReference: gatewayv1.LocalPolicyTargetReference{Kind: "Service", Name: gatewayv1.ObjectName(service)}}},
				Validation: gatewayv1.BackendTLSPolicyValidation{Hostname: "web.internal"},
			}}
		for _, r := range refs {
			p.Spec.Validation.CACertificateRefs = append(p.Spec.Validation.CACertificateRefs, gatewayv1.LocalObjectReference{Kind: "ConfigMap", Name: gatewayv1.ObjectName(r)})
		}
		return p
	}
	system := gatewayv1.WellKnownCACertificatesSystem
	webPolicy := policy("web-tls", "web")
	webPolicy.Spec.Validation.WellKnownCACertificates = &system
	x := attach.ProcessBackendTLSPolicies([]*gatewayv1.BackendTLSPolicy{webPolicy, policy("api-tls", "api", "missing")}, func(string, string) (string, bool, bool) { return "", false, false })
	w.tls = &x
	limit := gatewayv1.Duration("2s")
	route := shopRoute(
		gatewayv1.HTTPRouteRule{Matches: pathMatch(gatewayv1.PathMatchPathPrefix, "/a"), BackendRefs: []gatewayv1.HTTPBackendRef{backend("web", 1)}},
		gatewayv1.HTTPRouteRule{Matches: pathMatch(gatewayv1.PathMatchPathPrefix, "/b"), BackendRefs: []gatewayv1.HTTPBackendRef{backend("web", 1)},
			Timeouts: &gatewayv1.HTTPRouteTimeouts{Request: &limit}},
		gatewayv1.HTTPRouteRule{Matches: pathMatch(gatewayv1.PathMatchPathPrefix, "/c"), BackendRefs: []gatewayv1.HTTPBackendRef{backend("api", 1)}},
	)
	p, dropped := w.translate(t, route)
	require.Empty(t, dropped)
	services := partServices(p)
	serviceOf := routerServices(p)
	require.Equal(t, "shop-web-8080-tls", serviceOf["httproute-shop-cart-infra-gw-http-r0-m0"])
	require.Equal(t, "shop-web-8080-tls-t2000ms", serviceOf["httproute-shop-cart-infra-gw-http-r1-m0"])
	require.Equal(t, "httproute-shop-cart-r2-unavailable-500", serviceOf["httproute-shop-cart-infra-gw-http-r2-m0"], "the policy is not accepted")
	tls := services["shop-web-8080-tls"].LoadBalancer
	require.Equal(t, []dynamic.Server{{URL: "https://10.1.0.1:8080"}}, tls.Servers)
	require.Equal(t, "backendtls-shop-web-tls", tls.ServersTransport)
	require.Equal(t, "backendtls-shop-web-tls-t2000ms", services["shop-web-8080-tls-t2000ms"].LoadBalancer.ServersTransport)
	transports := map[string]*dynamic.ServersTransport{}
	for _, tr := range p.Transports {
		transports[tr.Name] = tr.Transport
	}
	require.Equal(t, &dynamic.ServersTransport{ServerName: "web.internal"}, transports["backendtls-shop-web-tls"], "the system's roots")
	require.Equal(t, "web.internal", transports["backendtls-shop-web-tls-t2000ms"].ServerName)
	require.NotNil(t, transports["backendtls-shop-web-tls-t2000ms"].ForwardingTimeouts)
	require.Len(t, p.Errs, 1)
	require.Contains(t, p.Errs[0].Err.Error(), "BackendTLSPolicy shop/api-tls of service shop/api is not accepted")
}

// A Service that names its own servers transport cannot take the one of
// a BackendTLSPolicy or of a rule's timeouts: its share answers 500, and
// the error is reported under what asked for the other transport, the
// backendRef for the policy, the rule's timeouts for them.
func TestServersTransportConflict(t *testing.T) {
	w := newWorld(t)
	for _, name := range []string{"web", "api"} {
		svc := dynamic.NewServersService()
		svc.LoadBalancer.Servers = []dynamic.Server{{URL: "http://10.1.0.1:8080"}}
		svc.LoadBalancer.ServersTransport = "mtls@file"
		w.lbs[translate.PortKey{Service: translate.Key{Namespace: "shop", Name: name}, Port: netv1.ServiceBackendPort{Number: 8080}}] =
			&translate.LoadBalancer{Service: svc}
	}
	w.webPolicy()
	limit := gatewayv1.Duration("2s")
	p, _ := w.translate(t, shopRoute(
		gatewayv1.HTTPRouteRule{Matches: pathMatch(gatewayv1.PathMatchPathPrefix, "/a"), BackendRefs: []gatewayv1.HTTPBackendRef{backend("web", 1)}},
		gatewayv1.HTTPRouteRule{Matches: pathMatch(gatewayv1.PathMatchPathPrefix, "/b"), BackendRefs: []gatewayv1.HTTPBackendRef{backend("api", 1)},
			Timeouts: &gatewayv1.HTTPRouteTimeouts{Request: &limit}},
	))
	require.Len(t, p.Errs, 2)
	require.Equal(t, "spec.rules[0].backendRefs[0]", p.Errs[0].Field)
	require.Contains(t, p.Errs[0].Err.Error(), `service shop/web names servers transport "mtls@file", which the servers transport of BackendTLSPolicy shop/web-tls would replace`)
	require.Equal(t, "spec.rules[1].timeouts", p.Errs[1].Field)
	require.Contains(t, p.Errs[1].Err.Error(), "which the servers transport of the rule's timeouts would replace")
	serviceOf := routerServices(p)
	require.Equal(t, "httproute-shop-cart-r0-unavailable-500", serviceOf["httproute-shop-cart-infra-gw-http-r0-m0"])
	require.Equal(t, "httproute-shop-cart-r1-unavailable-500", serviceOf["httproute-shop-cart-infra-gw-http-r1-m0"])
}

// A Gateway's client certificate for backends (spec.tls.backend) is in
// the servers transport of the backends its routes reach over TLS.
func TestHTTPRouteBackendClientCertificate(t *testing.T) {
	w := newWorld(t)
	w.webPolicy()
	w.gw.BackendClientCertificate = &attach.SecretRef{Namespace: "infra", Name: "client"}
	p, dropped := w.translate(t, shopRoute(gatewayv1.HTTPRouteRule{BackendRefs: []gatewayv1.HTTPBackendRef{backend("web", 1)}}))
	require.Empty(t, dropped)
	require.Empty(t, p.Errs)
	for _, r := range p.Routers {
		require.Equal(t, "shop-web-8080-tls-client-infra-client", r.Config.Service)
	}
	require.Len(t, p.Transports, 1)
	require.Equal(t, "backendtls-shop-web-tls-client-infra-client", p.Transports[0].Name)
	require.Equal(t, []dynamic.Certificate{{CertFile: "crt of client", KeyFile: "key of client"}}, p.Transports[0].Transport.Certificates)
}

// webPolicy gives the world an accepted BackendTLSPolicy shop/web-tls of
// the Service web: server name web.internal, the system's roots.
func (w *world) webPolicy() {
	system := gatewayv1.WellKnownCACertificatesSystem
	x := attach.ProcessBackendTLSPolicies([]*gatewayv1.BackendTLSPolicy{{ObjectMeta: metav1.ObjectMeta{Namespace: "shop", Name: "web-tls"},
		Spec: gatewayv1.BackendTLSPolicySpec{
			TargetRefs: []gatewayv1.LocalPolicyTargetReferenceWithSectionName{{
				LocalPolicyTargetReference: gatewayv1.LocalPolicyTargetReference{Kind: "Service", Name: "web"}}},
			Validation: gatewayv1.BackendTLSPolicyValidation{Hostname: "web.internal", WellKnownCACertificates: &system},
		}}}, nil)
	w.tls = &x
}
