package attach

import (
	"testing"
	"time"

	"github.com/stretchr/testify/require"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	gatewayv1 "sigs.k8s.io/gateway-api/apis/v1"

	"github.com/sliceway/sliceway/provider/kubernetes/internal/testobjects"
)

func backendTLSPolicy(name string, created int, service, section string, refs ...gatewayv1.LocalObjectReference) *gatewayv1.BackendTLSPolicy {
	p := &gatewayv1.BackendTLSPolicy{
		ObjectMeta: metav1.ObjectMeta{Namespace: infraNS, Name: name, Generation: 2, CreationTimestamp: metav1.NewTime(time.Unix(int64(created), 0))},
		Spec: gatewayv1.BackendTLSPolicySpec{
			TargetRefs: []gatewayv1.LocalPolicyTargetReferenceWithSectionName{{
				LocalPolicyTargetReference: gatewayv1.LocalPolicyTargetReference{Kind: "Service", Name: gatewayv1.ObjectName(service)}}},
			Validation: gatewayv1.BackendTLSPolicyValidation{Hostname: "abc.example.com", CACertificateRefs: refs},
		},
	}
	if section != "" {
		p.Spec.TargetRefs[0].SectionName = new(gatewayv1.SectionName(section))
	}
	return p
}

func configMapRef(name string) gatewayv1.LocalObjectReference {
	return gatewayv1.LocalObjectReference{Kind: "ConfigMap", Name: gatewayv1.ObjectName(name)}
}

// Policies are checked as the Gateway API says: the older of two on one
// target takes it and the other is Conflicted; one of a port (by name)
// comes before one of the whole Service; CA references of another kind,
// missing, without ca.crt or not certificates leave ResolvedRefs False,
// and Accepted False (NoValidCACertificate) when none is valid; what is
// not served (subjectAltNames, an unknown set of CA certificates) is
// Invalid.
func TestProcessBackendTLSPolicies(t *testing.T) {
	crt, _ := testobjects.SelfSignedPEM(t)
	configMaps := map[string]string{"ca": string(crt), "malformed": "not a certificate"}
	ca := func(ns, name string) (string, bool, bool) {
		if name == "empty" {
			return "", true, false
		}
		data, ok := configMaps[name]
		return data, ok, ok
	}
	system := gatewayv1.WellKnownCACertificatesSystem
	sans := backendTLSPolicy("sans", 8, "sans", "", configMapRef("ca"))
	sans.Spec.Validation.SubjectAltNames = []gatewayv1.SubjectAltName{{Type: gatewayv1.HostnameSubjectAltNameType, Hostname: "x.example"}}
	wellKnown := backendTLSPolicy("system", 9, "system", "")
	wellKnown.Spec.Validation.WellKnownCACertificates = &system
	x := ProcessBackendTLSPolicies([]*gatewayv1.BackendTLSPolicy{
		backendTLSPolicy("newer", 2, "web", "", configMapRef("ca")),
		backendTLSPolicy("older", 1, "web", "", configMapRef("ca")),
		backendTLSPolicy("port", 3, "web", "https", configMapRef("ca")),
		backendTLSPolicy("some-bad", 4, "api", "", configMapRef("ca"), configMapRef("missing")),
		backendTLSPolicy("all-bad", 5, "db", "", gatewayv1.LocalObjectReference{Kind: "Secret", Name: "ca"}, configMapRef("malformed"), configMapRef("empty")),
		sans, wellKnown,
	}, ca)

	byName := map[string]*BackendTLS{}
	for i := range x.Policies {
		byName[x.Policies[i].Name] = &x.Policies[i]
	}
	require.True(t, byName["older"].Accepted)
	require.Equal(t, gatewayv1.PolicyReasonConflicted, byName["newer"].Reason)
	require.False(t, byName["newer"].Accepted)
	require.Equal(t, "older", x.For(infraNS, "web", "http").Name, "the whole Service's")
	require.Equal(t, "port", x.For(infraNS, "web", "https").Name, "the port's comes first")
	require.Nil(t, x.For("other", "web", "http"), "a policy targets Services of its namespace")
	require.ElementsMatch(t, []string{"newer", "older", "port"}, names(x, x.Targeting(infraNS, "web", "https")), "the conflicted one targets it too")

	someBad := byName["some-bad"]
	require.True(t, someBad.Accepted, "one CA certificate is valid")
	require.False(t, someBad.Resolved)
	require.Equal(t, gatewayv1.BackendTLSPolicyReasonInvalidCACertificateRef, someBad.RefsReason)
	require.Equal(t, "spec.validation.caCertificateRefs[1]: ConfigMap gateway-conformance-infra/missing not found", someBad.RefsMessage)
	require.Equal(t, []string{string(crt)}, someBad.CAs)

	allBad := byName["all-bad"]
	require.False(t, allBad.Accepted)
	require.Equal(t, gatewayv1.BackendTLSPolicyReasonNoValidCACertificate, allBad.Reason)
	require.Equal(t, gatewayv1.BackendTLSPolicyReasonInvalidKind, allBad.RefsReason, "the first problem decides")
	require.Contains(t, allBad.RefsMessage, "caCertificateRefs[1]: ConfigMap gateway-conformance-infra/malformed: ca.crt is not PEM certificates")
	require.Contains(t, allBad.RefsMessage, "caCertificateRefs[2]: ConfigMap gateway-conformance-infra/empty has no ca.crt")

	require.False(t, byName["sans"].Accepted)
	require.Equal(t, gatewayv1.PolicyReasonInvalid, byName["sans"].Reason)
	require.True(t, byName["system"].Accepted)
	require.Empty(t, byName["system"].CAs, "the system's roots")
}

func names(x BackendTLSPolicies, idx []int) []string {
	var out []string
	for _, i := range idx {
		out = append(out, x.Policies[i].Name)
	}
	return out
}

// A policy's status has an ancestor entry of ours per Gateway it applies
// through, with Accepted and ResolvedRefs at its generation; other
// controllers' entries stay; unchanged conditions keep their time.
func TestPolicyStatus(t *testing.T) {
	x := ProcessBackendTLSPolicies([]*gatewayv1.BackendTLSPolicy{backendTLSPolicy("p", 1, "web", "", configMapRef("missing"))},
		func(string, string) (string, bool, bool) { return "", false, false })
	p := &x.Policies[0]
	theirs := gatewayv1.PolicyAncestorStatus{ControllerName: "example.com/other", AncestorRef: gatewayv1.ParentReference{Name: "gw"}}
	at := metav1.NewTime(time.Unix(100, 0))
	st := PolicyStatus(gatewayv1.PolicyStatus{Ancestors: []gatewayv1.PolicyAncestorStatus{theirs}}, p,
		[]PolicyAncestor{{Namespace: infraNS, Name: "gw"}}, ourCtrl, at)
	require.Len(t, st.Ancestors, 2)
	require.Equal(t, theirs, st.Ancestors[0])
	ours := st.Ancestors[1]
	require.Equal(t, gatewayv1.ObjectName("gw"), ours.AncestorRef.Name)
	require.Equal(t, gatewayv1.Namespace(infraNS), *ours.AncestorRef.Namespace)
	require.Equal(t, gatewayv1.Kind("Gateway"), *ours.AncestorRef.Kind)
	require.Len(t, ours.Conditions, 2)
	for _, c := range ours.Conditions {
		require.Equal(t, int64(2), c.ObservedGeneration)
		require.Equal(t, metav1.ConditionFalse, c.Status, c.Type)
	}
	require.Equal(t, string(gatewayv1.BackendTLSPolicyReasonNoValidCACertificate), ours.Conditions[0].Reason)

	again := PolicyStatus(st, p, []PolicyAncestor{{Namespace: infraNS, Name: "gw"}}, ourCtrl, metav1.NewTime(time.Unix(200, 0)))
	require.Equal(t, st, again, "unchanged: the same status, times and all")
	gone := PolicyStatus(st, nil, nil, ourCtrl, at)
	require.Equal(t, []gatewayv1.PolicyAncestorStatus{theirs}, gone.Ancestors, "ours go when the policy applies through none of our Gateways")
}
