package ingress

import (
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	gatewayv1 "sigs.k8s.io/gateway-api/apis/v1"
	"sigs.k8s.io/yaml"

	"github.com/sliceway/sliceway/provider/kubernetes/internal/gateway/attach"
	"github.com/sliceway/sliceway/provider/kubernetes/manifests"
)

// TestGatewayFixtures renders the cases of fixtures/gateway/ with the
// Gateway API provider, as TestFixtures does those of fixtures/ with the
// Traefik-style one: options.yaml holds GatewayProvider's options, and
// status.yaml is the status the provider writes to each Gateway API
// object it concludes about (its conditions' times set to one instant).
func TestGatewayFixtures(t *testing.T) {
	runFixtures(t, "gateway", func(t *testing.T, dir string) map[string]string {
		opts := loadGatewayFixture(t, dir)
		objs, problems := manifests.Read([]string{filepath.Join(dir, "manifests.yaml")}, manifests.WantedKinds(true))
		cluster := manifests.NewCluster()
		_, more := cluster.Apply(objs)
		conf, errs, res := renderCase(t, dir, &opts.Provider, ClientOptions{Gateway: cluster.GatewayClientset()}, cluster.Clientset(), append(problems, more...))
		return map[string]string{"expected.yaml": conf, "errors.txt": errs,
			"status.yaml": fixtureStatus(t, outcomeOf(res), gatewayv1.GatewayController(opts.ControllerName))}
	})
}

// loadGatewayFixture reads the options of a Gateway API case.
func loadGatewayFixture(t *testing.T, dir string) *GatewayProvider {
	t.Helper()
	opts := &GatewayProvider{}
	opts.SetDefaults()
	opts.IngressEndpoint = &EndpointIngress{IP: "192.0.2.10"}
	if data, err := os.ReadFile(filepath.Join(dir, "options.yaml")); err == nil {
		require.NoError(t, yaml.UnmarshalStrict(data, opts), "options.yaml")
	}
	require.NoError(t, opts.Init())
	return opts
}

// objectStatus is the status written to one object.
type objectStatus struct {
	Kind   string `json:"kind"`
	Name   string `json:"name"` // namespace/name, or name when cluster-scoped
	Status any    `json:"status"`
}

// fixtureStatus is the status the status writer derives from out, for
// each object, as YAML.
func fixtureStatus(t *testing.T, out *gatewayOutcome, controller gatewayv1.GatewayController) string {
	t.Helper()
	if out == nil {
		return ""
	}
	now := metav1.NewTime(time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC))
	var list []objectStatus
	for _, c := range out.classes {
		list = append(list, objectStatus{"GatewayClass", c.Name, attach.ClassStatus(gatewayv1.GatewayClassStatus{}, c, now)})
	}
	for _, g := range out.gateways {
		list = append(list, objectStatus{"Gateway", g.Namespace + "/" + g.Name, attach.GatewayStatus(gatewayv1.GatewayStatus{}, g, now)})
	}
	for _, r := range out.routes {
		list = append(list, objectStatus{string(r.att.Route.Kind), r.att.Route.Namespace + "/" + r.att.Route.Name,
			attach.RouteStatus(gatewayv1.RouteStatus{}, *r.att, r.backends, controller, now)})
	}
	for _, p := range out.policies {
		list = append(list, objectStatus{"BackendTLSPolicy", p.policy.Namespace + "/" + p.policy.Name,
			attach.PolicyStatus(gatewayv1.PolicyStatus{}, p.policy, p.ancestors, controller, now)})
	}
	if len(list) == 0 {
		return ""
	}
	data, err := yaml.Marshal(list)
	require.NoError(t, err)
	return string(data)
}
