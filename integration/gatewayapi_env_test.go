package integration_test

import (
	"context"
	"crypto/tls"
	"crypto/x509"
	"encoding/json"
	"net/http"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"google.golang.org/grpc"
	"google.golang.org/grpc/credentials/insecure"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"sigs.k8s.io/gateway-api/conformance"
	pb "sigs.k8s.io/gateway-api/conformance/echo-basic/grpcechoserver"

	"github.com/sliceway/sliceway/config/dynamic"
	"github.com/sliceway/sliceway/integration/controlplane"
	"github.com/sliceway/sliceway/internal/pki"
)

// conformanceNamespaces are the namespaces of the Gateway API
// conformance suite's base manifests, whose pods it waits for.
var conformanceNamespaces = []string{"gateway-conformance-infra", "gateway-conformance-app-backend", "gateway-conformance-web-backend"}

// TestConformanceEnvironment builds what the Gateway API conformance suite
// runs on, but for the Gateway controller: the Gateway API CRDs (standard
// channel), the certificate Secrets the suite makes, and its base
// manifests (its namespaces, Gateways of class sliceway, and its
// backends), with every backend pod run by the pod runner in the test's
// own network namespace. Each replica of the suite's main backend answers
// at the address its EndpointSlice gives, as its pod, through sliceway's
// configuration; its h2c port takes HTTP/2 alone; the TLS backend answers
// over TLS with its Secret's certificate; the gRPC backend answers gRPC.
func TestConformanceEnvironment(t *testing.T) {
	if !inNetworkNamespace(t) {
		return
	}
	cp, _ := startPodCluster(t)
	installGatewayAPI(t, cp, standardChannel)

	ca := createConformanceSecrets(t, cp)
	pods := applyConformanceBase(t, cp, "sliceway")
	for _, ns := range conformanceNamespaces {
		_, err := cp.WaitForReadyPods(ctx, ns, "", pods[ns], 3*time.Minute)
		require.NoError(t, err, "the pods of %s", ns)
	}
	checkEchoBackends(t, cp, ca)

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

// createConformanceSecrets creates the namespaces of the base manifests
// and the certificate Secrets their backends mount, as the suite does
// before it applies them, signed by the CA it returns.
func createConformanceSecrets(t *testing.T, cp *controlplane.ControlPlane) *pki.CA {
	t.Helper()
	for _, ns := range conformanceNamespaces {
		require.NoError(t, cp.CreateNamespace(ctx, ns))
	}
	ca := newTestCA(t, "conformance")
	for _, s := range []struct{ ns, name string }{
		{"gateway-conformance-infra", "tls-checks-certificate"},
		{"gateway-conformance-infra", "tls-passthrough-checks-certificate"},
		{"gateway-conformance-app-backend", "tls-passthrough-checks-certificate"},
	} {
		cert, key := issue(t, ca, pki.ServerAuth, "abc.example.com", "abc.example.com")
		createTLSSecretWithCA(t, cp, s.ns, s.name, cert, key, ca.CertPEM())
	}
	return ca
}

// checkEchoBackends checks the echo servers of three kinds of the base
// manifests' backends, at their pods' addresses: the h2c port of
// infra-backend-v1, the TLS one of tls-backend, and the gRPC echo of
// grpc-infra-backend-v1.
func checkEchoBackends(t *testing.T, cp *controlplane.ControlPlane, ca *pki.CA) {
	t.Helper()
	const ns = "gateway-conformance-infra"
	pod := func(app string) corev1.Pod {
		list, err := cp.Client().CoreV1().Pods(ns).List(ctx, metav1.ListOptions{LabelSelector: "app=" + app})
		require.NoError(t, err)
		require.NotEmpty(t, list.Items, "pods of %s", app)
		return list.Items[0]
	}

	// h2c: HTTP/2 without TLS, and nothing else.
	p := pod("infra-backend-v1")
	h2c := new(http.Protocols)
	h2c.SetUnencryptedHTTP2(true)
	client := &http.Client{Timeout: 5 * time.Second, Transport: &http.Transport{Protocols: h2c}}
	resp, err := client.Get("http://" + p.Status.PodIP + ":3001/h2c")
	require.NoError(t, err)
	var reply controlplane.EchoReply
	require.NoError(t, json.NewDecoder(resp.Body).Decode(&reply))
	_ = resp.Body.Close()
	assert.Equal(t, "HTTP/2.0", reply.Protocol)
	assert.Equal(t, p.Name, reply.Pod)
	resp, err = (&http.Client{Timeout: 5 * time.Second}).Get("http://" + p.Status.PodIP + ":3001/h2c")
	require.NoError(t, err)
	_ = resp.Body.Close()
	assert.Equal(t, http.StatusBadRequest, resp.StatusCode, "HTTP/1.1 on the h2c port")

	// TLS, with the certificate of the Secret the pod mounts.
	p = pod("tls-backend")
	roots := x509.NewCertPool()
	require.True(t, roots.AppendCertsFromPEM(ca.CertPEM()))
	client = &http.Client{Timeout: 5 * time.Second, Transport: &http.Transport{TLSClientConfig: &tls.Config{RootCAs: roots, ServerName: "abc.example.com"}}}
	resp, err = client.Get("https://" + p.Status.PodIP + ":8443/tls")
	require.NoError(t, err)
	reply = controlplane.EchoReply{}
	require.NoError(t, json.NewDecoder(resp.Body).Decode(&reply))
	_ = resp.Body.Close()
	require.NotNil(t, reply.TLS)
	assert.Equal(t, "abc.example.com", reply.TLS.ServerName)
	assert.Equal(t, p.Name, reply.Pod)

	// gRPC, the suite's echo service.
	p = pod("grpc-infra-backend-v1")
	conn, err := grpc.NewClient(p.Status.PodIP+":3000", grpc.WithTransportCredentials(insecure.NewCredentials()))
	require.NoError(t, err)
	defer func() { _ = conn.Close() }()
	rctx, cancel := context.WithTimeout(ctx, 5*time.Second)
	defer cancel()
	out, err := pb.NewGrpcEchoClient(conn).EchoTwo(rctx, &pb.EchoRequest{})
	require.NoError(t, err)
	assert.Equal(t, p.Name, out.GetAssertions().GetContext().GetPod())
	assert.Equal(t, "/gateway_api_conformance.echo_basic.grpcecho.GrpcEcho/EchoTwo", out.GetAssertions().GetFullyQualifiedMethod())
}

// The Gateway API's release channels: standard, what most clusters
// install, and experimental, which adds fields and kinds (an HTTPRoute
// rule's retry among them).
const (
	standardChannel     = "standard"
	experimentalChannel = "experimental"
)

// installGatewayAPI applies the CRDs of the Gateway API's channel, from
// the module the integration suite requires.
func installGatewayAPI(t *testing.T, cp *controlplane.ControlPlane, channel string) {
	t.Helper()
	out, err := exec.Command("go", "list", "-m", "-f", "{{.Dir}}", "sigs.k8s.io/gateway-api").Output()
	require.NoError(t, err, "locating the sigs.k8s.io/gateway-api module")
	files, err := filepath.Glob(filepath.Join(strings.TrimSpace(string(out)), "config", "crd", channel, "gateway.networking.*.yaml"))
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
