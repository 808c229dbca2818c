package ingress

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	netv1 "k8s.io/api/networking/v1"

	"github.com/sliceway/sliceway/provider/kubernetes/internal/testobjects"
)

func TestTranslateRouterKeyConflict(t *testing.T) {
	exact, prefix := netv1.PathTypeExact, netv1.PathTypePrefix
	be := netv1.IngressBackend{Service: &netv1.IngressServiceBackend{Name: "whoami", Port: netv1.ServiceBackendPort{Number: 80}}}
	ing := testobjects.NewIngress("ns", "ing")
	ing.Spec.Rules = []netv1.IngressRule{{Host: "foo.com", IngressRuleValue: netv1.IngressRuleValue{HTTP: &netv1.HTTPIngressRuleValue{
		Paths: []netv1.HTTPIngressPath{
			{Path: "/bar", PathType: &exact, Backend: be},
			{Path: "/bar", PathType: &prefix, Backend: be},
		},
	}}}}
	res := translateOnce(t, testobjects.NewSnapshot(append(testobjects.Backend("ns", "whoami", "10.0.0.1"), ing)...), nil)
	require.Empty(t, res.Errors)

	keyFor := func(rule string) string {
		sum := sha256Hex(rule)
		return "ns-ing-foo-com-bar-" + sum[:20]
	}
	want := map[string]string{
		keyFor(`Host("foo.com") && Path("/bar")`):       `Host("foo.com") && Path("/bar")`,
		keyFor(`Host("foo.com") && PathPrefix("/bar")`): `Host("foo.com") && PathPrefix("/bar")`,
	}
	got := map[string]string{}
	for k, rt := range res.Configuration.HTTP.Routers {
		got[k] = rt.Rule
	}
	assert.Equal(t, want, got)
}

// TestTranslateDefaultRouterNameCollision: the path "/" without host of an
// Ingress named "router" in namespace "default" has the router key
// "default-router", the name of the default backend's router.
func TestTranslateDefaultRouterNameCollision(t *testing.T) {
	objs := testobjects.Backend("default", "a", "10.0.0.1")
	objs = append(objs, testobjects.Backend("default", "b", "10.0.0.2")...)
	objs = append(objs,
		testobjects.NewIngress("default", "router", testobjects.WithCreated(1), testobjects.WithPath("", "/", "a", 80, "")),
		testobjects.NewIngress("default", "db", testobjects.WithCreated(2), testobjects.WithDefaultBackend("b", 80)))
	res := translateOnce(t, testobjects.NewSnapshot(objs...), nil)
	for _, e := range res.Errors {
		assert.NotEqual(t, SeverityError, e.Severity, "%v", e)
	}
	require.Contains(t, res.Configuration.HTTP.Routers, DefaultRouterName)
	assert.Equal(t, DefaultBackendName, res.Configuration.HTTP.Routers[DefaultRouterName].Service)
	var pathRouters []string
	for key, rt := range res.Configuration.HTTP.Routers {
		if rt.Service == "default-a-80" {
			pathRouters = append(pathRouters, key)
			assert.Equal(t, `PathPrefix("/")`, rt.Rule)
		}
	}
	assert.Len(t, pathRouters, 1, "the path of default/router must keep a router")
}
