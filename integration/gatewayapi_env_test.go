package integration_test

import (
	"context"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"sigs.k8s.io/gateway-api/conformance"

	"github.com/sliceway/sliceway/config/dynamic"
	"github.com/sliceway/sliceway/integration/controlplane"
)

// conformanceNamespaces are the namespaces of the Gateway API
// conformance suite's base manifests, whose pods it waits for.
var conformanceNamespaces = []string{"gateway-conformance-infra", "gateway-conformance-app-backend", "gateway-conformance-web-backend"}

// TestConformanceEnvironment builds what the Gateway API conformance suite
// runs on, but for the Gateway controller: the Gateway API CRDs (standard
// channel) and the suite's base manifests (its namespaces, Gateways of
// class sliceway, and its backends), with every backend pod run by the
// pod runner in the test's own network namespace. Each replica of the
// suite's main backend answers at the address its EndpointSlice gives,
// as its pod, through sliceway's configuration.
func TestConformanceEnvironment(t *testing.T) {
	if !inNetworkNamespace(t) {
		return
	}
	cp := controlplane.StartForTest(t, launcher, pidDir, controlplane.PodControllers...)
	applyFile(t, cp, rbacManifest)
	createNodes(t, cp)
	createIngressClass(t, cp)
	installGatewayAPI(t, cp)
	runner, err := cp.RunPods(ctx, controlplane.PodRunnerOptions{Node: "node-a"})
	require.NoError(t, err)
	t.Cleanup(runner.Stop)

	pods := applyConformanceBase(t, cp, "sliceway")
	for _, ns := range conformanceNamespaces {
		_, err := cp.WaitForReadyPods(ctx, ns, "", pods[ns], 3*time.Minute)
		require.NoError(t, err, "the pods of %s", ns)
	}

	const ns, svc = "gateway-conformance-infra", "infra-backend-v1"
	createIngress(t, cp, ingressSpec{namespace: ns, name: svc, host: "infra.example.com", service: svc, port: "first-port"})
	run := runProvider(t, newProvider(t, cp))
	name := ns + "-" + svc + "-first-port"
	cfg := run.waitFor(t, "the two replicas of "+svc, time.Minute, func(cfg *dynamic.Configuration) bool { return len(servers(cfg, name)) == 2 })
	answered := map[string]bool{}
	for _, s := range servers(cfg, name) {
		assert.True(t, strings.HasPrefix(s, "http://10.244.") && strings.HasSuffix(s, ":3000"), "server %s: a pod address at the target port", s)
		reply := echo(t, s+"/", "infra.example.com")
		assert.Equal(t, ns, reply.Namespace)
		assert.True(t, strings.HasPrefix(reply.Pod, svc+"-"), "pod %s", reply.Pod)
		answered[reply.Pod] = true
	}
	assert.Len(t, answered, 2, "each replica answers as itself")
}

// installGatewayAPI applies the CRDs of the Gateway API's standard channel,
// from the module the integration suite requires, and waits until the API
// server serves them.
func installGatewayAPI(t *testing.T, cp *controlplane.ControlPlane) {
	t.Helper()
	out, err := exec.Command("go", "list", "-m", "-f", "{{.Dir}}", "sigs.k8s.io/gateway-api").Output()
	require.NoError(t, err, "locating the sigs.k8s.io/gateway-api module")
	files, err := filepath.Glob(filepath.Join(strings.TrimSpace(string(out)), "config", "crd", "standard", "*.yaml"))
	require.NoError(t, err)
	require.NotEmpty(t, files, "the Gateway API CRDs")
	a, err := controlplane.NewApplier(cp.AdminConfig())
	require.NoError(t, err)
	for _, f := range files {
		require.NoError(t, a.ApplyFile(ctx, f), f)
	}
}

// applyConformanceBase applies the conformance suite's base manifests with
// the GatewayClass name class, as the suite does, once the API server
// serves the Gateway API kinds; it returns how many pods each namespace's
// Deployments ask for.
func applyConformanceBase(t *testing.T, cp *controlplane.ControlPlane, class string) map[string]int {
	t.Helper()
	data, err := conformance.Manifests.ReadFile("base/manifests.yaml")
	require.NoError(t, err)
	objs, err := controlplane.DecodeManifests([]byte(strings.ReplaceAll(string(data), "{GATEWAY_CLASS_NAME}", class)))
	require.NoError(t, err)
	a, err := controlplane.NewApplier(cp.AdminConfig())
	require.NoError(t, err)
	// The CRDs were just created: their kinds come within seconds.
	applyCtx, cancel := context.WithTimeout(ctx, time.Minute)
	defer cancel()
	for _, o := range objs {
		for {
			err := a.Apply(applyCtx, o)
			if err == nil {
				break
			}
			require.NoError(t, applyCtx.Err(), "applying %s %s/%s: %v", o.GetKind(), o.GetNamespace(), o.GetName(), err)
			time.Sleep(200 * time.Millisecond)
		}
	}
	pods := map[string]int{}
	for _, o := range objs {
		if o.GetKind() == "Deployment" {
			replicas, found, err := unstructured.NestedInt64(o.Object, "spec", "replicas")
			require.NoError(t, err)
			if !found {
				replicas = 1
			}
			pods[o.GetNamespace()] += int(replicas)
		}
	}
	return pods
}
