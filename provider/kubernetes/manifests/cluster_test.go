package manifests

import (
	"context"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	corev1 "k8s.io/api/core/v1"
	discoveryv1 "k8s.io/api/discovery/v1"
	netv1 "k8s.io/api/networking/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/client-go/kubernetes"
)

const clusterManifest = `apiVersion: v1
kind: Service
metadata:
  name: web
spec:
  ports:
  - port: 80
---
apiVersion: v1
kind: Service
metadata:
  name: web
  namespace: apps
spec:
  ports:
  - port: 8080
---
apiVersion: networking.k8s.io/v1
kind: IngressClass
metadata:
  name: traefik
spec:
  controller: traefik.io/ingress-controller
---
apiVersion: v1
kind: Node
metadata:
  name: n1
status:
  addresses:
  - type: InternalIP
    address: 192.168.0.1
---
apiVersion: v1
kind: Namespace
metadata:
  name: apps
---
apiVersion: networking.k8s.io/v1
kind: Ingress
metadata:
  name: web
spec:
  ingressClassName: traefik
---
apiVersion: discovery.k8s.io/v1
kind: EndpointSlice
metadata:
  name: web-abc
  labels:
    kubernetes.io/service-name: web
addressType: IPv4
endpoints:
- addresses: ["10.0.0.1"]
---
apiVersion: v1
kind: Secret
metadata:
  name: tls
type: kubernetes.io/tls
stringData:
  tls.crt: crt
---
apiVersion: v1
kind: Secret
metadata:
  name: web
`

func decodeForCluster(t *testing.T, file, data string) []Object {
	t.Helper()
	objs, problems := Decode(file, []byte(data), IsUsedKind)
	require.Empty(t, problemLines(problems))
	return objs
}

func TestNewFakeCluster(t *testing.T) {
	objs := decodeForCluster(t, "c.yaml", clusterManifest)
	cs, problems := NewFakeCluster(objs)
	require.Empty(t, problemLines(problems))
	ctx := context.Background()

	svc, err := cs.CoreV1().Services("default").Get(ctx, "web", metav1.GetOptions{})
	require.NoError(t, err, "a Service without namespace goes to default")
	assert.Equal(t, int32(80), svc.Spec.Ports[0].Port)
	svc, err = cs.CoreV1().Services("apps").Get(ctx, "web", metav1.GetOptions{})
	require.NoError(t, err)
	assert.Equal(t, int32(8080), svc.Spec.Ports[0].Port)

	ic, err := cs.NetworkingV1().IngressClasses().Get(ctx, "traefik", metav1.GetOptions{})
	require.NoError(t, err)
	assert.Empty(t, ic.Namespace, "IngressClass is cluster-scoped")
	assert.Equal(t, "traefik.io/ingress-controller", ic.Spec.Controller)

	node, err := cs.CoreV1().Nodes().Get(ctx, "n1", metav1.GetOptions{})
	require.NoError(t, err)
	assert.Empty(t, node.Namespace, "Node is cluster-scoped")
	assert.Equal(t, "192.168.0.1", node.Status.Addresses[0].Address)

	ns, err := cs.CoreV1().Namespaces().Get(ctx, "apps", metav1.GetOptions{})
	require.NoError(t, err)
	assert.Empty(t, ns.Namespace)

	ing, err := cs.NetworkingV1().Ingresses("default").Get(ctx, "web", metav1.GetOptions{})
	require.NoError(t, err)
	require.NotNil(t, ing.Spec.IngressClassName)
	assert.Equal(t, "traefik", *ing.Spec.IngressClassName)

	slice, err := cs.DiscoveryV1().EndpointSlices("default").Get(ctx, "web-abc", metav1.GetOptions{})
	require.NoError(t, err)
	assert.Equal(t, "web", slice.Labels[discoveryv1.LabelServiceName])

	secret, err := cs.CoreV1().Secrets("default").Get(ctx, "tls", metav1.GetOptions{})
	require.NoError(t, err)
	assert.Equal(t, corev1.SecretTypeTLS, secret.Type)

	// Lists see exactly what was given.
	ics, err := cs.NetworkingV1().IngressClasses().List(ctx, metav1.ListOptions{})
	require.NoError(t, err)
	assert.Len(t, ics.Items, 1)
	svcs, err := cs.CoreV1().Services(metav1.NamespaceAll).List(ctx, metav1.ListOptions{})
	require.NoError(t, err)
	assert.Len(t, svcs.Items, 2)
	secrets, err := cs.CoreV1().Secrets("default").List(ctx, metav1.ListOptions{})
	require.NoError(t, err)
	assert.Len(t, secrets.Items, 2, "a Secret and a Service may share a name")
	_, err = cs.CoreV1().Services("other").Get(ctx, "web", metav1.GetOptions{})
	assert.Error(t, err)
}

func TestNewFakeClusterDuplicates(t *testing.T) {
	first := decodeForCluster(t, "a.yaml", "apiVersion: v1\nkind: Service\nmetadata:\n  name: web\nspec:\n  ports:\n  - port: 80\n")
	second := decodeForCluster(t, "b.yaml", svcDoc("other")+
		"---\napiVersion: v1\nkind: Service\nmetadata:\n  name: web\n  namespace: default\nspec:\n  ports:\n  - port: 81\n"+
		"---\napiVersion: networking.k8s.io/v1\nkind: IngressClass\nmetadata:\n  name: c\nspec:\n  controller: x\n"+
		"---\napiVersion: networking.k8s.io/v1\nkind: IngressClass\nmetadata:\n  name: c\nspec:\n  controller: z\n"+
		"---\napiVersion: v1\nkind: Service\nmetadata:\n  name: web\n  namespace: apps\n")

	cs, problems := NewFakeCluster(append(first, second...))
	require.Len(t, problems, 2, "%q", problemLines(problems))

	assert.Equal(t, "b.yaml", problems[0].File)
	assert.Equal(t, 2, problems[0].Document)
	assert.False(t, problems[0].Warning)
	assert.Equal(t, "b.yaml: document 2: Service default/web is defined again (first in a.yaml: document 1); this copy is skipped", problems[0].Error())
	assert.Equal(t, "b.yaml", problems[1].File)
	assert.Equal(t, 4, problems[1].Document)
	assert.Contains(t, problems[1].Error(), "IngressClass c is defined again (first in b.yaml: document 3)")

	ctx := context.Background()
	svc, err := cs.CoreV1().Services("default").Get(ctx, "web", metav1.GetOptions{})
	require.NoError(t, err)
	assert.Equal(t, int32(80), svc.Spec.Ports[0].Port, "the first copy is kept")
	ic, err := cs.NetworkingV1().IngressClasses().Get(ctx, "c", metav1.GetOptions{})
	require.NoError(t, err)
	assert.Equal(t, "x", ic.Spec.Controller, "the first copy is kept")
	_, err = cs.CoreV1().Services("apps").Get(ctx, "web", metav1.GetOptions{})
	assert.NoError(t, err, "same name in another namespace is not a duplicate")
	_, err = cs.CoreV1().Services("default").Get(ctx, "other", metav1.GetOptions{})
	assert.NoError(t, err)
}

// Objects built in Go carry no TypeMeta; the cluster must still tell the
// cluster-scoped kinds from the namespaced ones.
func TestNewFakeClusterTypedObjects(t *testing.T) {
	objs := []Object{
		{Object: &netv1.IngressClass{ObjectMeta: metav1.ObjectMeta{Name: "traefik"}}, File: "go", Document: 1},
		{Object: &corev1.Node{ObjectMeta: metav1.ObjectMeta{Name: "n1"}}, File: "go", Document: 2},
		{Object: &corev1.Service{ObjectMeta: metav1.ObjectMeta{Name: "web"}}, File: "go", Document: 3},
	}
	cs, problems := NewFakeCluster(objs)
	require.Empty(t, problemLines(problems))
	ctx := context.Background()
	assertGettable(t, cs, ctx)
}

func assertGettable(t *testing.T, cs kubernetes.Interface, ctx context.Context) {
	t.Helper()
	ic, err := cs.NetworkingV1().IngressClasses().Get(ctx, "traefik", metav1.GetOptions{})
	if assert.NoError(t, err) {
		assert.Empty(t, ic.Namespace)
	}
	node, err := cs.CoreV1().Nodes().Get(ctx, "n1", metav1.GetOptions{})
	if assert.NoError(t, err) {
		assert.Empty(t, node.Namespace)
	}
	_, err = cs.CoreV1().Services("default").Get(ctx, "web", metav1.GetOptions{})
	assert.NoError(t, err)
}

func TestIsUsedKind(t *testing.T) {
	used := []schema.GroupVersionKind{
		{Group: "networking.k8s.io", Version: "v1", Kind: "Ingress"},
		{Group: "networking.k8s.io", Version: "v1", Kind: "IngressClass"},
		{Group: "", Version: "v1", Kind: "Service"},
		{Group: "", Version: "v1", Kind: "Secret"},
		{Group: "", Version: "v1", Kind: "Node"},
		{Group: "", Version: "v1", Kind: "Namespace"},
		{Group: "", Version: "v1", Kind: "ConfigMap"}, // the ingress-nginx controller's
		{Group: "discovery.k8s.io", Version: "v1", Kind: "EndpointSlice"},
	}
	for _, gvk := range used {
		assert.True(t, IsUsedKind(gvk), "%v", gvk)
	}
	unused := []schema.GroupVersionKind{
		{},
		{Group: "apps", Version: "v1", Kind: "Deployment"},
		{Group: "", Version: "v1", Kind: "Endpoints"},
		{Group: "", Version: "v1", Kind: "Pod"},
		{Group: "networking.k8s.io", Version: "v1beta1", Kind: "Ingress"},
		{Group: "extensions", Version: "v1beta1", Kind: "Ingress"},
		{Group: "discovery.k8s.io", Version: "v1beta1", Kind: "EndpointSlice"},
		{Group: "", Version: "v1", Kind: "service"},
		{Group: "networking.k8s.io", Version: "v1", Kind: "Service"},
		{Group: "traefik.io", Version: "v1alpha1", Kind: "Middleware"},
	}
	for _, gvk := range unused {
		assert.False(t, IsUsedKind(gvk), "%v", gvk)
	}
}
