package endpoints

import (
	"math/rand/v2"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	discoveryv1 "k8s.io/api/discovery/v1"
)

// hinted gives e the hints for these nodes and zones; nil leaves that list
// unset, and both nil leaves e without hints.
func hinted(e discoveryv1.Endpoint, nodes, zones []string) discoveryv1.Endpoint {
	if nodes == nil && zones == nil {
		return e
	}
	h := &discoveryv1.EndpointHints{}
	for _, n := range nodes {
		h.ForNodes = append(h.ForNodes, discoveryv1.ForNode{Name: n})
	}
	for _, z := range zones {
		h.ForZones = append(h.ForZones, discoveryv1.ForZone{Name: z})
	}
	e.Hints = h
	return e
}

// zoned is a ready endpoint hinted for one zone.
func zoned(addr, zone string) discoveryv1.Endpoint {
	return hinted(ready(addr), nil, []string{zone})
}

// noded is a ready endpoint hinted for one node and one zone, as the
// EndpointSlice controller publishes them for PreferSameNode.
func noded(addr, node, zone string) discoveryv1.Endpoint {
	return hinted(ready(addr), []string{node}, []string{zone})
}

// managed labels s as managed by manager ("" leaves it unlabelled).
func managed(s *discoveryv1.EndpointSlice, manager string) *discoveryv1.EndpointSlice {
	if manager != "" {
		s.Labels = map[string]string{discoveryv1.LabelManagedBy: manager}
	}
	return s
}

func v4slice(name string, eps ...discoveryv1.Endpoint) *discoveryv1.EndpointSlice {
	return slice(name, discoveryv1.AddressTypeIPv4, http(), eps...)
}

func v6slice(name string, eps ...discoveryv1.Endpoint) *discoveryv1.EndpointSlice {
	return slice(name, discoveryv1.AddressTypeIPv6, http(), eps...)
}

func TestSelectTopology(t *testing.T) {
	here := Options{Node: "node-1", Zone: "zone-a"}
	cases := []selectCase{
		{
			name: "no node or zone set: hints are ignored",
			slices: []*discoveryv1.EndpointSlice{v4slice("a",
				noded("10.0.0.1", "node-2", "zone-b"), noded("10.0.0.2", "node-3", "zone-c"))},
			want: []Backend{normal("10.0.0.1", 8080), normal("10.0.0.2", 8080)},
		},
		{
			name: "node hints come before zone hints",
			slices: []*discoveryv1.EndpointSlice{v4slice("a",
				noded("10.0.0.1", "node-1", "zone-a"),
				noded("10.0.0.2", "node-2", "zone-a"),
				noded("10.0.0.3", "node-3", "zone-b"))},
			opts: here,
			want: []Backend{normal("10.0.0.1", 8080)},
		},
		{
			name: "an endpoint hinted for several nodes",
			slices: []*discoveryv1.EndpointSlice{v4slice("a",
				hinted(ready("10.0.0.1"), []string{"node-2", "node-1"}, nil),
				hinted(ready("10.0.0.2"), []string{"node-2"}, nil))},
			opts: Options{Node: "node-1"},
			want: []Backend{normal("10.0.0.1", 8080)},
		},
		{
			name: "one ready endpoint without node hints: the zone rule applies",
			slices: []*discoveryv1.EndpointSlice{v4slice("a",
				noded("10.0.0.1", "node-1", "zone-a"),
				zoned("10.0.0.2", "zone-a"),
				zoned("10.0.0.3", "zone-b"))},
			opts: here,
			want: []Backend{normal("10.0.0.1", 8080), normal("10.0.0.2", 8080)},
		},
		{
			name: "node hints complete but none for this node: the zone rule applies",
			slices: []*discoveryv1.EndpointSlice{v4slice("a",
				noded("10.0.0.1", "node-2", "zone-a"),
				noded("10.0.0.2", "node-3", "zone-b"))},
			opts: here,
			want: []Backend{normal("10.0.0.1", 8080)},
		},
		{
			name: "zone only: node hints do not matter",
			slices: []*discoveryv1.EndpointSlice{v4slice("a",
				noded("10.0.0.1", "node-1", "zone-b"),
				zoned("10.0.0.2", "zone-a"))},
			opts: Options{Zone: "zone-a"},
			want: []Backend{normal("10.0.0.2", 8080)},
		},
		{
			name: "node only, no zone: zone hints are not used",
			slices: []*discoveryv1.EndpointSlice{v4slice("a",
				zoned("10.0.0.1", "zone-a"),
				zoned("10.0.0.2", "zone-b"))},
			opts: Options{Node: "node-1"},
			want: []Backend{normal("10.0.0.1", 8080), normal("10.0.0.2", 8080)},
		},
		{
			name: "partial zone hints: all ready endpoints",
			slices: []*discoveryv1.EndpointSlice{
				v4slice("a", zoned("10.0.0.1", "zone-a"), zoned("10.0.0.2", "zone-b")),
				v4slice("b", ready("10.0.0.3")),
			},
			opts: here,
			want: []Backend{normal("10.0.0.1", 8080), normal("10.0.0.2", 8080), normal("10.0.0.3", 8080)},
		},
		{
			name: "empty hints and empty hint lists count as no hints",
			slices: []*discoveryv1.EndpointSlice{v4slice("a",
				zoned("10.0.0.1", "zone-a"),
				discoveryv1.Endpoint{Addresses: []string{"10.0.0.2"}, Hints: &discoveryv1.EndpointHints{}},
				discoveryv1.Endpoint{Addresses: []string{"10.0.0.3"}, Hints: &discoveryv1.EndpointHints{
					ForZones: []discoveryv1.ForZone{}, ForNodes: []discoveryv1.ForNode{}}},
			)},
			opts: here,
			want: []Backend{normal("10.0.0.1", 8080), normal("10.0.0.2", 8080), normal("10.0.0.3", 8080)},
		},
		{
			name: "no hint names this node or zone: never empty, all ready endpoints",
			slices: []*discoveryv1.EndpointSlice{v4slice("a",
				noded("10.0.0.1", "node-2", "zone-b"),
				noded("10.0.0.2", "node-3", "zone-c"))},
			opts: here,
			want: []Backend{normal("10.0.0.1", 8080), normal("10.0.0.2", 8080)},
		},
		{
			name: "an endpoint hinted for several zones",
			slices: []*discoveryv1.EndpointSlice{v4slice("a",
				hinted(ready("10.0.0.1"), nil, []string{"zone-b", "zone-a"}),
				zoned("10.0.0.2", "zone-b"))},
			opts: here,
			want: []Backend{normal("10.0.0.1", 8080)},
		},
		{
			name: "every address of a hinted endpoint is kept",
			slices: []*discoveryv1.EndpointSlice{v4slice("a",
				hinted(ready("10.0.0.1", "10.0.0.3"), nil, []string{"zone-a"}),
				zoned("10.0.0.2", "zone-b"))},
			opts: here,
			want: []Backend{normal("10.0.0.1", 8080), normal("10.0.0.3", 8080)},
		},
		{
			name: "decided across all slices at once",
			slices: []*discoveryv1.EndpointSlice{
				v4slice("a", zoned("10.0.0.1", "zone-a"), zoned("10.0.0.2", "zone-b")),
				v4slice("b", zoned("10.0.0.3", "zone-c")),
				v4slice("c", zoned("10.0.0.4", "zone-b"), zoned("10.0.0.5", "zone-a")),
			},
			opts: here,
			want: []Backend{normal("10.0.0.1", 8080), normal("10.0.0.5", 8080)},
		},
		{
			name: "one slice with no ready endpoint for this zone does not block the others",
			slices: []*discoveryv1.EndpointSlice{
				v4slice("a", zoned("10.0.0.1", "zone-b")),
				v4slice("b", zoned("10.0.0.2", "zone-a")),
			},
			opts: here,
			want: []Backend{normal("10.0.0.2", 8080)},
		},
		{
			name: "not-ready and not-serving endpoints without hints do not count",
			slices: []*discoveryv1.EndpointSlice{v4slice("a",
				zoned("10.0.0.1", "zone-a"),
				zoned("10.0.0.2", "zone-b"),
				ep(condNotReady, "10.0.0.3"),
				ep(condUnusable, "10.0.0.4"))},
			opts: here,
			want: []Backend{normal("10.0.0.1", 8080)},
		},
		{
			name: "serving-terminating endpoints are not filtered and stay fenced (fallback)",
			slices: []*discoveryv1.EndpointSlice{v4slice("a",
				zoned("10.0.0.1", "zone-a"),
				zoned("10.0.0.2", "zone-b"),
				hinted(term("10.0.0.3"), nil, []string{"zone-b"}),
				hinted(term("10.0.0.4"), nil, []string{"zone-a"}),
				term("10.0.0.5"))},
			opts: here,
			want: []Backend{normal("10.0.0.1", 8080), fenced("10.0.0.3", 8080), fenced("10.0.0.4", 8080), fenced("10.0.0.5", 8080)},
		},
		{
			name: "serving-terminating endpoints without hints do not stop the zone rule",
			slices: []*discoveryv1.EndpointSlice{v4slice("a",
				zoned("10.0.0.1", "zone-a"), zoned("10.0.0.2", "zone-b"), term("10.0.0.3"))},
			opts: here,
			want: []Backend{normal("10.0.0.1", 8080), fenced("10.0.0.3", 8080)},
		},
		{
			name: "no ready endpoint: every serving-terminating endpoint is used, whatever its hints",
			slices: []*discoveryv1.EndpointSlice{v4slice("a",
				hinted(term("10.0.0.1"), []string{"node-2"}, []string{"zone-b"}),
				hinted(term("10.0.0.2"), []string{"node-1"}, []string{"zone-a"}),
				term("10.0.0.3"),
				hinted(ep(condUnusable, "10.0.0.4"), []string{"node-1"}, []string{"zone-a"}))},
			opts: here,
			want: []Backend{normal("10.0.0.1", 8080), normal("10.0.0.2", 8080), normal("10.0.0.3", 8080)},
		},
		{
			name: "the ready endpoints left out by topology do not trigger the fallback",
			slices: []*discoveryv1.EndpointSlice{v4slice("a",
				zoned("10.0.0.1", "zone-a"),
				zoned("10.0.0.2", "zone-b"),
				hinted(term("10.0.0.3"), nil, []string{"zone-a"}))},
			opts: Options{Zone: "zone-a", Terminating: TerminatingFallback},
			want: []Backend{normal("10.0.0.1", 8080), fenced("10.0.0.3", 8080)},
		},
		{
			name: "terminatingEndpoints exclude with topology",
			slices: []*discoveryv1.EndpointSlice{v4slice("a",
				zoned("10.0.0.1", "zone-a"), zoned("10.0.0.2", "zone-b"),
				hinted(term("10.0.0.3"), nil, []string{"zone-a"}))},
			opts: Options{Zone: "zone-a", Terminating: TerminatingExclude},
			want: []Backend{normal("10.0.0.1", 8080)},
		},
		{
			name: "terminatingEndpoints fence with topology and no ready endpoint",
			slices: []*discoveryv1.EndpointSlice{v4slice("a",
				hinted(term("10.0.0.1"), nil, []string{"zone-a"}),
				hinted(term("10.0.0.2"), nil, []string{"zone-b"}))},
			opts: Options{Zone: "zone-a", Terminating: TerminatingFence},
			want: []Backend{fenced("10.0.0.1", 8080), fenced("10.0.0.2", 8080)},
		},
		{
			name: "a duplicate keeps the hints of its best copy: ready zone-b beats terminating zone-a",
			slices: []*discoveryv1.EndpointSlice{
				v4slice("a", hinted(term("10.0.0.1"), nil, []string{"zone-a"}), zoned("10.0.0.2", "zone-a")),
				v4slice("b", zoned("10.0.0.1", "zone-b")),
			},
			opts: here,
			want: []Backend{normal("10.0.0.2", 8080)},
		},
		{
			name: "a duplicate keeps the hints of its best copy: a worse copy's missing hints do not count",
			slices: []*discoveryv1.EndpointSlice{
				v4slice("a", zoned("10.0.0.1", "zone-a"), zoned("10.0.0.2", "zone-b")),
				v4slice("b", term("10.0.0.1"), ep(condNotReady, "10.0.0.2")),
			},
			opts: here,
			want: []Backend{normal("10.0.0.1", 8080)},
		},
		{
			name: "only the families in use count: the IPv6 slice's hints are not read for IPv4",
			slices: []*discoveryv1.EndpointSlice{
				v4slice("v4", zoned("10.0.0.1", "zone-a"), zoned("10.0.0.2", "zone-b")),
				v6slice("v6", ready("fd00::1")),
			},
			opts: Options{Zone: "zone-a", AddressTypes: []discoveryv1.AddressType{discoveryv1.AddressTypeIPv4}},
			want: []Backend{normal("10.0.0.1", 8080)},
		},
		{
			name: "both families: decided over both at once",
			slices: []*discoveryv1.EndpointSlice{
				v4slice("v4", zoned("10.0.0.1", "zone-a"), zoned("10.0.0.2", "zone-b")),
				v6slice("v6", zoned("fd00::1", "zone-a"), zoned("fd00::2", "zone-b")),
			},
			opts: here,
			want: []Backend{normal("10.0.0.1", 8080), normal("fd00::1", 8080)},
		},
		{
			name: "publishNotReadyAddresses: not-ready endpoints count as ready, hints and all",
			slices: []*discoveryv1.EndpointSlice{v4slice("a",
				zoned("10.0.0.1", "zone-a"),
				hinted(ep(condNotReady, "10.0.0.2"), nil, []string{"zone-a"}),
				hinted(term("10.0.0.3"), nil, []string{"zone-b"}))},
			opts: Options{Zone: "zone-a", PublishNotReady: true},
			want: []Backend{normal("10.0.0.1", 8080), normal("10.0.0.2", 8080)},
		},
		{
			name: "publishNotReadyAddresses: a not-ready endpoint without hints stops the zone rule",
			slices: []*discoveryv1.EndpointSlice{v4slice("a",
				zoned("10.0.0.1", "zone-a"), zoned("10.0.0.2", "zone-b"), ep(condNotReady, "10.0.0.3"))},
			opts: Options{Zone: "zone-a", PublishNotReady: true},
			want: []Backend{normal("10.0.0.1", 8080), normal("10.0.0.2", 8080), normal("10.0.0.3", 8080)},
		},
		{
			name: "ignored slices' hints do not count (managers)",
			slices: []*discoveryv1.EndpointSlice{
				managed(v4slice("ctrl", zoned("10.0.0.1", "zone-a"), zoned("10.0.0.2", "zone-b")), "endpointslice-controller.k8s.io"),
				managed(v4slice("evil", ready("10.0.0.9")), "someone-else"),
			},
			opts: Options{Zone: "zone-a", Managers: []string{"endpointslice-controller.k8s.io"}},
			want: []Backend{normal("10.0.0.1", 8080)},
			problems: []string{
				`endpointslice ns/evil: metadata.labels[endpointslice.kubernetes.io/managed-by]: managed by "someone-else", which endpointSliceManagers does not list: the slice is ignored`,
			},
		},
	}
	for i := range cases {
		cases[i].port = "http"
	}
	runSelectCases(t, cases)
}

// Whatever order the slices come in (the informer's index returns them in
// no particular order), the same hints must give the same servers.
func TestSelectTopologyOrderIndependence(t *testing.T) {
	base := []*discoveryv1.EndpointSlice{
		v4slice("a", noded("10.0.0.1", "node-1", "zone-a"), noded("10.0.0.2", "node-2", "zone-b"),
			hinted(term("10.0.0.3"), []string{"node-1"}, []string{"zone-a"})),
		v4slice("b", noded("10.0.0.4", "node-3", "zone-a"), hinted(term("10.0.0.2"), []string{"node-2"}, []string{"zone-b"})),
		v4slice("c", noded("10.0.0.5", "node-1", "zone-a"), ep(condNotReady, "10.0.0.6")),
	}
	for _, opts := range []Options{
		{Node: "node-1", Zone: "zone-a"},
		{Zone: "zone-a"},
		{Zone: "zone-b"},
		{Node: "node-9", Zone: "zone-9"},
	} {
		want, _ := Select(base, "http", opts)
		require.NotEmpty(t, want)
		rng := rand.New(rand.NewPCG(3, 4))
		for i := range 50 {
			in := cloneSlices(base)
			rng.Shuffle(len(in), func(a, b int) { in[a], in[b] = in[b], in[a] })
			got, _ := Select(in, "http", opts)
			require.Equal(t, want, got, "options %+v, iteration %d", opts, i)
		}
	}
}

// Two ready copies of one address with different hints (an endpoint moving
// between slices, or a hand-made slice) must not make the output depend on
// the order the informer lists the slices in: the output must be
// byte-identical for the same cluster.
func TestSelectTopologyDuplicateHintsOrderIndependence(t *testing.T) {
	a := v4slice("a", zoned("10.0.0.1", "zone-a"), zoned("10.0.0.2", "zone-a"))
	b := v4slice("b", zoned("10.0.0.1", "zone-b"), zoned("10.0.0.3", "zone-b"))
	opts := Options{Zone: "zone-a"}
	ab, _ := Select([]*discoveryv1.EndpointSlice{a, b}, "http", opts)
	ba, _ := Select([]*discoveryv1.EndpointSlice{b, a}, "http", opts)
	assert.Equal(t, ab, ba)
}

func TestSelectAddressTypesOption(t *testing.T) {
	v4, v6 := discoveryv1.AddressTypeIPv4, discoveryv1.AddressTypeIPv6
	both := func() []*discoveryv1.EndpointSlice {
		return []*discoveryv1.EndpointSlice{
			v4slice("v4", ready("10.0.0.1"), term("10.0.0.2")),
			v6slice("v6", ready("fd00::1"), term("fd00::2")),
		}
	}
	cases := []selectCase{
		{
			name:   "empty: both families",
			slices: both(),
			want:   []Backend{normal("10.0.0.1", 8080), fenced("10.0.0.2", 8080), normal("fd00::1", 8080), fenced("fd00::2", 8080)},
		},
		{
			name:   "IPv4 and IPv6: both families",
			slices: both(),
			opts:   Options{AddressTypes: []discoveryv1.AddressType{v6, v4}},
			want:   []Backend{normal("10.0.0.1", 8080), fenced("10.0.0.2", 8080), normal("fd00::1", 8080), fenced("fd00::2", 8080)},
		},
		{
			name:   "IPv4 only, silently",
			slices: both(),
			opts:   Options{AddressTypes: []discoveryv1.AddressType{v4}},
			want:   []Backend{normal("10.0.0.1", 8080), fenced("10.0.0.2", 8080)},
		},
		{
			name:   "IPv6 only, silently",
			slices: both(),
			opts:   Options{AddressTypes: []discoveryv1.AddressType{v6}},
			want:   []Backend{normal("fd00::1", 8080), fenced("fd00::2", 8080)},
		},
		{
			name: "the other family's slice is not read: its defects are not reported",
			slices: []*discoveryv1.EndpointSlice{
				v4slice("v4", ready("10.0.0.1")),
				slice("v6", v6, []discoveryv1.EndpointPort{{Name: ptr("http")}}, ready("10.0.0.9", "169.254.169.254")),
			},
			opts: Options{AddressTypes: []discoveryv1.AddressType{v4}},
			want: []Backend{normal("10.0.0.1", 8080)},
		},
		{
			name: "the fallback looks at the family in use only",
			slices: []*discoveryv1.EndpointSlice{
				v4slice("v4", term("10.0.0.2")),
				v6slice("v6", ready("fd00::1")),
			},
			opts: Options{AddressTypes: []discoveryv1.AddressType{v4}},
			want: []Backend{normal("10.0.0.2", 8080)},
		},
		{
			name:   "only the other family exists: no servers",
			slices: []*discoveryv1.EndpointSlice{v6slice("v6", ready("fd00::1"))},
			opts:   Options{AddressTypes: []discoveryv1.AddressType{v4}},
		},
		{
			name: "FQDN slices are governed by AllowFQDN alone",
			slices: []*discoveryv1.EndpointSlice{
				v6slice("v6", ready("fd00::1")),
				slice("f", discoveryv1.AddressTypeFQDN, http(), ready("svc.example.com")),
			},
			opts: Options{AllowFQDN: true, AddressTypes: []discoveryv1.AddressType{v4}},
			want: []Backend{normal("svc.example.com", 8080)},
		},
		{
			name: "FQDN slices are still refused without AllowFQDN",
			slices: []*discoveryv1.EndpointSlice{
				v4slice("v4", ready("10.0.0.1")),
				slice("f", discoveryv1.AddressTypeFQDN, http(), ready("svc.example.com")),
			},
			opts:     Options{AddressTypes: []discoveryv1.AddressType{v4}},
			want:     []Backend{normal("10.0.0.1", 8080)},
			problems: []string{"endpointslice ns/f: addressType: slices of address type FQDN are not used unless allowFQDNEndpoints is set"},
		},
		{
			name:     "an unknown address type is still reported",
			slices:   []*discoveryv1.EndpointSlice{v4slice("v4", ready("10.0.0.1")), slice("u", "IPv5", http(), ready("10.0.0.9"))},
			opts:     Options{AddressTypes: []discoveryv1.AddressType{v4}},
			want:     []Backend{normal("10.0.0.1", 8080)},
			problems: []string{`endpointslice ns/u: addressType: unsupported address type "IPv5" (want IPv4, IPv6 or FQDN)`},
		},
		{
			name: "wrong-family addresses are dropped with a warning in the family in use",
			slices: []*discoveryv1.EndpointSlice{
				v4slice("v4", ready("10.0.0.1"), ready("fd00::9")),
				v6slice("v6", ready("fd00::1")),
			},
			opts:     Options{AddressTypes: []discoveryv1.AddressType{v4}},
			want:     []Backend{normal("10.0.0.1", 8080)},
			problems: []string{`endpointslice ns/v4: endpoints[1].addresses[0]: "fd00::9" is not a valid IPv4 address: it is IPv6`},
		},
	}
	for i := range cases {
		cases[i].port = "http"
	}
	runSelectCases(t, cases)
}

func TestSelectManagers(t *testing.T) {
	const (
		ctrl   = "endpointslice-controller.k8s.io"
		mirror = "endpointslicemirroring-controller.k8s.io"
	)
	recommended := []string{ctrl, mirror}
	ignored := func(name, manager string) string {
		return `endpointslice ns/` + name + `: metadata.labels[endpointslice.kubernetes.io/managed-by]: managed by "` +
			manager + `", which endpointSliceManagers does not list: the slice is ignored`
	}
	mixed := func() []*discoveryv1.EndpointSlice {
		return []*discoveryv1.EndpointSlice{
			managed(v4slice("ctrl", ready("10.0.0.1"), term("10.0.0.3")), ctrl),
			managed(v4slice("mirror", ready("10.0.0.2")), mirror),
			managed(v4slice("other", ready("10.0.0.9"), ready("10.0.0.3")), "someone-else"),
			managed(v4slice("bare", ready("10.0.0.8")), ""),
		}
	}
	cases := []selectCase{
		{
			name:   "empty: every slice, whoever manages it",
			slices: mixed(),
			want: []Backend{normal("10.0.0.1", 8080), normal("10.0.0.2", 8080), normal("10.0.0.3", 8080),
				normal("10.0.0.8", 8080), normal("10.0.0.9", 8080)},
		},
		{
			name:   "listed managers only; the others are reported, and cannot make an endpoint ready",
			slices: mixed(),
			opts:   Options{Managers: recommended},
			want:   []Backend{normal("10.0.0.1", 8080), normal("10.0.0.2", 8080), fenced("10.0.0.3", 8080)},
			problems: []string{
				ignored("bare", ""),
				ignored("other", "someone-else"),
			},
		},
		{
			name:     "matching is exact",
			slices:   []*discoveryv1.EndpointSlice{managed(v4slice("a", ready("10.0.0.1")), "EndpointSlice-Controller.k8s.io")},
			opts:     Options{Managers: []string{ctrl}},
			problems: []string{ignored("a", "EndpointSlice-Controller.k8s.io")},
		},
		{
			name: "an ignored slice's defects are not reported: one warning for the slice",
			slices: []*discoveryv1.EndpointSlice{
				managed(slice("evil", discoveryv1.AddressTypeFQDN, http(), ready("169.254.169.254", "bad_name")), "someone-else"),
			},
			opts:     Options{Managers: recommended},
			problems: []string{ignored("evil", "someone-else")},
		},
		{
			name: "an ignored slice is reported even when it does not serve the port",
			slices: []*discoveryv1.EndpointSlice{
				managed(slice("grpc", discoveryv1.AddressTypeIPv4, []discoveryv1.EndpointPort{tcp("grpc", 9000)}, ready("10.0.0.1")), "someone-else"),
			},
			opts:     Options{Managers: recommended},
			problems: []string{ignored("grpc", "someone-else")},
		},
		{
			name: "an ignored slice of the other family is still reported",
			slices: []*discoveryv1.EndpointSlice{
				managed(v4slice("v4", ready("10.0.0.1")), ctrl),
				managed(v6slice("v6", ready("fd00::1")), "someone-else"),
			},
			opts:     Options{Managers: recommended, AddressTypes: []discoveryv1.AddressType{discoveryv1.AddressTypeIPv4}},
			want:     []Backend{normal("10.0.0.1", 8080)},
			problems: []string{ignored("v6", "someone-else")},
		},
	}
	for i := range cases {
		cases[i].port = "http"
	}
	runSelectCases(t, cases)
}

func TestSelectPublishNotReady(t *testing.T) {
	all := func() []*discoveryv1.EndpointSlice {
		return []*discoveryv1.EndpointSlice{v4slice("a",
			ready("10.0.0.1"),
			ep(condNotReady, "10.0.0.2"),
			ep(condUnusable, "10.0.0.3"),
			term("10.0.0.4"),
			ep(conds(nil, nil, nil), "10.0.0.5"),
			ep(conds(no, nil, nil), "10.0.0.6"),
		)}
	}
	everything := []Backend{normal("10.0.0.1", 8080), normal("10.0.0.2", 8080), normal("10.0.0.3", 8080),
		normal("10.0.0.4", 8080), normal("10.0.0.5", 8080), normal("10.0.0.6", 8080)}
	cases := []selectCase{
		{
			name:   "off: conditions apply",
			slices: all(),
			want:   []Backend{normal("10.0.0.1", 8080), fenced("10.0.0.4", 8080), normal("10.0.0.5", 8080)},
		},
		{
			name:   "on: every endpoint with an address, none fenced",
			slices: all(),
			opts:   Options{PublishNotReady: true},
			want:   everything,
		},
		{
			name:   "on, with terminatingEndpoints exclude: conditions are disregarded, so nothing is terminating",
			slices: all(),
			opts:   Options{PublishNotReady: true, Terminating: TerminatingExclude},
			want:   everything,
		},
		{
			name:   "on, with terminatingEndpoints fence: nothing is fenced",
			slices: all(),
			opts:   Options{PublishNotReady: true, Terminating: TerminatingFence},
			want:   everything,
		},
		{
			name: "on: invalid addresses are still dropped",
			slices: []*discoveryv1.EndpointSlice{v4slice("a",
				ep(condNotReady, "10.0.0.1"), ep(condNotReady, "fd00::1"))},
			opts:     Options{PublishNotReady: true},
			want:     []Backend{normal("10.0.0.1", 8080)},
			problems: []string{`endpointslice ns/a: endpoints[1].addresses[0]: "fd00::1" is not a valid IPv4 address: it is IPv6`},
		},
	}
	for i := range cases {
		cases[i].port = "http"
	}
	runSelectCases(t, cases)
}
