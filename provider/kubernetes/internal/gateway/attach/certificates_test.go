package attach

import (
	"testing"

	"github.com/stretchr/testify/require"
	gatewayv1 "sigs.k8s.io/gateway-api/apis/v1"
)

func TestListenerCertificates(t *testing.T) {
	// The grants of gateway-secret-invalid-reference-grant: each is wrong in
	// one way, so together they still allow nothing.
	wrongGrants := []*gatewayv1.ReferenceGrant{
		grant(appNS, "gateway.networking.k8s.io", "Gateway", infraNS, "", "Secret", "certificate"),
		grant(webNS, "not-the-group-youre-looking-for", "Gateway", infraNS, "", "Secret", "certificate"),
		grant(webNS, "gateway.networking.k8s.io", "HTTPRoute", infraNS, "", "Secret", "certificate"),
		grant(webNS, "gateway.networking.k8s.io", "Gateway", "not-the-namespace-youre-looking-for", "", "Secret", "certificate"),
		grant(webNS, "gateway.networking.k8s.io", "Gateway", infraNS, "not-the-group-youre-looking-for", "Secret", "not-the-certificate-youre-looking-for"),
		grant(webNS, "gateway.networking.k8s.io", "Gateway", infraNS, "", "Service", "certificate"),
		grant(webNS, "gateway.networking.k8s.io", "Gateway", infraNS, "", "Secret", "not-the-certificate-youre-looking-for"),
	}
	crossNS := secretRef("", "Secret", webNS, "certificate")
	good := secretRef("", "Secret", "", "tls-validity-checks-certificate")

	tests := []struct {
		name       string
		opts       []listenerOpt
		grants     []*gatewayv1.ReferenceGrant
		accepted   want
		refs       want
		programmed bool
		certs      []SecretRef
	}{
		// gateway-invalid-tls-configuration: four ways to be an invalid
		// certificateRef.
		{
			name:     "nonexistent Secret",
			opts:     []listenerOpt{certs(secretRef("", "Secret", "", "nonexistent-certificate"))},
			accepted: want{"Accepted", condTrue, "Accepted"}, refs: want{"ResolvedRefs", condFalse, "InvalidCertificateRef"},
		},
		{
			name:     "unsupported group",
			opts:     []listenerOpt{certs(secretRef("wrong.group.company.io", "Secret", "", "tls-validity-checks-certificate"))},
			accepted: want{"Accepted", condTrue, "Accepted"}, refs: want{"ResolvedRefs", condFalse, "InvalidCertificateRef"},
		},
		{
			name:     "unsupported kind",
			opts:     []listenerOpt{certs(secretRef("", "WrongKind", "", "tls-validity-checks-certificate"))},
			accepted: want{"Accepted", condTrue, "Accepted"}, refs: want{"ResolvedRefs", condFalse, "InvalidCertificateRef"},
		},
		{
			name:     "malformed Secret",
			opts:     []listenerOpt{certs(secretRef("", "Secret", "", "malformed-certificate"))},
			accepted: want{"Accepted", condTrue, "Accepted"}, refs: want{"ResolvedRefs", condFalse, "InvalidCertificateRef"},
		},
		// gateway-secret-missing-reference-grant and -invalid-reference-grant.
		{
			name:     "Secret in another namespace without a grant",
			opts:     []listenerOpt{from(gatewayv1.NamespacesFromAll), certs(crossNS)},
			accepted: want{"Accepted", condTrue, "Accepted"}, refs: want{"ResolvedRefs", condFalse, "RefNotPermitted"},
		},
		{
			name:     "Secret in another namespace with only wrong grants",
			opts:     []listenerOpt{certs(crossNS)},
			grants:   wrongGrants,
			accepted: want{"Accepted", condTrue, "Accepted"}, refs: want{"ResolvedRefs", condFalse, "RefNotPermitted"},
		},
		// gateway-secret-reference-grant-specific and -all-in-namespace.
		{
			name:     "a grant naming the Secret",
			opts:     []listenerOpt{certs(crossNS)},
			grants:   []*gatewayv1.ReferenceGrant{grant(webNS, "gateway.networking.k8s.io", "Gateway", infraNS, "", "Secret", "certificate")},
			accepted: want{"Accepted", condTrue, "Accepted"}, refs: want{"ResolvedRefs", condTrue, "ResolvedRefs"},
			programmed: true, certs: []SecretRef{{webNS, "certificate"}},
		},
		{
			name:     "a grant for every Secret of the namespace",
			opts:     []listenerOpt{certs(crossNS)},
			grants:   []*gatewayv1.ReferenceGrant{grant(webNS, "gateway.networking.k8s.io", "Gateway", infraNS, "", "Secret", "")},
			accepted: want{"Accepted", condTrue, "Accepted"}, refs: want{"ResolvedRefs", condTrue, "ResolvedRefs"},
			programmed: true, certs: []SecretRef{{webNS, "certificate"}},
		},
		{
			name:     "group and kind left out mean a core Secret, namespace left out the Gateway's",
			opts:     []listenerOpt{certs(secretRef("-", "", "", "tls-validity-checks-certificate"))},
			accepted: want{"Accepted", condTrue, "Accepted"}, refs: want{"ResolvedRefs", condTrue, "ResolvedRefs"},
			programmed: true, certs: []SecretRef{{infraNS, "tls-validity-checks-certificate"}},
		},
		{
			name:     "one bad certificate beside a good one: unresolved but served with the good one",
			opts:     []listenerOpt{certs(secretRef("", "Secret", "", "nonexistent"), good, good)},
			accepted: want{"Accepted", condTrue, "Accepted"}, refs: want{"ResolvedRefs", condFalse, "InvalidCertificateRef"},
			programmed: true, certs: []SecretRef{{infraNS, "tls-validity-checks-certificate"}},
		},
		{
			name:     "no tls block on HTTPS",
			accepted: want{"Accepted", condTrue, "Accepted"}, refs: want{"ResolvedRefs", condFalse, "InvalidCertificateRef"},
		},
		{
			name:     "a tls block without certificateRefs",
			opts:     []listenerOpt{tlsMode(gatewayv1.TLSModeTerminate)},
			accepted: want{"Accepted", condTrue, "Accepted"}, refs: want{"ResolvedRefs", condFalse, "InvalidCertificateRef"},
		},
		{
			name:     "Passthrough on HTTPS",
			opts:     []listenerOpt{tlsMode(gatewayv1.TLSModePassthrough)},
			accepted: want{"Accepted", condFalse, "UnsupportedValue"}, refs: want{"ResolvedRefs", condTrue, "ResolvedRefs"},
		},
		{
			name:     "an unknown mode",
			opts:     []listenerOpt{tlsMode("Sideways"), certs(good)},
			accepted: want{"Accepted", condFalse, "UnsupportedValue"}, refs: want{"ResolvedRefs", condTrue, "ResolvedRefs"},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			cluster := conformanceCluster()
			cluster.grants = tt.grants
			g := processed(t, gateway("gw", listener("https", 443, gatewayv1.HTTPSProtocolType, tt.opts...)), testOptions(), cluster.lookups())
			l := mustListener(t, &g, "https")
			requireConditions(t, l.Conditions, gwGen, tt.accepted, tt.refs)
			require.Equal(t, tt.programmed, l.Programmed)
			require.Equal(t, tt.certs, l.Certificates)
			if tt.accepted.status == condTrue {
				// A listener with unusable certificates is still accepted,
				// so the Gateway is accepted and programmed.
				requireConditions(t, g.Conditions, gwGen, want{"Accepted", condTrue, "Accepted"}, want{"Programmed", condTrue, "Programmed"})
			}
			if !tt.programmed {
				requireConditions(t, l.Conditions, gwGen, want{"Programmed", condFalse, "Invalid"})
			}
		})
	}
}

func TestCertificateMessagesNameTheField(t *testing.T) {
	gw := gateway("gw", listener("https", 443, gatewayv1.HTTPSProtocolType,
		certs(secretRef("", "Secret", "", "nonexistent"), secretRef("", "Secret", webNS, "certificate"))))
	g := processed(t, gw, testOptions(), conformanceCluster().lookups())
	c, _ := FindCondition(g.Listeners[0].Conditions, "ResolvedRefs")
	require.Equal(t, "InvalidCertificateRef", c.Reason, "the first problem decides the reason")
	require.Contains(t, c.Message, "spec.listeners[0].tls.certificateRefs[0]: Secret gateway-conformance-infra/nonexistent: not found")
	require.Contains(t, c.Message, "spec.listeners[0].tls.certificateRefs[1]: Secret gateway-conformance-web-backend/certificate")
}

func TestCertificatePermissionBeforeExistence(t *testing.T) {
	// A Gateway must not learn whether a Secret it may not use exists: the
	// reader is not even asked.
	asked := false
	look := Lookups{TLSSecret: func(string, string) error { asked = true; return nil }}
	gw := gateway("gw", listener("https", 443, gatewayv1.HTTPSProtocolType, certs(secretRef("", "Secret", webNS, "certificate"))))
	g := processed(t, gw, testOptions(), look)
	requireConditions(t, g.Listeners[0].Conditions, gwGen, want{"ResolvedRefs", condFalse, "RefNotPermitted"})
	require.False(t, asked)
}

func TestCertificatesWithoutLookups(t *testing.T) {
	// Lookups left nil find nothing: fail closed.
	gw := gateway("gw", listener("https", 443, gatewayv1.HTTPSProtocolType, certs(secretRef("", "Secret", "", "tls-validity-checks-certificate"))))
	g := processed(t, gw, testOptions(), Lookups{})
	require.False(t, g.Listeners[0].Programmed)
	requireConditions(t, g.Listeners[0].Conditions, gwGen, want{"ResolvedRefs", condFalse, "InvalidCertificateRef"})
}

func TestTLSPassthroughNeedsNoCertificate(t *testing.T) {
	opts := testOptions()
	opts.RouteKinds = []gatewayv1.Kind{KindTLSRoute}
	gw := gateway("gw", listener("tls", 8443, gatewayv1.TLSProtocolType, tlsMode(gatewayv1.TLSModePassthrough),
		certs(secretRef("", "Secret", "", "ignored"))))
	g := processed(t, gw, opts, Lookups{})
	l := g.Listeners[0]
	require.True(t, l.Programmed)
	require.Empty(t, l.Certificates)
	requireConditions(t, l.Conditions, gwGen, want{"ResolvedRefs", condTrue, "ResolvedRefs"})
}
