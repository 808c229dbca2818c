package k8s

import (
	"math/rand/v2"
	"reflect"
	"slices"
	"testing"

	"github.com/stretchr/testify/require"
	corev1 "k8s.io/api/core/v1"
	discoveryv1 "k8s.io/api/discovery/v1"
	"k8s.io/apimachinery/pkg/api/equality"

	"github.com/sliceway/sliceway/internal/clustergen"
)

// BenchmarkChangedNoop measures the change filter on the update it drops
// most: an EndpointSlice of 20 endpoints whose only change is an annotation
// and the resourceVersion (the output cannot change).
func BenchmarkChangedNoop(b *testing.B) {
	old := clustergen.Slice(1, 0, 0, 20)
	old.ResourceVersion = "10"
	updated := old.DeepCopy()
	updated.ResourceVersion = "11"
	updated.Annotations = map[string]string{"endpoints.kubernetes.io/last-change-trigger-time": "later"}
	h := testKeep.EventHandler("EndpointSlice", func(string, bool) {}, func(string, any, any) { b.Fatal("counted") })
	b.ReportAllocs()
	for b.Loop() {
		h.OnUpdate(old, updated)
	}
}

// BenchmarkChangedEndpoint measures the filter on an update that counts:
// one endpoint's readiness flips.
func BenchmarkChangedEndpoint(b *testing.B) {
	old := clustergen.Slice(1, 0, 0, 20)
	updated := old.DeepCopy()
	ready := false
	updated.Endpoints[0].Conditions.Ready = &ready // ready before
	var changed bool
	b.ReportAllocs()
	for b.Loop() {
		changed = testKeep.Changed(old, updated)
	}
	if !changed {
		b.Fatal("not counted")
	}
}

// TestSliceEqualityCoversEveryField fails when the EndpointSlice API types
// gain a field: portsEqual and endpointsEqual compare fields by name and
// must then compare the new one too.
func TestSliceEqualityCoversEveryField(t *testing.T) {
	known := map[reflect.Type][]string{
		reflect.TypeFor[discoveryv1.Endpoint]():           {"Addresses", "Conditions", "Hostname", "TargetRef", "DeprecatedTopology", "NodeName", "Zone", "Hints"},
		reflect.TypeFor[discoveryv1.EndpointConditions](): {"Ready", "Serving", "Terminating"},
		reflect.TypeFor[discoveryv1.EndpointHints]():      {"ForZones", "ForNodes"},
		reflect.TypeFor[discoveryv1.EndpointPort]():       {"Name", "Protocol", "Port", "AppProtocol"},
		reflect.TypeFor[discoveryv1.ForZone]():            {"Name"},
		reflect.TypeFor[discoveryv1.ForNode]():            {"Name"},
	}
	for typ, fields := range known {
		var got []string
		for f := range typ.Fields() {
			got = append(got, f.Name)
		}
		if !slices.Equal(got, fields) {
			t.Errorf("%s has fields %v; portsEqual and endpointsEqual compare %v", typ, got, fields)
		}
	}
	// ObjectReference is compared with ==: it must stay comparable.
	if !reflect.TypeFor[corev1.ObjectReference]().Comparable() {
		t.Error("corev1.ObjectReference is no longer comparable")
	}
}

// TestSliceEqualityMatchesSemanticDeepEqual compares the written-out
// equality with equality.Semantic.DeepEqual on random variations of a
// slice: nil and empty lists and maps, nil and set pointers, one field
// changed at a time.
func TestSliceEqualityMatchesSemanticDeepEqual(t *testing.T) {
	rnd := rand.New(rand.NewPCG(1, 2))
	str := func() *string {
		if rnd.IntN(3) == 0 {
			return nil
		}
		return new([]string{"a", "b"}[rnd.IntN(2)])
	}
	boolp := func() *bool {
		if rnd.IntN(3) == 0 {
			return nil
		}
		return new(rnd.IntN(2) == 0)
	}
	endpoint := func() discoveryv1.Endpoint {
		ep := discoveryv1.Endpoint{
			Conditions: discoveryv1.EndpointConditions{Ready: boolp(), Serving: boolp(), Terminating: boolp()},
			Hostname:   str(), NodeName: str(), Zone: str(),
		}
		switch rnd.IntN(3) {
		case 0:
			ep.Addresses = []string{"10.0.0." + []string{"1", "2"}[rnd.IntN(2)]}
		case 1:
			ep.Addresses = []string{}
		}
		if rnd.IntN(2) == 0 {
			ep.TargetRef = &corev1.ObjectReference{Kind: "Pod", Name: []string{"a", "b"}[rnd.IntN(2)]}
		}
		switch rnd.IntN(3) {
		case 0:
			ep.DeprecatedTopology = map[string]string{"k": []string{"a", "b"}[rnd.IntN(2)]}
		case 1:
			ep.DeprecatedTopology = map[string]string{}
		}
		switch rnd.IntN(4) {
		case 0:
			ep.Hints = &discoveryv1.EndpointHints{}
		case 1:
			ep.Hints = &discoveryv1.EndpointHints{ForZones: []discoveryv1.ForZone{{Name: []string{"a", "b"}[rnd.IntN(2)]}}}
		case 2:
			ep.Hints = &discoveryv1.EndpointHints{ForNodes: []discoveryv1.ForNode{}}
		}
		return ep
	}
	port := func() discoveryv1.EndpointPort {
		return discoveryv1.EndpointPort{Name: str(), AppProtocol: str(), Port: []*int32{nil, new(int32(80)), new(int32(81))}[rnd.IntN(3)],
			Protocol: []*corev1.Protocol{nil, new(corev1.ProtocolTCP), new(corev1.ProtocolUDP)}[rnd.IntN(3)]}
	}
	list := func() []discoveryv1.Endpoint {
		switch n := rnd.IntN(4); n {
		case 0:
			return nil
		default:
			out := make([]discoveryv1.Endpoint, n-1)
			for i := range out {
				out[i] = endpoint()
			}
			return out
		}
	}
	same, differ := 0, 0
	for range 200000 {
		a, b := list(), list()
		if rnd.IntN(2) == 0 && a != nil {
			b = make([]discoveryv1.Endpoint, len(a))
			for i := range a {
				a[i].DeepCopyInto(&b[i])
			}
		}
		want := equality.Semantic.DeepEqual(a, b)
		if got := endpointsEqual(a, b); got != want {
			t.Fatalf("endpointsEqual = %t, Semantic.DeepEqual = %t for\n%#v\n%#v", got, want, a, b)
		}
		if want {
			same++
		} else {
			differ++
		}
		pa, pb := []discoveryv1.EndpointPort{port()}, []discoveryv1.EndpointPort{port()}
		if got, want := portsEqual(pa, pb), equality.Semantic.DeepEqual(pa, pb); got != want {
			t.Fatalf("portsEqual = %t, Semantic.DeepEqual = %t for\n%#v\n%#v", got, want, pa, pb)
		}
	}
	t.Logf("%d equal and %d different pairs", same, differ)
	require.Positive(t, same)
}
