package ingress

import (
	"context"
	"encoding/json"
	"maps"
	"reflect"
	"slices"
	"strconv"
	"sync/atomic"
	"testing"

	"github.com/stretchr/testify/require"
	corev1 "k8s.io/api/core/v1"
	discoveryv1 "k8s.io/api/discovery/v1"
	netv1 "k8s.io/api/networking/v1"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	k8sruntime "k8s.io/apimachinery/pkg/runtime"
	"k8s.io/client-go/kubernetes/fake"
	k8stesting "k8s.io/client-go/testing"
)

// newLiveFakeCluster serves the objects through a fake clientset that, like an
// API server, gives each created or updated object a new resourceVersion
// (the fake tracker alone keeps whatever the client sent).
func newLiveFakeCluster(objs map[string]k8sruntime.Object) *fake.Clientset {
	list := make([]k8sruntime.Object, 0, len(objs))
	for _, key := range slices.Sorted(maps.Keys(objs)) {
		list = append(list, objs[key])
	}
	cs := fake.NewClientset(list...)
	var rv atomic.Int64
	rv.Store(100)
	cs.PrependReactor("*", "*", func(action k8stesting.Action) (bool, k8sruntime.Object, error) {
		if pa, ok := action.(k8stesting.PatchAction); ok {
			// Apply the patch here, as the API server does, so that it
			// bumps the resourceVersion too.
			obj, err := cs.Tracker().Get(pa.GetResource(), pa.GetNamespace(), pa.GetName())
			if err != nil {
				return true, nil, err
			}
			original, err := json.Marshal(obj)
			if err != nil {
				return true, nil, err
			}
			patched, err := liveMergePatch(original, pa.GetPatch())
			if err != nil {
				return true, nil, err
			}
			// A fresh object: decoding into a copy would keep fields of the
			// old list elements that the patch replaced.
			updated := reflect.New(reflect.TypeOf(obj).Elem()).Interface().(k8sruntime.Object)
			if err := json.Unmarshal(patched, updated); err != nil {
				return true, nil, err
			}
			m, err := meta.Accessor(updated)
			if err != nil {
				return true, nil, err
			}
			m.SetResourceVersion(strconv.FormatInt(rv.Add(1), 10))
			return true, updated, cs.Tracker().Update(pa.GetResource(), updated, pa.GetNamespace())
		}
		if v := action.GetVerb(); v != "create" && v != "update" {
			return false, nil, nil
		}
		if a, ok := action.(interface{ GetObject() k8sruntime.Object }); ok {
			if m, err := meta.Accessor(a.GetObject()); err == nil {
				m.SetResourceVersion(strconv.FormatInt(rv.Add(1), 10))
			}
		}
		return false, nil, nil
	})
	return cs
}

// liveMergePatch applies a JSON merge patch (RFC 7386), as the API server
// does for types.MergePatchType: objects merge, everything else (lists
// included) is replaced, null deletes.
func liveMergePatch(original, patch []byte) ([]byte, error) {
	var doc, p any
	if err := json.Unmarshal(original, &doc); err != nil {
		return nil, err
	}
	if err := json.Unmarshal(patch, &p); err != nil {
		return nil, err
	}
	var merge func(target, patch any) any
	merge = func(target, patch any) any {
		pm, ok := patch.(map[string]any)
		if !ok {
			return patch
		}
		tm, ok := target.(map[string]any)
		if !ok {
			tm = map[string]any{}
		}
		for k, v := range pm {
			if v == nil {
				delete(tm, k)
				continue
			}
			tm[k] = merge(tm[k], v)
		}
		return tm
	}
	return json.Marshal(merge(doc, p))
}

// liveMutate gets an object, changes it and updates it, as a controller does.
func liveMutate[T k8sruntime.Object](t *testing.T, get func(context.Context, string, metav1.GetOptions) (T, error),
	update func(context.Context, T, metav1.UpdateOptions) (T, error), name string, change func(T),
) {
	t.Helper()
	obj, err := get(context.Background(), name, metav1.GetOptions{})
	require.NoError(t, err)
	change(obj)
	_, err = update(context.Background(), obj, metav1.UpdateOptions{})
	require.NoError(t, err)
}

func liveMutateSlice(t *testing.T, cs *fake.Clientset, name string, change func(*discoveryv1.EndpointSlice)) {
	t.Helper()
	c := cs.DiscoveryV1().EndpointSlices(liveNS)
	liveMutate(t, c.Get, c.Update, name, change)
}

func liveMutateService(t *testing.T, cs *fake.Clientset, name string, change func(*corev1.Service)) {
	t.Helper()
	c := cs.CoreV1().Services(liveNS)
	liveMutate(t, c.Get, c.Update, name, change)
}

func liveMutateIngress(t *testing.T, cs *fake.Clientset, name string, change func(*netv1.Ingress)) {
	t.Helper()
	c := cs.NetworkingV1().Ingresses(liveNS)
	liveMutate(t, c.Get, c.Update, name, change)
}

func liveMutateClass(t *testing.T, cs *fake.Clientset, name string, change func(*netv1.IngressClass)) {
	t.Helper()
	c := cs.NetworkingV1().IngressClasses()
	liveMutate(t, c.Get, c.Update, name, change)
}

func liveMutateSecret(t *testing.T, cs *fake.Clientset, name string, change func(*corev1.Secret)) {
	t.Helper()
	c := cs.CoreV1().Secrets(liveNS)
	liveMutate(t, c.Get, c.Update, name, change)
}

func liveMutateNode(t *testing.T, cs *fake.Clientset, name string, change func(*corev1.Node)) {
	t.Helper()
	c := cs.CoreV1().Nodes()
	liveMutate(t, c.Get, c.Update, name, change)
}

func liveSetAddress(addr string) func(*discoveryv1.EndpointSlice) {
	return func(s *discoveryv1.EndpointSlice) { s.Endpoints[0].Addresses = []string{addr} }
}
