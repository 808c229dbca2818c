package integration_test

import (
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	corev1 "k8s.io/api/core/v1"
	discoveryv1 "k8s.io/api/discovery/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/sliceway/sliceway/config/dynamic"
)

// Test 4: Services without selector. Endpoints written by hand (as Knative
// writes them) reach the output through the EndpointSlice mirroring
// controller, although sliceway never reads Endpoints; EndpointSlices written
// by hand are read whoever manages them; an address in two slices is one
// server.
func TestSelectorlessServices(t *testing.T) {
	cp := startControlPlane(t)
	applyFile(t, cp, rbacManifest)
	createNodes(t, cp)
	createIngressClass(t, cp)
	const ns = "serverless"
	require.NoError(t, cp.CreateNamespace(ctx, ns))

	// Endpoints for a Service without selector, as Knative's activator
	// bypass writes them.
	createService(t, cp, ns, "legacy", "")
	createIngress(t, cp, ingressSpec{namespace: ns, name: "legacy", host: "legacy.example.com", service: "legacy"})
	//nolint:staticcheck // SA1019: the deprecated Endpoints, written by hand, are what this test is about.
	endpoints := &corev1.Endpoints{
		ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: "legacy"},
		Subsets: []corev1.EndpointSubset{{
			Addresses:         []corev1.EndpointAddress{{IP: "10.0.5.2"}, {IP: "10.0.5.1"}},
			NotReadyAddresses: []corev1.EndpointAddress{{IP: "10.0.5.3"}},
			Ports:             []corev1.EndpointPort{{Name: "http", Port: 8080, Protocol: corev1.ProtocolTCP}},
		}},
	}
	endpoints, err := cp.Client().CoreV1().Endpoints(ns).Create(ctx, endpoints, metav1.CreateOptions{})
	require.NoError(t, err)

	// EndpointSlices written by hand, for another Service without selector;
	// 10.0.6.1 is in both.
	createService(t, cp, ns, "manual", "")
	createIngress(t, cp, ingressSpec{namespace: ns, name: "manual", host: "manual.example.com", service: "manual"})
	for _, s := range []struct {
		name  string
		addrs []string
	}{
		{"manual-1", []string{"10.0.6.1"}},
		{"manual-2", []string{"10.0.6.2", "10.0.6.1"}},
	} {
		slice := &discoveryv1.EndpointSlice{
			ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: s.name, Labels: map[string]string{
				discoveryv1.LabelServiceName: "manual",
				discoveryv1.LabelManagedBy:   "hand-written.example.com",
			}},
			AddressType: discoveryv1.AddressTypeIPv4,
			Ports:       []discoveryv1.EndpointPort{{Name: new("http"), Port: new(int32(8080)), Protocol: new(corev1.ProtocolTCP)}},
		}
		for _, a := range s.addrs {
			slice.Endpoints = append(slice.Endpoints, discoveryv1.Endpoint{
				Addresses:  []string{a},
				Conditions: discoveryv1.EndpointConditions{Ready: new(true)},
			})
		}
		_, err := cp.Client().DiscoveryV1().EndpointSlices(ns).Create(ctx, slice, metav1.CreateOptions{})
		require.NoError(t, err)
	}

	r := runProvider(t, newProvider(t, cp))
	cfg := r.waitFor(t, "the mirrored and hand-written servers", time.Minute, func(c *dynamic.Configuration) bool {
		return hasServers("serverless-legacy-http", "http://10.0.5.1:8080", "http://10.0.5.2:8080")(c) &&
			hasServers("serverless-manual-http", "http://10.0.6.1:8080", "http://10.0.6.2:8080")(c)
	})
	assert.Equal(t, "serverless-legacy-http", cfg.HTTP.Routers["serverless-legacy-legacy-example-com"].Service)
	assert.Equal(t, "serverless-manual-http", cfg.HTTP.Routers["serverless-manual-manual-example-com"].Service)

	// The mirrored slice is the mirroring controller's.
	list, err := cp.Client().DiscoveryV1().EndpointSlices(ns).List(ctx, metav1.ListOptions{LabelSelector: "kubernetes.io/service-name=legacy"})
	require.NoError(t, err)
	require.Len(t, list.Items, 1)
	assert.Equal(t, "endpointslicemirroring-controller.k8s.io", list.Items[0].Labels[discoveryv1.LabelManagedBy])

	t.Log("Endpoints updated: 10.0.5.3 ready, 10.0.5.2 gone")
	endpoints.Subsets[0].Addresses = []corev1.EndpointAddress{{IP: "10.0.5.1"}, {IP: "10.0.5.3"}}
	endpoints.Subsets[0].NotReadyAddresses = nil
	_, err = cp.Client().CoreV1().Endpoints(ns).Update(ctx, endpoints, metav1.UpdateOptions{})
	require.NoError(t, err)
	r.waitFor(t, "the mirrored update", time.Minute, hasServers("serverless-legacy-http", "http://10.0.5.1:8080", "http://10.0.5.3:8080"))

	t.Log("hand-written slice manual-1 deleted: 10.0.6.1 stays, from manual-2")
	require.NoError(t, cp.Client().DiscoveryV1().EndpointSlices(ns).Delete(ctx, "manual-1", metav1.DeleteOptions{}))
	time.Sleep(2 * time.Second)
	assert.Equal(t, []string{"http://10.0.6.1:8080", "http://10.0.6.2:8080"}, servers(r.latest(), "serverless-manual-http"))

	t.Log("manual-2 says 10.0.6.1 is terminating: it is fenced beside the ready 10.0.6.2")
	slice, err := cp.Client().DiscoveryV1().EndpointSlices(ns).Get(ctx, "manual-2", metav1.GetOptions{})
	require.NoError(t, err)
	slice.Endpoints[1].Conditions = discoveryv1.EndpointConditions{Ready: new(false), Serving: new(true), Terminating: new(true)}
	_, err = cp.Client().DiscoveryV1().EndpointSlices(ns).Update(ctx, slice, metav1.UpdateOptions{})
	require.NoError(t, err)
	r.waitFor(t, "10.0.6.1 fenced", time.Minute, hasServers("serverless-manual-http", "http://10.0.6.1:8080 fenced", "http://10.0.6.2:8080"))

	t.Log("Endpoints deleted: the mirrored slice goes, and the service with it")
	require.NoError(t, cp.Client().CoreV1().Endpoints(ns).Delete(ctx, "legacy", metav1.DeleteOptions{}))
	r.waitFor(t, "no legacy service", time.Minute, hasServers("serverless-legacy-http"))
}
