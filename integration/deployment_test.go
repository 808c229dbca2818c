package integration_test

import (
	"context"
	"crypto/tls"
	"crypto/x509"
	"encoding/json"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	corev1 "k8s.io/api/core/v1"
	netv1 "k8s.io/api/networking/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/labels"

	"github.com/sliceway/sliceway/config/dynamic"
	"github.com/sliceway/sliceway/config/static"
	"github.com/sliceway/sliceway/integration/controlplane"
	"github.com/sliceway/sliceway/internal/loopback"
	"github.com/sliceway/sliceway/internal/pki"
)

// docs/manifests/deployment.yaml, traefik.yaml and networkpolicy.yaml
// apply, and fit together: Traefik dials sliceway's Service at the port
// sliceway serves on, with the files of its Secret; the NetworkPolicy admits
// Traefik's pods to that port and no others. sliceway's container command
// line, run as the kubelet would run it (the sliceway binary, as
// ServiceAccount sliceway, POD_NAMESPACE set, its Secret's files where the
// volume would put them), serves the whole configuration over mutual TLS
// to a client holding what Traefik's flags name, and nothing of it to a
// client without a certificate, with one of another CA, or in plain HTTP;
// the readiness probe's /healthz answers without a client certificate.
func TestDeploymentManifest(t *testing.T) {
	cp := startControlPlane(t)
	applyFile(t, cp, rbacManifest)
	createNodes(t, cp)
	createIngressClass(t, cp)
	app := createWebApp(t, cp, "apps")
	for _, f := range []string{deploymentManifest, traefikManifest, networkPolicyManifest} {
		applyFile(t, cp, f)
	}

	// sliceway: its pod, its address, its port, its probe.
	dep := getDeployment(t, cp, "sliceway", "sliceway")
	pod := &dep.Spec.Template.Spec
	assert.Equal(t, "sliceway", pod.ServiceAccountName)
	require.Len(t, pod.Containers, 1)
	c := container(t, pod, "sliceway")
	require.NotEmpty(t, c.Args)
	assert.Equal(t, "serve", c.Args[0])
	var podNamespace bool
	for _, e := range c.Env {
		if e.Name == "POD_NAMESPACE" && e.ValueFrom != nil && e.ValueFrom.FieldRef != nil && e.ValueFrom.FieldRef.FieldPath == "metadata.namespace" {
			podNamespace = true
		}
	}
	assert.True(t, podNamespace, "POD_NAMESPACE is not set from metadata.namespace")
	address, ok := flagValue(t, c.Args, "serve.address")
	require.True(t, ok, "no --serve.address: the Deployment would listen on loopback, out of Traefik's reach")
	loopback, err := static.IsLoopbackAddress(address)
	require.NoError(t, err)
	require.False(t, loopback, "--serve.address=%s: Traefik in another pod cannot reach it", address)
	if v, ok := flagValue(t, c.Args, "serve.insecure"); ok {
		assert.Equal(t, "false", v, "--serve.insecure: /api/config without TLS or credentials beyond loopback")
	}
	listenHost, listenPort, err := net.SplitHostPort(address)
	require.NoError(t, err)
	port := containerPort(t, c, listenPort)
	require.NotNil(t, c.ReadinessProbe)
	probe := c.ReadinessProbe.HTTPGet
	require.NotNil(t, probe, "the readiness probe is not an HTTP GET")
	assert.Equal(t, "/healthz", probe.Path)
	assert.Equal(t, corev1.URISchemeHTTPS, probe.Scheme)
	assert.True(t, probe.Port.String() == port.Name || probe.Port.IntValue() == int(port.ContainerPort),
		"the readiness probe's port %s is not the one serve listens on (%s)", probe.Port.String(), address)

	// Its Service, and Traefik's endpoint: the Service's DNS name and port,
	// which reach serve's port.
	svc, err := cp.Client().CoreV1().Services("sliceway").Get(ctx, "sliceway", metav1.GetOptions{})
	require.NoError(t, err)
	sel := labels.SelectorFromSet(svc.Spec.Selector)
	assert.True(t, !sel.Empty() && sel.Matches(labels.Set(dep.Spec.Template.Labels)), "Service sliceway does not select sliceway's pods")
	tdep := getDeployment(t, cp, "traefik", "traefik")
	tpod := &tdep.Spec.Template.Spec
	tc := container(t, tpod, "traefik")
	endpoint, ok := flagValue(t, tc.Args, "providers.http.endpoint")
	require.True(t, ok, "Traefik has no --providers.http.endpoint")
	u, err := url.Parse(endpoint)
	require.NoError(t, err)
	assert.Equal(t, "https", u.Scheme)
	assert.Equal(t, "/api/config", u.Path)
	assert.Equal(t, svc.Name+"."+svc.Namespace+".svc", u.Hostname(), "Traefik does not dial Service sliceway")
	var servicePort *corev1.ServicePort
	for i, p := range svc.Spec.Ports {
		if strconv.Itoa(int(p.Port)) == u.Port() {
			servicePort = &svc.Spec.Ports[i]
		}
	}
	require.NotNil(t, servicePort, "Service sliceway has no port %s, which Traefik dials", u.Port())
	assert.True(t, servicePort.TargetPort.String() == port.Name || servicePort.TargetPort.IntValue() == int(port.ContainerPort),
		"Service port %d goes to %s, not to serve's port %s", servicePort.Port, servicePort.TargetPort.String(), listenPort)
	assert.False(t, tpod.AutomountServiceAccountToken == nil || *tpod.AutomountServiceAccountToken,
		"Traefik's pods get a ServiceAccount token they have no use for")

	// The Secrets, as README.md has them made: one CA signs sliceway's
	// server certificate, for the name Traefik dials (and 127.0.0.1, where
	// this test dials), and Traefik's client certificate.
	ca := newTestCA(t, "sliceway CA")
	serverCert, serverKey := issue(t, ca, pki.ServerAuth, u.Hostname(), u.Hostname(), "127.0.0.1")
	clientCert, clientKey := issue(t, ca, pki.ClientAuth, "traefik")
	createTLSSecretWithCA(t, cp, "sliceway", "sliceway-tls", serverCert, serverKey, ca.CertPEM())
	createTLSSecretWithCA(t, cp, "traefik", "sliceway-client", clientCert, clientKey, ca.CertPEM())
	mounts := mountSecrets(t, cp, "sliceway", pod, c)
	tmounts := mountSecrets(t, cp, "traefik", tpod, tc)

	bin := buildSliceway(t)

	// The container's arguments, with the port moved to a free one (the
	// host kept: every interface), the Secret's files where the test wrote
	// them, and the credentials a pod would find in its service-account
	// volume given explicitly.
	free := freeAddr(t)
	_, freePort, _ := net.SplitHostPort(free)
	listen := net.JoinHostPort(listenHost, freePort)
	dir := t.TempDir()
	tokenFile := filepath.Join(dir, "token")
	require.NoError(t, os.WriteFile(tokenFile, []byte(saToken(t, cp, "sliceway", "sliceway")), 0o600))
	var args []string
	for _, a := range rewriteMounts(t, mounts, c.Args) {
		if n, _, _ := strings.Cut(a, "="); strings.EqualFold(n, "--serve.address") {
			a = "--serve.address=" + listen
		}
		args = append(args, a)
	}
	for _, f := range []string{"serve.tls.cert", "serve.tls.key", "serve.tls.clientca"} {
		v, ok := flagValue(t, args, f)
		require.True(t, ok, "no --%s", f)
		require.FileExists(t, v, "--%s", f)
	}
	args = append(args,
		"--providers.kubernetesingress.endpoint="+cp.URL,
		"--providers.kubernetesingress.tokenfile="+tokenFile,
		"--providers.kubernetesingress.certauthfilepath="+cp.CAFile,
	)
	// Traefik: its endpoint's URL as it is, dialled here, with the files
	// its flags name, from its own Secret.
	local := "127.0.0.1:" + freePort
	traefik := traefikClient(t, tmounts, tc.Args, u.Host, local)

	logs := &syncBuffer{}
	cmd := exec.Command(bin, args...)
	cmd.Env = append(os.Environ(), "POD_NAMESPACE=sliceway")
	cmd.Stdout, cmd.Stderr = logs, logs
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true, Pdeathsig: syscall.SIGKILL}
	require.NoError(t, cmd.Start())
	exited := make(chan error, 1)
	go func() { exited <- cmd.Wait() }()
	t.Cleanup(func() {
		_ = syscall.Kill(-cmd.Process.Pid, syscall.SIGTERM)
		select {
		case err := <-exited:
			assert.NoError(t, err, "sliceway serve did not exit cleanly on SIGTERM")
		case <-time.After(15 * time.Second):
			_ = syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL)
			t.Error("sliceway serve did not exit within 15s of SIGTERM")
		}
		if t.Failed() {
			t.Logf("sliceway serve logs:\n%s", logs.String())
		}
	})

	// The kubelet: HTTPS without checking the certificate or presenting one.
	kubelet := &http.Client{Timeout: 5 * time.Second, Transport: &http.Transport{
		TLSClientConfig: &tls.Config{InsecureSkipVerify: true},
	}}
	var cfg dynamic.Configuration
	var body []byte
	eventually(t, "the configuration served with the apps servers", time.Minute, func() bool {
		select {
		case err := <-exited:
			t.Fatalf("sliceway serve exited: %v\n%s", err, logs.String())
		default:
		}
		if code, _ := get(kubelet, "https://"+local+probe.Path); code != http.StatusOK {
			return false
		}
		var code int
		code, body = get(traefik, endpoint)
		if code != http.StatusOK {
			return false
		}
		cfg = dynamic.Configuration{}
		return json.Unmarshal(body, &cfg) == nil && webServers("apps")(&cfg)
	})
	app.requireFullConfig(t, &cfg)
	// What the refusals below must not hand out.
	require.Contains(t, string(body), "PRIVATE KEY")

	caPool := x509.NewCertPool()
	require.True(t, caPool.AppendCertsFromPEM(ca.CertPEM()))
	other := newTestCA(t, "another CA")
	otherCert, otherKey := issue(t, other, pki.ClientAuth, "traefik")
	otherPair, err := tls.X509KeyPair(otherCert, otherKey)
	require.NoError(t, err)
	// Signed by sliceway's CA, but for servers: not a client certificate.
	serverPair, err := tls.X509KeyPair(serverCert, serverKey)
	require.NoError(t, err)
	for _, tc := range []struct {
		name   string
		client *http.Client
		url    string
		want   int
	}{
		{"no client certificate", clientWith(caPool, nil), "https://" + local + "/api/config", http.StatusUnauthorized},
		{"a client certificate of another CA", clientWith(caPool, &otherPair), "https://" + local + "/api/config", http.StatusForbidden},
		{"the server's certificate as a client's", clientWith(caPool, &serverPair), "https://" + local + "/api/config", http.StatusForbidden},
		{"plain HTTP", &http.Client{Timeout: 5 * time.Second}, "http://" + local + "/api/config", http.StatusBadRequest},
		{"/healthz without a client certificate", kubelet, "https://" + local + "/healthz", http.StatusOK},
		{"/metrics without a client certificate", clientWith(caPool, nil), "https://" + local + "/metrics", http.StatusOK},
	} {
		code, body := get(tc.client, tc.url)
		assert.Equal(t, tc.want, code, "%s: status", tc.name)
		assert.NotContains(t, string(body), "PRIVATE KEY", "%s: a private key handed out", tc.name)
	}
	assert.NotContains(t, logs.String(), "forbidden")
	assert.NotContains(t, logs.String(), "insecure")

	requireNetworkPolicyAdmitsTraefikOnly(t, cp, dep.Namespace, dep.Spec.Template.Labels, tdep.Namespace, tdep.Spec.Template.Labels, port)
}

// requireNetworkPolicyAdmitsTraefikOnly checks networkpolicy.yaml as the
// API server has it: it selects sliceway's pods, filters their ingress, and
// admits to serve's port, and to no other, the pods of Traefik's namespace
// with Traefik's labels, and no other pod.
func requireNetworkPolicyAdmitsTraefikOnly(t *testing.T, cp *controlplane.ControlPlane, ns string, podLabels map[string]string, proxyNS string, proxyLabels map[string]string, port corev1.ContainerPort) {
	t.Helper()
	nps, err := cp.Client().NetworkingV1().NetworkPolicies(ns).List(ctx, metav1.ListOptions{})
	require.NoError(t, err)
	require.Len(t, nps.Items, 1, "NetworkPolicies in %s", ns)
	np := nps.Items[0]
	sel, err := metav1.LabelSelectorAsSelector(&np.Spec.PodSelector)
	require.NoError(t, err)
	require.False(t, sel.Empty(), "the NetworkPolicy selects every pod of %s", ns)
	require.True(t, sel.Matches(labels.Set(podLabels)), "the NetworkPolicy does not select sliceway's pods")
	assert.Contains(t, np.Spec.PolicyTypes, netv1.PolicyTypeIngress)
	require.Len(t, np.Spec.Ingress, 1, "one ingress rule: Traefik to serve's port")
	rule := np.Spec.Ingress[0]
	require.Len(t, rule.Ports, 1, "the rule admits more than serve's port")
	p := rule.Ports[0]
	require.NotNil(t, p.Port, "the rule admits every port")
	assert.True(t, p.Port.String() == port.Name || p.Port.IntValue() == int(port.ContainerPort), "the rule admits port %s, not serve's %d", p.Port.String(), port.ContainerPort)
	assert.Nil(t, p.EndPort)
	assert.True(t, p.Protocol == nil || *p.Protocol == corev1.ProtocolTCP)
	require.NotEmpty(t, rule.From, "the rule admits every source")

	namespaceLabels := func(name string) labels.Set {
		n, err := cp.Client().CoreV1().Namespaces().Get(ctx, name, metav1.GetOptions{})
		require.NoError(t, err)
		return n.Labels
	}
	admits := func(podNS string, pod labels.Set) bool {
		for _, peer := range rule.From {
			if peer.IPBlock != nil {
				return true // an address range: any pod, as far as this check knows
			}
			nsOK := podNS == np.Namespace
			if peer.NamespaceSelector != nil {
				s, err := metav1.LabelSelectorAsSelector(peer.NamespaceSelector)
				require.NoError(t, err)
				nsOK = s.Matches(namespaceLabels(podNS))
			}
			podOK := true
			if peer.PodSelector != nil {
				s, err := metav1.LabelSelectorAsSelector(peer.PodSelector)
				require.NoError(t, err)
				podOK = s.Matches(pod)
			}
			if nsOK && podOK {
				return true
			}
		}
		return false
	}
	assert.True(t, admits(proxyNS, proxyLabels), "Traefik's pods (%s, %v) are not admitted", proxyNS, proxyLabels)
	for _, o := range []struct {
		namespace string
		labels    labels.Set
	}{
		{"apps", proxyLabels},                         // Traefik's labels, another namespace
		{proxyNS, labels.Set{"app": "debug"}},         // Traefik's namespace, another pod
		{ns, podLabels},                               // sliceway itself
		{ns, proxyLabels},                             // Traefik's labels in sliceway's namespace
		{"default", labels.Set{"run": "curl"}},        // anyone
		{"kube-system", labels.Set{"k8s-app": "dns"}}, // the cluster's own pods
	} {
		assert.False(t, admits(o.namespace, o.labels), "a pod of %s with %v is admitted", o.namespace, o.labels)
	}
}

// containerPort is the container's port for a listen port.
func containerPort(t *testing.T, c *corev1.Container, listenPort string) corev1.ContainerPort {
	t.Helper()
	for _, p := range c.Ports {
		if strconv.Itoa(int(p.ContainerPort)) == listenPort {
			return p
		}
	}
	require.Failf(t, "no container port", "container %s declares no port %s", c.Name, listenPort)
	return corev1.ContainerPort{}
}

// traefikClient is an HTTP client as Traefik's HTTP provider makes it from
// its flags --providers.http.tls.{ca,cert,key}, their files taken from the
// container's Secret volumes, which dials local for the endpoint's host.
func traefikClient(t *testing.T, mounts map[string]string, args []string, endpointHost, local string) *http.Client {
	t.Helper()
	file := func(name string) string {
		v, ok := flagValue(t, args, name)
		require.True(t, ok, "Traefik has no --%s", name)
		return inMounts(t, mounts, v)
	}
	caPEM, err := os.ReadFile(file("providers.http.tls.ca"))
	require.NoError(t, err)
	pool := x509.NewCertPool()
	require.True(t, pool.AppendCertsFromPEM(caPEM), "--providers.http.tls.ca holds no certificate")
	pair, err := tls.LoadX509KeyPair(file("providers.http.tls.cert"), file("providers.http.tls.key"))
	require.NoError(t, err)
	client := clientWith(pool, &pair)
	dialer := &net.Dialer{Timeout: 5 * time.Second}
	client.Transport.(*http.Transport).DialContext = func(ctx context.Context, network, addr string) (net.Conn, error) {
		if addr != endpointHost {
			return nil, fmt.Errorf("dialled %s, not the endpoint's %s", addr, endpointHost)
		}
		return dialer.DialContext(ctx, network, local)
	}
	return client
}

// clientWith is an HTTPS client that trusts roots and presents pair, if any.
func clientWith(roots *x509.CertPool, pair *tls.Certificate) *http.Client {
	conf := &tls.Config{RootCAs: roots, MinVersion: tls.VersionTLS12}
	if pair != nil {
		conf.Certificates = []tls.Certificate{*pair}
	}
	return &http.Client{Timeout: 5 * time.Second, Transport: &http.Transport{TLSClientConfig: conf, DisableKeepAlives: true}}
}

func get(client *http.Client, url string) (int, []byte) {
	resp, err := client.Get(url)
	if err != nil {
		return 0, nil
	}
	defer func() { _ = resp.Body.Close() }()
	body, _ := io.ReadAll(resp.Body)
	return resp.StatusCode, body
}

// buildSliceway builds the sliceway binary from this checkout's main
// module into a directory of t, and returns its path.
func buildSliceway(t *testing.T) string {
	t.Helper()
	bin := filepath.Join(t.TempDir(), "sliceway")
	build := exec.Command("go", "build", "-o", bin, "./cmd/sliceway")
	build.Dir = ".."
	build.Stderr = os.Stderr
	require.NoError(t, build.Run(), "building sliceway")
	return bin
}

// freeAddr is an address of 127.0.0.1, "127.0.0.1:port", whose port was
// free a moment ago.
func freeAddr(t *testing.T) string {
	t.Helper()
	addr, err := loopback.FreeAddress()
	require.NoError(t, err)
	return addr
}
