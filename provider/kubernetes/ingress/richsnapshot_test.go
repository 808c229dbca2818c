package ingress

import (
	"slices"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/sliceway/sliceway/config/dynamic"
	"github.com/sliceway/sliceway/provider/kubernetes/internal/testobjects"
)

// richSnapshot exercises most of the translator: annotations, TLS, the
// default backend, sticky cookies, node ports, native LB, fenced servers,
// router key conflicts and broken objects.
func richSnapshot(t *testing.T) *testobjects.Snapshot {
	t.Helper()
	crt, key := testobjects.SelfSignedPEM(t)
	nodePortSvc := testobjects.NewService("apps", "np", testobjects.ServicePort("web", 80))
	nodePortSvc.Spec.Type = corev1.ServiceTypeNodePort
	nodePortSvc.Spec.Ports[0].NodePort = 30080
	nodePortSvc.Annotations = map[string]string{testobjects.Annotation("service.nodeportlb"): "true"}

	stickySvc := testobjects.NewService("apps", "sticky", testobjects.ServicePort("http", 80), testobjects.ServicePort("https", 443))
	stickySvc.Annotations = map[string]string{
		testobjects.Annotation("service.sticky.cookie.name"): "affinity",
		testobjects.Annotation("service.passhostheader"):     "false",
	}
	nativeSvc := testobjects.NewService("apps", "native", testobjects.ServicePort("", 8080))
	nativeSvc.Annotations = map[string]string{testobjects.Annotation("service.nativelb"): "true"}

	return testobjects.NewSnapshot(
		testobjects.NewClass("traefik", ControllerName, true),
		testobjects.NewClass("nginx", "k8s.io/ingress-nginx", false),
		testobjects.NewIngress("apps", "main", testobjects.WithCreated(100),
			testobjects.WithAnnotation(testobjects.Annotation("router.entrypoints"), "web,websecure"),
			testobjects.WithAnnotation(testobjects.Annotation("router.middlewares"), "apps-auth@kubernetescrd"),
			testobjects.WithAnnotation(testobjects.Annotation("router.tls.domains.0.main"), "example.com"),
			testobjects.WithAnnotation(testobjects.Annotation("router.tls.domains.0.sans"), "a.example.com,b.example.com"),
			testobjects.WithTLS("tls-good", "tls-missing", "tls-bad"),
			testobjects.WithDefaultBackend("sticky", 80),
			testobjects.WithPath("example.com", "/", "sticky", 0, "http"),
			testobjects.WithPath("example.com", "/secure", "sticky", 443, ""),
			testobjects.WithPath("*.example.com", "/np", "np", 80, ""),
			testobjects.WithPath("", "/native", "native", 8080, ""),
			testobjects.WithPath("example.com", "/missing", "nope", 80, ""),
		),
		// Same router key as apps/main's "example.com" "/" path: apps-main-example-com.
		testobjects.NewIngress("apps", "main-example.com", testobjects.WithCreated(200), testobjects.WithPath("", "/", "sticky", 80, "")),
		testobjects.NewIngress("apps", "late-default", testobjects.WithCreated(300), testobjects.WithDefaultBackend("native", 8080)),
		testobjects.NewIngress("apps", "bad-annotation", testobjects.WithCreated(50), testobjects.WithAnnotation(testobjects.Annotation("router.priority"), "high"),
			testobjects.WithPath("bad.example.com", "/", "sticky", 80, "")),
		testobjects.NewIngress("other", "not-ours", testobjects.WithClassName("nginx"), testobjects.WithPath("nginx.example.com", "/", "x", 80, "")),
		stickySvc, nodePortSvc, nativeSvc,
		testobjects.NewSlice("apps", "sticky-a", "sticky", "http", 8080,
			testobjects.Endpoint("10.0.1.2", testobjects.Ready), testobjects.Endpoint("10.0.1.1", testobjects.Ready), testobjects.Endpoint("10.0.1.3", testobjects.ServingTerminating), testobjects.Endpoint("10.0.1.4", testobjects.NotReady)),
		testobjects.NewSlice("apps", "sticky-b", "sticky", "http", 8080, testobjects.Endpoint("10.0.1.1", testobjects.ServingTerminating), testobjects.Endpoint("10.0.1.5", testobjects.Ready)),
		testobjects.NewSlice("apps", "sticky-https", "sticky", "https", 8443, testobjects.Endpoint("10.0.1.1", testobjects.Ready)),
		&corev1.Node{ObjectMeta: metav1.ObjectMeta{Name: "n2"}, Status: corev1.NodeStatus{Addresses: []corev1.NodeAddress{
			{Type: corev1.NodeInternalIP, Address: "192.168.0.2"}, {Type: corev1.NodeHostName, Address: "n2"}}}},
		&corev1.Node{ObjectMeta: metav1.ObjectMeta{Name: "n1"}, Status: corev1.NodeStatus{Addresses: []corev1.NodeAddress{
			{Type: corev1.NodeInternalIP, Address: "192.168.0.1"}}}},
		&corev1.Secret{ObjectMeta: metav1.ObjectMeta{Namespace: "apps", Name: "tls-good"}, Type: corev1.SecretTypeTLS,
			Data: map[string][]byte{corev1.TLSCertKey: crt, corev1.TLSPrivateKeyKey: key}},
		&corev1.Secret{ObjectMeta: metav1.ObjectMeta{Namespace: "apps", Name: "tls-bad"}, Type: corev1.SecretTypeTLS,
			Data: map[string][]byte{corev1.TLSCertKey: []byte("not a certificate"), corev1.TLSPrivateKeyKey: key}},
	)
}

func TestTranslateRichSnapshotSanity(t *testing.T) {
	// The other tests on richSnapshot are only meaningful if it actually
	// produces routers, services, certificates and errors.
	res := translateOnce(t, richSnapshot(t), nil)
	conf := res.Configuration
	var routers []string
	for k := range conf.HTTP.Routers {
		routers = append(routers, k)
	}
	slices.Sort(routers)
	want := []string{
		"apps-main-example-com-" + sha256Hex(`PathPrefix("/")`)[:20],
		"apps-main-example-com-" + sha256Hex(`Host("example.com") && PathPrefix("/")`)[:20],
		"apps-main-example-com-np",
		"apps-main-example-com-secure",
		"apps-main-native",
		DefaultRouterName,
	}
	slices.Sort(want)
	assert.Equal(t, want, routers)
	assert.Equal(t, []dynamic.Server{{URL: "http://192.168.0.1:30080"}, {URL: "http://192.168.0.2:30080"}},
		conf.HTTP.Services["apps-np-80"].LoadBalancer.Servers)
	assert.Equal(t, []dynamic.Server{{URL: "http://10.96.0.10:8080"}}, conf.HTTP.Services["apps-native-8080"].LoadBalancer.Servers)
	assert.Equal(t, []dynamic.Server{{URL: "https://10.0.1.1:8443"}}, conf.HTTP.Services["apps-sticky-443"].LoadBalancer.Servers)
	require.NotNil(t, conf.TLS)
	assert.Len(t, conf.TLS.Certificates, 1)
	assert.Len(t, res.Errors, 5, "%v", errorStrings(res.Errors))
}
