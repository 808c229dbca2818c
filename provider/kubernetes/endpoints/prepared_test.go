package endpoints

import (
	"fmt"
	"math/rand/v2"
	"testing"

	"github.com/stretchr/testify/require"
	corev1 "k8s.io/api/core/v1"
	discoveryv1 "k8s.io/api/discovery/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// prepareAll prepares each slice for scheme http.
func prepareAll(list []*discoveryv1.EndpointSlice) []*Prepared {
	out := make([]*Prepared, len(list))
	for i, s := range list {
		out[i] = Prepare(s, "http")
	}
	return out
}

// checkPreparedMatches checks that AppendSelectPrepared gives what Select
// gives on the same slices, and that every URL it hands out is the
// backend's own.
func checkPreparedMatches(t *testing.T, list []*discoveryv1.EndpointSlice, portName string, opts Options) []Backend {
	t.Helper()
	want, wantProblems := Select(list, portName, opts)
	got, gotProblems := AppendSelectPrepared(nil, prepareAll(list), portName, opts)
	require.Equal(t, problemTexts(wantProblems), problemTexts(gotProblems), "the problems of the prepared slices")
	require.Len(t, got, len(want), "backends of the prepared slices:\n%v\nwant\n%v", got, want)
	for i := range got {
		b := got[i]
		if url, ok := b.URL("http"); ok {
			require.Equal(t, "http://"+b.HostPort(), url)
		}
		_, ok := b.URL("https")
		require.False(t, ok, "a URL for a scheme the slices were not prepared for")
		b.url = ""
		require.Equal(t, want[i], b, "backend %d", i)
	}
	return got
}

// randomSlices builds the slices of one Service from a small pool of
// addresses, so that addresses repeat within and across slices: mostly
// slices that Prepare prepares, with some it leaves to Select (a
// non-canonical or refused address, two addresses in an endpoint, a UDP
// port, an FQDN slice), other port numbers for the same name, managers
// and hints.
func randomSlices(r *rand.Rand) []*discoveryv1.EndpointSlice {
	v4 := []string{"10.0.0.1", "10.0.0.2", "10.0.0.3", "10.0.1.1", "192.168.0.10", "100.64.0.1", "9.9.9.9"}
	v6 := []string{"fd00::1", "fd00::2", "fd00::a:1", "2001:db8::1", "fd00:1::5"}
	odd := []string{"127.0.0.1", "010.0.0.1", "169.254.169.254", "10.0.0.300", "::1", "FD00::1", "a.example"}
	conds := []discoveryv1.EndpointConditions{condReady, condReady, condTerminating, condUnusable, {}, {Ready: new(false)}}
	names := []string{"http", "http", "http", "metrics", ""}
	n := 1 + r.IntN(4)
	list := make([]*discoveryv1.EndpointSlice, 0, n)
	v6Service := r.IntN(3) == 0
	hinted := r.IntN(2) == 0 // (almost) every endpoint has hints, so that topology narrows
	for i := range n {
		s := &discoveryv1.EndpointSlice{
			ObjectMeta:  metav1.ObjectMeta{Namespace: "ns", Name: fmt.Sprintf("web-%d", i), Labels: map[string]string{discoveryv1.LabelServiceName: "web"}},
			AddressType: discoveryv1.AddressTypeIPv4,
		}
		pool := v4
		if v6Service != (r.IntN(20) == 0) { // the other family in one slice in twenty
			s.AddressType, pool = discoveryv1.AddressTypeIPv6, v6
		}
		if r.IntN(40) == 0 {
			s.AddressType = discoveryv1.AddressTypeFQDN
		}
		if r.IntN(3) == 0 {
			s.Labels[discoveryv1.LabelManagedBy] = []string{"endpointslice-controller.k8s.io", "someone-else"}[r.IntN(2)]
		}
		for range 1 + r.IntN(3) {
			p := discoveryv1.EndpointPort{Port: new(int32(8080 + r.IntN(2)))}
			if name := names[r.IntN(len(names))]; name != "" || r.IntN(2) == 0 {
				p.Name = new(name)
			}
			if r.IntN(60) == 0 {
				p.Protocol = new(corev1.ProtocolUDP)
			}
			s.Ports = append(s.Ports, p)
		}
		// Mostly distinct within a slice, as the EndpointSlice controller
		// writes them; the same addresses in the other slices.
		perm := r.Perm(len(pool))
		for j := range r.IntN(len(pool) + 3) {
			addr := pool[perm[j%len(perm)]]
			if r.IntN(8) == 0 {
				addr = pool[r.IntN(len(pool))]
			}
			e := discoveryv1.Endpoint{Addresses: []string{addr}, Conditions: conds[r.IntN(len(conds))]}
			switch r.IntN(200) {
			case 0:
				e.Addresses[0] = odd[r.IntN(len(odd))]
			case 1:
				e.Addresses = append(e.Addresses, pool[r.IntN(len(pool))])
			}
			if hinted && r.IntN(20) != 0 || r.IntN(5) == 0 {
				e.Hints = &discoveryv1.EndpointHints{ForZones: []discoveryv1.ForZone{{Name: []string{"a", "b"}[r.IntN(2)]}}}
				if r.IntN(2) == 0 {
					e.Hints.ForNodes = []discoveryv1.ForNode{{Name: []string{"n1", "n2"}[r.IntN(2)]}}
				}
			}
			s.Endpoints = append(s.Endpoints, e)
		}
		list = append(list, s)
	}
	r.Shuffle(len(list), func(i, j int) { list[i], list[j] = list[j], list[i] })
	return list
}

func randomOptions(r *rand.Rand) Options {
	opts := Options{
		Terminating:     []TerminatingPolicy{TerminatingFallback, TerminatingFence, TerminatingExclude}[r.IntN(3)],
		AllowFQDN:       r.IntN(2) == 0,
		AllowLoopback:   r.IntN(4) == 0,
		PublishNotReady: r.IntN(5) == 0,
		AddressTypes:    fuzzFamilies[r.IntN(len(fuzzFamilies))],
	}
	if r.IntN(3) == 0 {
		opts.Zone = []string{"a", "b"}[r.IntN(2)]
	}
	if r.IntN(4) == 0 {
		opts.Node = []string{"n1", "n2"}[r.IntN(2)]
	}
	if r.IntN(5) == 0 {
		opts.Managers = []string{"endpointslice-controller.k8s.io"}
	}
	return opts
}

// TestPreparedMatchesSelect compares the two ways on random Services whose
// addresses repeat within and across slices, under random options.
func TestPreparedMatchesSelect(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 2))
	merged, some := 0, 0
	for i := range 20000 {
		list, opts := randomSlices(r), randomOptions(r)
		portName := []string{"http", "metrics", ""}[r.IntN(3)]
		t.Run(fmt.Sprint(i), func(t *testing.T) {
			got := checkPreparedMatches(t, list, portName, opts)
			if len(got) > 0 {
				some++
				if _, ok := got[0].URL("http"); ok {
					merged++
				}
			}
		})
		if t.Failed() {
			for _, s := range list {
				t.Logf("%s %s ports %v endpoints %+v", s.Name, s.AddressType, s.Ports, s.Endpoints)
			}
			t.Logf("port %q options %+v", portName, opts)
			return
		}
	}
	// Most cases must have gone through the merge, or the test compares
	// Select with itself.
	t.Logf("%d of %d cases with backends merged prepared slices", merged, some)
	require.Greater(t, merged, some/2, "cases whose backends came from prepared slices")
}

// TestPrepareUncommonSlices: slices an API server would not return (or
// that a selection refuses) give through Prepare what Select gives,
// problems included, and their backends, as those of the common slices
// (canonical IPv4 and IPv6, CGNAT addresses in 100/8 beside a metadata
// address, several ports), carry their URLs.
func TestPrepareUncommonSlices(t *testing.T) {
	for name, s := range map[string]*discoveryv1.EndpointSlice{
		"FQDN":                slice("a", discoveryv1.AddressTypeFQDN, http(), ready("a.example")),
		"FQDN dotted quad":    slice("a", discoveryv1.AddressTypeFQDN, http(), ready("10.0.0.9"), ready("A.Example")),
		"two addresses":       slice("a", discoveryv1.AddressTypeIPv4, http(), ep(condReady, "10.0.0.1", "10.0.0.2")),
		"no address":          slice("a", discoveryv1.AddressTypeIPv4, http(), ep(condReady)),
		"leading zero":        slice("a", discoveryv1.AddressTypeIPv4, http(), ready("10.0.0.01")),
		"not an address":      slice("a", discoveryv1.AddressTypeIPv4, http(), ready("10.0.0.300")),
		"upper-case IPv6":     slice("a", discoveryv1.AddressTypeIPv6, http(), ready("FD00::1")),
		"IPv6 in IPv4":        slice("a", discoveryv1.AddressTypeIPv4, http(), ready("fd00::1")),
		"loopback":            slice("a", discoveryv1.AddressTypeIPv4, http(), ready("127.0.0.1")),
		"metadata":            slice("a", discoveryv1.AddressTypeIPv4, http(), ready("169.254.169.254")),
		"IPv6 link-local":     slice("a", discoveryv1.AddressTypeIPv6, http(), ready("fe80::1")),
		"UDP port":            slice("a", discoveryv1.AddressTypeIPv4, []discoveryv1.EndpointPort{{Name: new("http"), Port: new(int32(80)), Protocol: new(corev1.ProtocolUDP)}}, ready("10.0.0.1")),
		"port without number": slice("a", discoveryv1.AddressTypeIPv4, []discoveryv1.EndpointPort{{Name: new("http")}}, ready("10.0.0.1")),
		"port out of range":   slice("a", discoveryv1.AddressTypeIPv4, []discoveryv1.EndpointPort{{Name: new("http"), Port: new(int32(70000))}}, ready("10.0.0.1")),
		"no port":             slice("a", discoveryv1.AddressTypeIPv4, nil, ready("10.0.0.1")),
		"bogus type":          slice("a", "Bogus", http(), ready("10.0.0.1")),
		"CGNAT":               slice("a", discoveryv1.AddressTypeIPv4, http(), ready("10.0.0.1"), ep(condTerminating, "100.64.3.4")),
		"IPv6":                slice("a", discoveryv1.AddressTypeIPv6, http(), ready("fd00::1"), ready("2001:db8::ff")),
		"two ports":           slice("a", discoveryv1.AddressTypeIPv4, append(http(), discoveryv1.EndpointPort{Port: new(int32(9090))}), ready("10.0.0.1")),
	} {
		t.Run(name, func(t *testing.T) {
			// Beside a common slice, which must not hide its problems.
			list := []*discoveryv1.EndpointSlice{s, slice("b", discoveryv1.AddressTypeIPv4, http(), ready("10.0.0.9"))}
			for _, opts := range []Options{{}, {AllowFQDN: true, AllowLoopback: true}} {
				for _, b := range checkPreparedMatches(t, list, "http", opts) {
					_, ok := b.URL("http")
					require.True(t, ok, "backend %v of a prepared slice without its URL", b)
				}
			}
		})
	}
}

// TestPreparedCommonSliceIsCompact: the slice an API server returns is
// prepared without extra, one word per IPv4 key (three per IPv6 key) and
// one per URL, since the informer cache holds one Prepared per slice of
// the cluster and its heap after sync is a budget.
func TestPreparedCommonSliceIsCompact(t *testing.T) {
	for _, list := range [][]*discoveryv1.EndpointSlice{smallBenchSlices(), smallBenchSlicesIPv6()} {
		for _, s := range list {
			p := Prepare(s, "http")
			require.Nil(t, p.extra, "%s: extra", s.Name)
			stride := map[discoveryv1.AddressType]int{discoveryv1.AddressTypeIPv4: 1, discoveryv1.AddressTypeIPv6: 3}[s.AddressType]
			require.Equal(t, stride, p.stride())
			require.Len(t, p.words, len(s.Endpoints)*(stride+len(s.Ports)))
			require.Equal(t, len(p.words), cap(p.words), "room left in words")
		}
	}
}

// TestPreparedURLs: each backend of a prepared slice carries its URL for
// the slice's first ports, and none for a port past them.
func TestPreparedURLs(t *testing.T) {
	var ports []discoveryv1.EndpointPort
	for i := range maxPreparedPorts + 1 {
		ports = append(ports, discoveryv1.EndpointPort{Name: new(fmt.Sprintf("p%d", i)), Port: new(int32(8000 + i))})
	}
	for _, s := range []*discoveryv1.EndpointSlice{
		slice("a", discoveryv1.AddressTypeIPv4, ports, ready("10.0.0.2"), ep(condTerminating, "10.0.0.1")),
		slice("a", discoveryv1.AddressTypeIPv6, ports, ready("fd00::2"), ep(condTerminating, "fd00::1")),
	} {
		for i, p := range ports {
			got, problems := AppendSelectPrepared(nil, []*Prepared{Prepare(s, "http")}, *p.Name, Options{})
			require.Empty(t, problems)
			require.Len(t, got, 2)
			for _, b := range got {
				url, ok := b.URL("http")
				require.Equal(t, i < maxPreparedPorts, ok, "port %d has its URLs", i)
				if ok {
					require.Equal(t, "http://"+b.HostPort(), url)
				}
			}
			require.True(t, got[0].Fenced, "the terminating endpoint, first by address")
		}
	}
	var plain Backend
	_, ok := plain.URL("")
	require.False(t, ok)
}

// BenchmarkSelectSmallPrepared is BenchmarkSelectSmall on prepared slices:
// what a render does for a Service of the informer client's index.
func BenchmarkSelectSmallPrepared(b *testing.B) {
	prepared := prepareAll(smallBenchSlices())
	got, problems := AppendSelectPrepared(nil, prepared, "http", Options{})
	if len(got) != 19 || len(problems) != 0 {
		b.Fatalf("unexpected result: %d backends, %d problems", len(got), len(problems))
	}
	if _, ok := got[0].URL("http"); !ok {
		b.Fatal("no prepared URL")
	}
	buf := make([]Backend, 0, 32)
	b.ReportAllocs()
	for b.Loop() {
		buf, _ = AppendSelectPrepared(buf[:0], prepared, "http", Options{})
	}
}

// BenchmarkPrepare is what preparing a slice of 10 endpoints costs the
// informer handler.
func BenchmarkPrepare(b *testing.B) {
	s := smallBenchSlices()[0]
	b.ReportAllocs()
	for b.Loop() {
		Prepare(s, "http")
	}
}
