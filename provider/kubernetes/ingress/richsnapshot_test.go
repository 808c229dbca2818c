package ingress

import (
	"slices"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/sliceway/sliceway/config/dynamic"
)

// richSnapshot exercises most of the translator: annotations, TLS, the
// default backend, sticky cookies, node ports, native LB, fenced servers,
// router key conflicts and broken objects.
func richSnapshot(t *testing.T) *memSnapshot {
	t.Helper()
	crt, key := selfSignedPEM(t)
	nodePortSvc := newService("apps", "np", svcPort("web", 80))
	nodePortSvc.Spec.Type = corev1.ServiceTypeNodePort
	nodePortSvc.Spec.Ports[0].NodePort = 30080
	nodePortSvc.Annotations = map[string]string{ann("service.nodeportlb"): "true"}

	stickySvc := newService("apps", "sticky", svcPort("http", 80), svcPort("https", 443))
	stickySvc.Annotations = map[string]string{
		ann("service.sticky.cookie.name"): "affinity",
		ann("service.passhostheader"):     "false",
	}
	nativeSvc := newService("apps", "native", svcPort("", 8080))
	nativeSvc.Annotations = map[string]string{ann("service.nativelb"): "true"}

	return newMemSnapshot(
		newClass("traefik", ControllerName, true),
		newClass("nginx", "k8s.io/ingress-nginx", false),
		newIngress("apps", "main", withCreated(100),
			withAnnotation(ann("router.entrypoints"), "web,websecure"),
			withAnnotation(ann("router.middlewares"), "apps-auth@kubernetescrd"),
			withAnnotation(ann("router.tls.domains.0.main"), "example.com"),
			withAnnotation(ann("router.tls.domains.0.sans"), "a.example.com,b.example.com"),
			withTLS("tls-good", "tls-missing", "tls-bad"),
			withDefaultBackend("sticky", 80),
			withPath("example.com", "/", "sticky", 0, "http"),
			withPath("example.com", "/secure", "sticky", 443, ""),
			withPath("*.example.com", "/np", "np", 80, ""),
			withPath("", "/native", "native", 8080, ""),
			withPath("example.com", "/missing", "nope", 80, ""),
		),
		// Same router key as apps/main's "example.com" "/" path: apps-main-example-com.
		newIngress("apps", "main-example.com", withCreated(200), withPath("", "/", "sticky", 80, "")),
		newIngress("apps", "late-default", withCreated(300), withDefaultBackend("native", 8080)),
		newIngress("apps", "bad-annotation", withCreated(50), withAnnotation(ann("router.priority"), "high"),
			withPath("bad.example.com", "/", "sticky", 80, "")),
		newIngress("other", "not-ours", withClassName("nginx"), withPath("nginx.example.com", "/", "x", 80, "")),
		stickySvc, nodePortSvc, nativeSvc,
		newSlice("apps", "sticky-a", "sticky", "http", 8080,
			endpoint("10.0.1.2", ready), endpoint("10.0.1.1", ready), endpoint("10.0.1.3", servingTerminating), endpoint("10.0.1.4", notReady)),
		newSlice("apps", "sticky-b", "sticky", "http", 8080, endpoint("10.0.1.1", servingTerminating), endpoint("10.0.1.5", ready)),
		newSlice("apps", "sticky-https", "sticky", "https", 8443, endpoint("10.0.1.1", ready)),
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
	res := translate(t, richSnapshot(t), nil)
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
