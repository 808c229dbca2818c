package k8s

import (
	"fmt"
	"testing"

	"github.com/stretchr/testify/assert"
	corev1 "k8s.io/api/core/v1"
	discoveryv1 "k8s.io/api/discovery/v1"
	netv1 "k8s.io/api/networking/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/client-go/tools/cache"
)

type notification struct {
	kind    string
	changed bool
}

func recordNotify() (*[]notification, Notify) {
	var got []notification
	return &got, func(kind string, changed bool) { got = append(got, notification{kind, changed}) }
}

func TestEventHandler(t *testing.T) {
	withRV := func(s *discoveryv1.EndpointSlice, rv string) *discoveryv1.EndpointSlice {
		s.ResourceVersion = rv
		return s
	}
	moved := func(rv string) *discoveryv1.EndpointSlice {
		s := withRV(testSlice(), rv)
		s.Endpoints[0].Addresses = []string{"10.0.0.9"}
		return s
	}
	annotated := func(rv string) *discoveryv1.EndpointSlice {
		s := withRV(testSlice(), rv)
		s.Annotations["endpoints.kubernetes.io/last-change-trigger-time"] = "later"
		return s
	}
	resync := testSlice()

	for _, tc := range []struct {
		name  string
		event func(cache.ResourceEventHandler)
		want  notification
	}{
		{"add", func(h cache.ResourceEventHandler) { h.OnAdd(testSlice(), false) }, notification{"EndpointSlice", true}},
		{"initial add", func(h cache.ResourceEventHandler) { h.OnAdd(testSlice(), true) }, notification{"EndpointSlice", true}},
		{"delete", func(h cache.ResourceEventHandler) { h.OnDelete(testSlice()) }, notification{"EndpointSlice", true}},
		{"delete of a tombstone", func(h cache.ResourceEventHandler) {
			h.OnDelete(cache.DeletedFinalStateUnknown{Key: "shop/web-abc12", Obj: testSlice()})
		}, notification{"EndpointSlice", true}},
		{"resync: the same object", func(h cache.ResourceEventHandler) { h.OnUpdate(resync, resync) }, notification{"EndpointSlice", false}},
		// The same resourceVersion is a resync: it is dropped without looking
		// further, so even objects Changed would report (a different
		// address, or even a different kind) give false.
		{"same resourceVersion, different content", func(h cache.ResourceEventHandler) {
			h.OnUpdate(withRV(testSlice(), "10"), moved("10"))
		}, notification{"EndpointSlice", false}},
		{"same resourceVersion, different kinds", func(h cache.ResourceEventHandler) {
			svc := testService()
			svc.ResourceVersion = "10"
			h.OnUpdate(withRV(testSlice(), "10"), svc)
		}, notification{"EndpointSlice", false}},
		// A different resourceVersion goes to Changed.
		{"new resourceVersion, real change", func(h cache.ResourceEventHandler) {
			h.OnUpdate(withRV(testSlice(), "10"), moved("11"))
		}, notification{"EndpointSlice", true}},
		{"new resourceVersion, ignored change", func(h cache.ResourceEventHandler) {
			h.OnUpdate(withRV(testSlice(), "10"), annotated("11"))
		}, notification{"EndpointSlice", false}},
		{"new resourceVersion, different kinds", func(h cache.ResourceEventHandler) {
			svc := testService()
			svc.ResourceVersion = "11"
			h.OnUpdate(withRV(testSlice(), "10"), svc)
		}, notification{"EndpointSlice", true}},
		// Without resourceVersions (objects not from an API server) there is
		// no resync to recognise: Changed decides.
		{"no resourceVersion, real change", func(h cache.ResourceEventHandler) {
			h.OnUpdate(withRV(testSlice(), ""), moved(""))
		}, notification{"EndpointSlice", true}},
		{"no resourceVersion, ignored change", func(h cache.ResourceEventHandler) {
			h.OnUpdate(withRV(testSlice(), ""), annotated(""))
		}, notification{"EndpointSlice", false}},
		{"objects without metadata", func(h cache.ResourceEventHandler) { h.OnUpdate("a", "a") }, notification{"EndpointSlice", true}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got, notify := recordNotify()
			var changes []string
			tc.event(testKeep.EventHandler("EndpointSlice", notify, func(kind string, old, new any) {
				changes = append(changes, fmt.Sprintf("%s old=%t new=%t", kind, old != nil, new != nil))
			}))
			assert.Equal(t, []notification{tc.want}, *got)
			// OnChange hears exactly the events that count, with their objects.
			if tc.want.changed {
				assert.Len(t, changes, 1)
			} else {
				assert.Empty(t, changes)
			}
		})
	}
}

// TestEventHandlerPassesItsKind checks that every kind's handler names its
// own kind, for metrics.
func TestEventHandlerPassesItsKind(t *testing.T) {
	objects := []struct {
		kind string
		obj  func() runtime.Object
		bump func(runtime.Object)
	}{
		{"EndpointSlice", func() runtime.Object { return testSlice() }, func(o runtime.Object) {
			o.(*discoveryv1.EndpointSlice).AddressType = discoveryv1.AddressTypeIPv6
		}},
		{"Service", func() runtime.Object { return testService() }, func(o runtime.Object) { o.(*corev1.Service).Spec.Ports[0].Port = 81 }},
		{"Ingress", func() runtime.Object { return testIngress() }, func(o runtime.Object) { o.(*netv1.Ingress).Spec.Rules[0].Host = "x" }},
		{"IngressClass", func() runtime.Object { return testIngressClass() }, func(o runtime.Object) {
			o.(*netv1.IngressClass).Spec.Controller = "x"
		}},
		{"Secret", func() runtime.Object { return testSecret() }, func(o runtime.Object) { o.(*corev1.Secret).Type = "x" }},
		{"Node", func() runtime.Object { return testNode() }, func(o runtime.Object) { o.(*corev1.Node).Labels[ZoneLabel] = "x" }},
	}
	for _, o := range objects {
		t.Run(o.kind, func(t *testing.T) {
			got, notify := recordNotify()
			var changes []string
			h := testKeep.EventHandler(o.kind, notify, func(kind string, old, new any) {
				changes = append(changes, fmt.Sprintf("%s old=%t new=%t", kind, old != nil, new != nil))
			})
			old := o.obj()
			filtered := o.obj()
			filtered.(metav1.Object).SetResourceVersion("1000")
			changed := o.obj()
			changed.(metav1.Object).SetResourceVersion("1001")
			o.bump(changed)
			h.OnAdd(old, false)
			h.OnUpdate(old, filtered)
			h.OnUpdate(filtered, changed)
			h.OnDelete(changed)
			assert.Equal(t, []notification{{o.kind, true}, {o.kind, false}, {o.kind, true}, {o.kind, true}}, *got)
			k := o.kind
			assert.Equal(t, []string{k + " old=false new=true", k + " old=true new=true", k + " old=true new=false"}, changes)
		})
	}
}
