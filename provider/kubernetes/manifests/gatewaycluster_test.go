package manifests

import (
	"context"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/labels"
	"k8s.io/client-go/tools/cache"
	gatewayv1 "sigs.k8s.io/gateway-api/apis/v1"
	gatewayinformers "sigs.k8s.io/gateway-api/pkg/client/informers/externalversions"
)

func decodeGateway(t *testing.T, file, data string) []Object {
	t.Helper()
	objs, problems := Decode(file, []byte(data), WantedKinds(true))
	require.Empty(t, problemLines(problems))
	return objs
}

// TestClusterStoresGatewayKinds: the Gateway API objects go to the
// cluster's Gateway API clientset (GatewayClass cluster-scoped, the
// others in "default" when they name no namespace, older versions as
// v1), the others to its core clientset.
func TestClusterStoresGatewayKinds(t *testing.T) {
	c := NewCluster()
	res, problems := c.Apply(decodeGateway(t, "g.yaml", gatewayManifest))
	require.Empty(t, problemLines(problems))
	assert.Equal(t, ApplyResult{Added: 9}, res)
	ctx := context.Background()
	gw := c.GatewayClientset().GatewayV1()

	class, err := gw.GatewayClasses().Get(ctx, "sliceway", metav1.GetOptions{})
	require.NoError(t, err)
	assert.Empty(t, class.Namespace, "GatewayClass is cluster-scoped")
	assert.Equal(t, gatewayv1.GatewayController("sliceway.io/gateway-controller"), class.Spec.ControllerName)

	gateway, err := gw.Gateways("infra").Get(ctx, "edge", metav1.GetOptions{})
	require.NoError(t, err)
	assert.Equal(t, int32(1), gateway.Status.Listeners[0].AttachedRoutes)

	route, err := gw.HTTPRoutes("default").Get(ctx, "web", metav1.GetOptions{})
	require.NoError(t, err, "an HTTPRoute without namespace goes to default")
	assert.Equal(t, []gatewayv1.Hostname{"web.example"}, route.Spec.Hostnames)
	legacy, err := gw.HTTPRoutes("shop").Get(ctx, "legacy", metav1.GetOptions{})
	require.NoError(t, err, "a v1beta1 HTTPRoute is served as v1")
	assert.Equal(t, []gatewayv1.Hostname{"legacy.example"}, legacy.Spec.Hostnames)

	routes, err := gw.GRPCRoutes(metav1.NamespaceAll).List(ctx, metav1.ListOptions{})
	require.NoError(t, err)
	assert.Len(t, routes.Items, 2)
	grants, err := gw.ReferenceGrants("backends").List(ctx, metav1.ListOptions{})
	require.NoError(t, err)
	assert.Len(t, grants.Items, 2)

	_, err = c.Clientset().CoreV1().Services("default").Get(ctx, "web", metav1.GetOptions{})
	require.NoError(t, err, "the Service is in the core clientset")
}

// TestClusterAppliesGatewayEdits: an edit of the Gateway API manifests
// reaches informers of the cluster's Gateway API clientset as the same
// edit in a real cluster would: an update, a delete, nothing for an
// unchanged object.
func TestClusterAppliesGatewayEdits(t *testing.T) {
	c := NewCluster()
	_, problems := c.Apply(decodeGateway(t, "g.yaml", gatewayManifest))
	require.Empty(t, problemLines(problems))

	ctx, cancel := context.WithCancel(context.Background())
	factory := gatewayinformers.NewSharedInformerFactory(c.GatewayClientset(), 0)
	routes := factory.Gateway().V1().HTTPRoutes()
	grpcRoutes := factory.Gateway().V1().GRPCRoutes()
	var updates, deletes atomic.Int32
	_, err := routes.Informer().AddEventHandler(cache.ResourceEventHandlerFuncs{
		UpdateFunc: func(_, _ any) { updates.Add(1) },
	})
	require.NoError(t, err)
	_, err = grpcRoutes.Informer().AddEventHandler(cache.ResourceEventHandlerFuncs{
		DeleteFunc: func(any) { deletes.Add(1) },
	})
	require.NoError(t, err)
	factory.Start(ctx.Done())
	defer func() { cancel(); factory.Shutdown() }()
	require.True(t, cache.WaitForCacheSync(ctx.Done(), routes.Informer().HasSynced, grpcRoutes.Informer().HasSynced))

	edited := strings.Replace(gatewayManifest, `hostnames: ["web.example"]`, `hostnames: ["www.example"]`, 1)
	edited = strings.Replace(edited, "port: 80\n    protocol: HTTP", "port: 8080\n    protocol: HTTP", 1)
	// The v1alpha2 GRPCRoute, the last Gateway API document, goes.
	edited = edited[:strings.Index(edited, "apiVersion: gateway.networking.k8s.io/v1alpha2")] + svcDoc("web")
	res, problems := c.Apply(decodeGateway(t, "g.yaml", edited))
	require.Empty(t, problemLines(problems))
	assert.Equal(t, ApplyResult{Updated: 2, Deleted: 1}, res)
	gateway, err := c.GatewayClientset().GatewayV1().Gateways("infra").Get(ctx, "edge", metav1.GetOptions{})
	require.NoError(t, err)
	assert.Equal(t, gatewayv1.PortNumber(8080), gateway.Spec.Listeners[0].Port, "a Gateway is updated under its resource")

	require.Eventually(t, func() bool {
		route, err := routes.Lister().HTTPRoutes("default").Get("web")
		return err == nil && len(route.Spec.Hostnames) == 1 && route.Spec.Hostnames[0] == "www.example"
	}, 10*time.Second, 10*time.Millisecond, "the informer sees the edit")
	require.Eventually(t, func() bool {
		list, err := grpcRoutes.Lister().List(labels.Everything())
		return err == nil && len(list) == 1
	}, 10*time.Second, 10*time.Millisecond, "the informer sees the deletion")

	res, problems = c.Apply(decodeGateway(t, "g.yaml", edited))
	require.Empty(t, problemLines(problems))
	assert.False(t, res.Changed(), "the same objects again change nothing")
	// Handlers run on the informer's goroutine: read the counts once it
	// has had the time to deliver an event that should not come.
	time.Sleep(50 * time.Millisecond)
	assert.Equal(t, int32(1), updates.Load())
	assert.Equal(t, int32(1), deletes.Load())
}

// TestClusterGatewayDuplicates: a Gateway API object defined twice is an
// error naming both sources, as for any kind; GatewayClass, cluster-scoped,
// is told apart from a namespaced kind when built in Go (without TypeMeta).
func TestClusterGatewayDuplicates(t *testing.T) {
	route := "apiVersion: gateway.networking.k8s.io/v1\nkind: HTTPRoute\nmetadata:\n  name: web\n"
	objs := decodeGateway(t, "a.yaml", route+"---\n"+strings.Replace(route, "/v1\n", "/v1beta1\n", 1))
	objs = append(objs, Object{Object: &gatewayv1.GatewayClass{ObjectMeta: metav1.ObjectMeta{Name: "sliceway"}}, File: "go", Document: 1})
	c := NewCluster()
	_, problems := c.Apply(objs)
	require.Len(t, problems, 1, "%q", problemLines(problems))
	assert.Equal(t, "a.yaml: document 2: HTTPRoute default/web is defined again (first in a.yaml: document 1); this copy is skipped", problems[0].Error())
	class, err := c.GatewayClientset().GatewayV1().GatewayClasses().Get(context.Background(), "sliceway", metav1.GetOptions{})
	require.NoError(t, err)
	assert.Empty(t, class.Namespace)
}
