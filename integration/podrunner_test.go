package integration_test

import (
	"encoding/json"
	"net/http"
	"net/url"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/sliceway/sliceway/config/dynamic"
	"github.com/sliceway/sliceway/integration/controlplane"
)

// TestPodRunner runs the pods of a Deployment in the test's own network
// namespace: the replica set controller makes them, the pod runner binds
// them, gives each a private address and an echo server and reports them
// ready, the EndpointSlice controller writes their addresses, and
// sliceway's configuration sends to servers that answer as those pods.
// Scaled down, the pod that goes stops answering and leaves the
// configuration.
func TestPodRunner(t *testing.T) {
	if !inNetworkNamespace(t) {
		return
	}
	cp, runner := startPodCluster(t)
	const ns = "echo"
	pods := createEchoApp(t, cp, ns)
	names := []string{pods[0].Name, pods[1].Name}
	for _, p := range pods {
		assert.Equal(t, "node-a", p.Spec.NodeName)
		assert.True(t, strings.HasPrefix(p.Status.PodIP, "10.244."), "pod %s has address %s", p.Name, p.Status.PodIP)
	}

	run := runProvider(t, newProvider(t, cp))
	echoServers := func(n int) func(*dynamic.Configuration) bool {
		return func(cfg *dynamic.Configuration) bool {
			got := servers(cfg, ns+"-echo-http")
			return len(got) == n && !slices.ContainsFunc(got, func(s string) bool { return strings.HasSuffix(s, " fenced") })
		}
	}
	cfg := run.waitFor(t, "the two pods' servers", time.Minute, echoServers(2))
	answered := map[string]bool{}
	for _, s := range servers(cfg, ns+"-echo-http") {
		reply := echo(t, s+"/hello?x=1", "echo.example.com")
		assert.Equal(t, ns, reply.Namespace)
		assert.Equal(t, "/hello?x=1", reply.Path)
		assert.Equal(t, "echo.example.com", reply.Host)
		assert.Equal(t, http.MethodGet, reply.Method)
		assert.Contains(t, names, reply.Pod)
		answered[reply.Pod] = true
	}
	require.Len(t, answered, 2, "each server answers as its own pod")

	// Each pod's log (the API's pods/log, which the runner serves as the
	// Node's kubelet) tells the requests its server echoed.
	for _, p := range pods {
		since := metav1.NewTime(time.Now().Add(-time.Minute))
		logs, err := cp.Client().CoreV1().Pods(ns).GetLogs(p.Name, &corev1.PodLogOptions{Container: "echo", SinceTime: &since}).DoRaw(ctx)
		require.NoError(t, err)
		assert.Contains(t, string(logs), "Echoing back request made to /hello?x=1 to client", "pod %s's log", p.Name)
	}

	// One replica: the pod that goes stops, and so does its server.
	scaleDeployment(t, cp, ns, "echo", 1)
	cfg = run.waitFor(t, "one pod's server", time.Minute, echoServers(1))
	left := echo(t, servers(cfg, ns+"-echo-http")[0]+"/", "echo.example.com").Pod
	for _, p := range pods {
		if p.Name != left {
			u, err := url.Parse("http://" + p.Status.PodIP + ":3000/")
			require.NoError(t, err)
			_, err = (&http.Client{Timeout: 2 * time.Second}).Get(u.String())
			require.Error(t, err, "pod %s's server after it was scaled away", p.Name)
			assert.False(t, runner.Address(ns, p.Name).IsValid())
		}
	}
}

// startPodCluster starts a control plane whose pods run (the deployment
// and replica set controllers, a PodRunner on node-a), with the shipped
// RBAC, Nodes node-a and node-b and sliceway's IngressClass: what the
// tests with pods share. Call it in a network namespace of the test's own
// (inNetworkNamespace).
func startPodCluster(t *testing.T) (*controlplane.ControlPlane, *controlplane.PodRunner) {
	t.Helper()
	cp := controlplane.StartForTest(t, launcher, pidDir, controlplane.PodControllers...)
	applyFile(t, cp, rbacManifest)
	createNodes(t, cp)
	createIngressClass(t, cp)
	runner, err := cp.RunPods(ctx, controlplane.PodRunnerOptions{Node: "node-a", Logf: t.Logf})
	require.NoError(t, err)
	t.Cleanup(runner.Stop)
	return cp, runner
}

// createEchoApp creates in namespace ns (new) Service echo, an Ingress
// of host echo.example.com to it, and its Deployment of two replicas, and
// returns the pods once they are ready.
func createEchoApp(t *testing.T, cp *controlplane.ControlPlane, ns string) []corev1.Pod {
	t.Helper()
	require.NoError(t, cp.CreateNamespace(ctx, ns))
	createService(t, cp, ns, "echo", "echo")
	createIngress(t, cp, ingressSpec{namespace: ns, name: "echo", host: "echo.example.com", service: "echo"})
	createEchoDeployment(t, cp, ns, 2)
	pods, err := cp.WaitForReadyPods(ctx, ns, "app=echo", 2, 2*time.Minute)
	require.NoError(t, err)
	return pods
}

// createEchoDeployment creates Deployment echo in ns: replicas pods
// labelled app=echo, each serving port http (3000).
func createEchoDeployment(t *testing.T, cp *controlplane.ControlPlane, ns string, replicas int32) {
	t.Helper()
	labels := map[string]string{"app": "echo"}
	dep := &appsv1.Deployment{
		ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: "echo"},
		Spec: appsv1.DeploymentSpec{
			Replicas: &replicas,
			Selector: &metav1.LabelSelector{MatchLabels: labels},
			Template: corev1.PodTemplateSpec{
				ObjectMeta: metav1.ObjectMeta{Labels: labels},
				Spec: corev1.PodSpec{
					Containers: []corev1.Container{{Name: "echo", Image: "registry.invalid/echo:1",
						Ports: []corev1.ContainerPort{{Name: "http", ContainerPort: 3000}}}},
					AutomountServiceAccountToken: new(false),
				},
			},
		},
	}
	_, err := cp.Client().AppsV1().Deployments(ns).Create(ctx, dep, metav1.CreateOptions{})
	require.NoError(t, err)
}

// scaleDeployment sets the replicas of Deployment ns/name.
func scaleDeployment(t *testing.T, cp *controlplane.ControlPlane, ns, name string, replicas int32) {
	t.Helper()
	scale, err := cp.Client().AppsV1().Deployments(ns).GetScale(ctx, name, metav1.GetOptions{})
	require.NoError(t, err)
	scale.Spec.Replicas = replicas
	_, err = cp.Client().AppsV1().Deployments(ns).UpdateScale(ctx, name, scale, metav1.UpdateOptions{})
	require.NoError(t, err)
}

// echo sends a GET to rawURL for host and decodes the echo server's reply.
func echo(t *testing.T, rawURL, host string) controlplane.EchoReply {
	t.Helper()
	req, err := http.NewRequest(http.MethodGet, rawURL, nil)
	require.NoError(t, err)
	req.Host = host
	resp, err := (&http.Client{Timeout: 5 * time.Second}).Do(req)
	require.NoError(t, err)
	defer func() { _ = resp.Body.Close() }()
	require.Equal(t, http.StatusOK, resp.StatusCode)
	var reply controlplane.EchoReply
	require.NoError(t, json.NewDecoder(resp.Body).Decode(&reply))
	return reply
}
