package ingress

import (
	"maps"
	"reflect"
	"testing"

	"github.com/stretchr/testify/require"
	netv1 "k8s.io/api/networking/v1"

	"github.com/sliceway/sliceway/config/dynamic"
)

func equalResults(t *testing.T, want, got *Result) bool {
	t.Helper()
	wy, err := dynamic.MarshalYAML(want.Configuration)
	require.NoError(t, err)
	gy, err := dynamic.MarshalYAML(got.Configuration)
	require.NoError(t, err)
	ok := true
	if string(wy) != string(gy) {
		t.Errorf("configuration:\nfull:\n%s\nincremental:\n%s", wy, gy)
		ok = false
	}
	texts := func(errs []*ObjectError) []string {
		var out []string
		for _, e := range errs {
			out = append(out, e.Error())
		}
		return out
	}
	if !reflect.DeepEqual(texts(want.Errors), texts(got.Errors)) {
		t.Errorf("errors:\nfull: %q\nincremental: %q", texts(want.Errors), texts(got.Errors))
		ok = false
	}
	sameOwner := func(a, b dynamic.HostOwner) bool {
		return a.Namespace == b.Namespace && a.Name == b.Name && a.Created.Equal(b.Created)
	}
	if !maps.EqualFunc(want.TLSHostOwners, got.TLSHostOwners, sameOwner) {
		t.Errorf("TLS host owners:\nfull: %v\nincremental: %v", want.TLSHostOwners, got.TLSHostOwners)
		ok = false
	}
	names := func(list []*netv1.Ingress) []string {
		var out []string
		for _, ing := range list {
			out = append(out, ing.Namespace+"/"+ing.Name)
		}
		return out
	}
	if !reflect.DeepEqual(names(want.Ingresses), names(got.Ingresses)) {
		t.Errorf("served Ingresses:\nfull: %v\nincremental: %v", names(want.Ingresses), names(got.Ingresses))
		ok = false
	}
	if want.NeedsNodes != got.NeedsNodes {
		t.Errorf("NeedsNodes: full %t, incremental %t", want.NeedsNodes, got.NeedsNodes)
		ok = false
	}
	return ok
}
