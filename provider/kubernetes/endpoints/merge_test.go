package endpoints

import (
	"testing"

	"github.com/stretchr/testify/require"
	discoveryv1 "k8s.io/api/discovery/v1"
)

// TestMergeBestCopy: of the copies of one address, the best class wins,
// then the first slice by name, then the first endpoint; with
// publishNotReady every copy is ready, so the first endpoint's wins
// whatever the classes. The hints of the copy that wins are what topology
// reads, which makes the winner visible.
func TestMergeBestCopy(t *testing.T) {
	// 10.0.0.1 twice in one slice: first not ready (zone z1), then ready (z2).
	one := v4slice("a",
		hinted(ep(condNotReady, "10.0.0.1"), nil, []string{"z1"}),
		zoned("10.0.0.1", "z2"),
		zoned("10.0.0.2", "z1"))
	// 10.0.0.1 ready in two slices: "b" (z1) listed before "a" (z2).
	two := []*discoveryv1.EndpointSlice{
		v4slice("b", zoned("10.0.0.1", "z1"), zoned("10.0.0.2", "z2")),
		v4slice("a", zoned("10.0.0.1", "z2")),
	}
	for _, tc := range []struct {
		name  string
		list  []*discoveryv1.EndpointSlice
		opts  Options
		want  []Backend
		cause string
	}{
		{"best class", []*discoveryv1.EndpointSlice{one}, Options{Zone: "z1"},
			[]Backend{normal("10.0.0.2", 8080)}, "the ready copy (z2) of 10.0.0.1 wins: narrowed to z1, 10.0.0.2"},
		{"best class, other zone", []*discoveryv1.EndpointSlice{one}, Options{Zone: "z2"},
			[]Backend{normal("10.0.0.1", 8080)}, "the ready copy (z2) of 10.0.0.1 wins: narrowed to it"},
		{"publishNotReady: first endpoint", []*discoveryv1.EndpointSlice{one}, Options{Zone: "z1", PublishNotReady: true},
			[]Backend{normal("10.0.0.1", 8080), normal("10.0.0.2", 8080)}, "the first copy (z1) of 10.0.0.1 wins: both in z1"},
		{"publishNotReady: first endpoint, other zone", []*discoveryv1.EndpointSlice{one}, Options{Zone: "z2", PublishNotReady: true},
			[]Backend{normal("10.0.0.1", 8080), normal("10.0.0.2", 8080)}, "the first copy (z1) of 10.0.0.1 wins: none in z2, no narrowing"},
		{"first slice by name", two, Options{Zone: "z2"},
			[]Backend{normal("10.0.0.1", 8080), normal("10.0.0.2", 8080)}, `the copy of slice "a" (z2) wins: both in z2`},
		{"first slice by name, other zone", two, Options{Zone: "z1"},
			[]Backend{normal("10.0.0.1", 8080), normal("10.0.0.2", 8080)}, `the copy of slice "a" (z2) wins: none in z1, no narrowing`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got, problems := Select(tc.list, "http", tc.opts)
			require.Empty(t, problems)
			require.Equal(t, tc.want, got, tc.cause)
			checkPreparedMatches(t, tc.list, "http", tc.opts)
		})
	}
}
