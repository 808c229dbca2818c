package endpoints

import (
	"cmp"
	"encoding/binary"
	"fmt"
	"net"
	"net/netip"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
	corev1 "k8s.io/api/core/v1"
	discoveryv1 "k8s.io/api/discovery/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/validation"
	"sigs.k8s.io/yaml"
)

// A fuzz input is a compact binary encoding of Select's arguments that any
// byte string decodes to (missing bytes read as zero), and that fixtures
// encode to, so that the seed corpus holds the fixtures' slices:
//
//	options:  policy, flags (allowFQDN, allowLoopback, publishNotReady,
//	          address types), node, zone, managers, port name
//	slices:   count, then per slice: address type, managed-by label,
//	          ports (name, number, protocol: each may be unset),
//	          endpoints (addresses, ready/serving/terminating as unset,
//	          false or true, node and zone hints)
//
// Strings are a length byte and the bytes; optional values a presence byte.

var (
	fuzzPolicies     = []TerminatingPolicy{TerminatingFallback, TerminatingFence, TerminatingExclude, "", "bogus"}
	fuzzAddressTypes = []discoveryv1.AddressType{discoveryv1.AddressTypeIPv4, discoveryv1.AddressTypeIPv6, discoveryv1.AddressTypeFQDN, "", "Bogus"}
	fuzzProtocols    = []*corev1.Protocol{nil, new(corev1.ProtocolTCP), new(corev1.ProtocolUDP), new(corev1.ProtocolSCTP)}
	fuzzFamilies     = [][]discoveryv1.AddressType{nil, {discoveryv1.AddressTypeIPv4}, {discoveryv1.AddressTypeIPv6}, {discoveryv1.AddressTypeIPv4, discoveryv1.AddressTypeIPv6}}
)

const (
	maxFuzzSlices    = 6
	maxFuzzPorts     = 4
	maxFuzzEndpoints = 64
	maxFuzzAddresses = 4
	maxFuzzHints     = 3
)

type fuzzReader struct{ data []byte }

func (r *fuzzReader) byte() byte {
	if len(r.data) == 0 {
		return 0
	}
	b := r.data[0]
	r.data = r.data[1:]
	return b
}

func (r *fuzzReader) n(limit int) int { return int(r.byte()) % (limit + 1) }

func (r *fuzzReader) string() string {
	n := int(r.byte())
	n = min(n, len(r.data))
	s := string(r.data[:n])
	r.data = r.data[n:]
	return s
}

func (r *fuzzReader) int32() int32 {
	var b [4]byte
	for i := range b {
		b[i] = r.byte()
	}
	return int32(binary.BigEndian.Uint32(b[:]))
}

// tri reads an unset, false or true condition.
func (r *fuzzReader) tri() *bool {
	switch r.byte() % 3 {
	case 1:
		return new(false)
	case 2:
		return new(true)
	}
	return nil
}

func pick[T any](r *fuzzReader, list []T) T { return list[int(r.byte())%len(list)] }

// decodeSelectInput decodes a fuzz input into Select's arguments.
func decodeSelectInput(data []byte) ([]*discoveryv1.EndpointSlice, string, Options) {
	r := &fuzzReader{data: data}
	var opts Options
	opts.Terminating = pick(r, fuzzPolicies)
	flags := r.byte()
	opts.AllowFQDN = flags&1 != 0
	opts.AllowLoopback = flags&2 != 0
	opts.PublishNotReady = flags&4 != 0
	opts.AddressTypes = fuzzFamilies[int(flags>>3)%len(fuzzFamilies)]
	opts.Node = r.string()
	opts.Zone = r.string()
	for range r.n(2) {
		opts.Managers = append(opts.Managers, r.string())
	}
	portName := r.string()

	var list []*discoveryv1.EndpointSlice
	for i := range r.n(maxFuzzSlices) {
		s := &discoveryv1.EndpointSlice{
			ObjectMeta:  metav1.ObjectMeta{Namespace: "ns", Name: fmt.Sprintf("s%d", i), Labels: map[string]string{discoveryv1.LabelServiceName: "svc"}},
			AddressType: pick(r, fuzzAddressTypes),
		}
		if manager := r.string(); manager != "" {
			s.Labels[discoveryv1.LabelManagedBy] = manager
		}
		for range r.n(maxFuzzPorts) {
			var p discoveryv1.EndpointPort
			if r.byte()%2 == 1 {
				p.Name = new(r.string())
			}
			if r.byte()%2 == 1 {
				p.Port = new(r.int32())
			}
			p.Protocol = pick(r, fuzzProtocols)
			s.Ports = append(s.Ports, p)
		}
		for range r.n(maxFuzzEndpoints) {
			var e discoveryv1.Endpoint
			for range r.n(maxFuzzAddresses) {
				e.Addresses = append(e.Addresses, r.string())
			}
			e.Conditions = discoveryv1.EndpointConditions{Ready: r.tri(), Serving: r.tri(), Terminating: r.tri()}
			if r.byte()%2 == 1 {
				e.Hints = &discoveryv1.EndpointHints{}
				for range r.n(maxFuzzHints) {
					e.Hints.ForNodes = append(e.Hints.ForNodes, discoveryv1.ForNode{Name: r.string()})
				}
				for range r.n(maxFuzzHints) {
					e.Hints.ForZones = append(e.Hints.ForZones, discoveryv1.ForZone{Name: r.string()})
				}
			}
			s.Endpoints = append(s.Endpoints, e)
		}
		list = append(list, s)
	}
	return list, portName, opts
}

// fuzzWriter encodes what decodeSelectInput decodes.
type fuzzWriter struct{ buf []byte }

func (w *fuzzWriter) byte(b byte) { w.buf = append(w.buf, b) }
func (w *fuzzWriter) n(n, limit int) int {
	n = min(n, limit)
	w.byte(byte(n))
	return n
}

func (w *fuzzWriter) string(s string) {
	if len(s) > 255 {
		s = s[:255]
	}
	w.byte(byte(len(s)))
	w.buf = append(w.buf, s...)
}

func (w *fuzzWriter) tri(b *bool) {
	switch {
	case b == nil:
		w.byte(0)
	case *b:
		w.byte(2)
	default:
		w.byte(1)
	}
}

func index[T comparable](list []T, v T) byte { return byte(max(0, slices.Index(list, v))) }

func encodeSelectInput(list []*discoveryv1.EndpointSlice, portName string, policy TerminatingPolicy, flags byte, node, zone string) []byte {
	w := &fuzzWriter{}
	w.byte(index(fuzzPolicies, policy))
	w.byte(flags)
	w.string(node)
	w.string(zone)
	w.byte(0) // managers
	w.string(portName)
	n := w.n(len(list), maxFuzzSlices)
	for _, s := range list[:n] {
		w.byte(index(fuzzAddressTypes, s.AddressType))
		w.string(s.Labels[discoveryv1.LabelManagedBy])
		np := w.n(len(s.Ports), maxFuzzPorts)
		for _, p := range s.Ports[:np] {
			if p.Name == nil {
				w.byte(0)
			} else {
				w.byte(1)
				w.string(*p.Name)
			}
			if p.Port == nil {
				w.byte(0)
			} else {
				w.byte(1)
				w.buf = binary.BigEndian.AppendUint32(w.buf, uint32(*p.Port))
			}
			proto := byte(0)
			if p.Protocol != nil {
				proto = byte(max(0, slices.IndexFunc(fuzzProtocols, func(q *corev1.Protocol) bool { return q != nil && *q == *p.Protocol })))
			}
			w.byte(proto)
		}
		ne := w.n(len(s.Endpoints), maxFuzzEndpoints)
		for _, e := range s.Endpoints[:ne] {
			na := w.n(len(e.Addresses), maxFuzzAddresses)
			for _, a := range e.Addresses[:na] {
				w.string(a)
			}
			w.tri(e.Conditions.Ready)
			w.tri(e.Conditions.Serving)
			w.tri(e.Conditions.Terminating)
			if e.Hints == nil {
				w.byte(0)
				continue
			}
			w.byte(1)
			nn := w.n(len(e.Hints.ForNodes), maxFuzzHints)
			for _, h := range e.Hints.ForNodes[:nn] {
				w.string(h.Name)
			}
			nz := w.n(len(e.Hints.ForZones), maxFuzzHints)
			for _, h := range e.Hints.ForZones[:nz] {
				w.string(h.Name)
			}
		}
	}
	return w.buf
}

// fixtureSlices are the EndpointSlices of every fixture, by namespace and
// service, with the port names of their slices.
func fixtureSlices(f testing.TB) map[string][]*discoveryv1.EndpointSlice {
	files, err := filepath.Glob("../../../fixtures/*/manifests.yaml")
	require.NoError(f, err)
	require.NotEmpty(f, files)
	groups := map[string][]*discoveryv1.EndpointSlice{}
	for _, file := range files {
		data, err := os.ReadFile(file)
		require.NoError(f, err)
		for doc := range strings.SplitSeq(string(data), "\n---") {
			if !strings.Contains(doc, "kind: EndpointSlice") {
				continue
			}
			var s discoveryv1.EndpointSlice
			if err := yaml.Unmarshal([]byte(doc), &s); err != nil || s.Kind != "EndpointSlice" {
				continue
			}
			key := file + ":" + s.Namespace + "/" + s.Labels[discoveryv1.LabelServiceName]
			groups[key] = append(groups[key], &s)
		}
	}
	require.NotEmpty(f, groups)
	return groups
}

// FuzzSelect runs Select on EndpointSlices built from arbitrary bytes,
// seeded with the slices of every fixture under each terminating policy,
// and checks what a proxy relies on:
//
//   - no two backends share an address and port, and they are sorted;
//   - every backend comes from an endpoint of a usable slice, on that
//     slice's port, and from a serving endpoint (any endpoint with
//     publishNotReady);
//   - a backend is fenced only as the policy says: fence fences exactly
//     those without a ready copy; fallback fences them only while some
//     ready backend exists; exclude and publishNotReady never fence (and
//     exclude uses no serving-terminating endpoint);
//   - HostPort parses with net.SplitHostPort, the port is in 1..65535 and
//     IP addresses are canonical netip addresses; no refused address
//     (RefusedAddress, RefusedName) is ever a backend;
//   - the input is not modified, its order does not matter, and topology
//     only narrows ready backends, never to none;
//   - every problem names a slice and a field;
//   - the prepared slices (Prepare, AppendSelectPrepared) give the same
//     backends and problems, and each prepared URL is its backend's.
func FuzzSelect(f *testing.F) {
	for _, group := range fixtureSlices(f) {
		portNames := map[string]bool{}
		for _, s := range group {
			for _, p := range s.Ports {
				if p.Name != nil {
					portNames[*p.Name] = true
				} else {
					portNames[""] = true
				}
			}
		}
		for name := range portNames {
			for _, policy := range []TerminatingPolicy{TerminatingFallback, TerminatingFence, TerminatingExclude} {
				f.Add(encodeSelectInput(group, name, policy, 0, "", ""))
			}
			f.Add(encodeSelectInput(group, name, TerminatingFallback, 1|2|4, "node-a", "zone-a"))
			f.Add(encodeSelectInput(group, name, TerminatingFence, 1<<3, "", "zone-a"))
		}
	}
	// Hostile slices written by hand.
	bad := func(t discoveryv1.AddressType, port *int32, addrs ...string) *discoveryv1.EndpointSlice {
		return &discoveryv1.EndpointSlice{
			AddressType: t,
			Ports:       []discoveryv1.EndpointPort{{Name: new("http"), Port: port}},
			Endpoints: []discoveryv1.Endpoint{
				{Addresses: addrs},
				{Addresses: addrs, Conditions: discoveryv1.EndpointConditions{Ready: new(false), Serving: new(true), Terminating: new(true)}},
			},
		}
	}
	for _, list := range [][]*discoveryv1.EndpointSlice{
		{bad(discoveryv1.AddressTypeIPv4, new(int32(0)), "10.0.0.1"), bad(discoveryv1.AddressTypeIPv4, new(int32(-1)), "10.0.0.2"), bad(discoveryv1.AddressTypeIPv4, new(int32(70000)), "10.0.0.3"), bad(discoveryv1.AddressTypeIPv4, nil, "10.0.0.4")},
		{bad(discoveryv1.AddressTypeIPv4, new(int32(80)), "10.0.0.300", "::1", "fd00::1", "::ffff:10.0.0.1", "", "0.0.0.0", "169.254.169.254", "127.0.0.1", "224.0.0.1", "255.255.255.255", "010.0.0.1")},
		{bad(discoveryv1.AddressTypeIPv6, new(int32(80)), "fd00::1", "FD00:0:0::1", "fe80::1%eth0", "::", "10.0.0.1", "::ffff:10.0.0.1", "fd00:ec2::254", "ff02::1")},
		{bad(discoveryv1.AddressTypeFQDN, new(int32(80)), "a.example", "A.Example", "localhost", "x.localhost.", "10.0.0.1", "-bad-", strings.Repeat("a", 70))},
		{bad("Bogus", new(int32(80)), "10.0.0.1"), bad("", new(int32(80)), "10.0.0.1")},
	} {
		for i, s := range list {
			s.Name = fmt.Sprintf("s%d", i)
		}
		for _, policy := range []TerminatingPolicy{TerminatingFallback, TerminatingFence, TerminatingExclude} {
			f.Add(encodeSelectInput(list, "http", policy, 1, "", ""))
		}
	}

	f.Fuzz(func(t *testing.T, data []byte) {
		list, portName, opts := decodeSelectInput(data)
		before := make([]*discoveryv1.EndpointSlice, len(list))
		for i, s := range list {
			before[i] = s.DeepCopy()
		}

		got, problems := Select(list, portName, opts)
		for i := range list {
			require.True(t, reflect.DeepEqual(before[i], list[i]), "Select modified slice %d", i)
		}
		checkBackends(t, list, portName, opts, got)
		checkPreparedMatches(t, list, portName, opts)

		for _, p := range problems {
			require.NotNil(t, p)
			require.NotEmpty(t, p.Slice)
			require.NotEmpty(t, p.Field)
			require.Error(t, p.Err)
			require.True(t, strings.HasPrefix(p.Error(), "endpointslice "+p.Slice+": "+p.Field+": "), p.Error())
		}
		require.True(t, slices.IsSortedFunc(problems, compareProblems), "problems are sorted")

		// The order of the slices does not matter (their names are unique).
		reversed := slices.Clone(list)
		slices.Reverse(reversed)
		again, againProblems := Select(reversed, portName, opts)
		require.Equal(t, got, again, "the same backends whatever the order of the slices")
		require.Equal(t, problemTexts(problems), problemTexts(againProblems))

		// Topology only narrows ready backends, and never to none.
		if opts.Node != "" || opts.Zone != "" {
			plainOpts := opts
			plainOpts.Node, plainOpts.Zone = "", ""
			plain, _ := Select(list, portName, plainOpts)
			for _, b := range got {
				require.Contains(t, plain, b, "topology adds nothing and fences nothing")
			}
			if slices.ContainsFunc(plain, func(b Backend) bool { return hasReadyCopy(list, portName, opts, b) }) {
				require.True(t, slices.ContainsFunc(got, func(b Backend) bool { return hasReadyCopy(list, portName, opts, b) }),
					"topology left no ready backend:\nwithout: %v\nwith:    %v", plain, got)
			}
		}
	})
}

func problemTexts(ps []*Problem) []string {
	out := make([]string, len(ps))
	for i, p := range ps {
		out[i] = p.Error()
	}
	return out
}

// checkBackends checks the backends Select returned against its input.
func checkBackends(t *testing.T, list []*discoveryv1.EndpointSlice, portName string, opts Options, got []Backend) {
	t.Helper()
	anyReady := slices.ContainsFunc(got, func(b Backend) bool { return hasReadyCopy(list, portName, opts, b) })
	for i, b := range got {
		// Unique and sorted: IPs (numerically) before names, then ports.
		if i > 0 {
			require.Negative(t, compareBackends(got[i-1], b), "backends sorted and unique: %v then %v", got[i-1], b)
		}

		// Every address parses back.
		host, port, err := net.SplitHostPort(b.HostPort())
		require.NoError(t, err, b.HostPort())
		require.Equal(t, b.Address, host)
		require.Equal(t, strconv.Itoa(int(b.Port)), port)
		require.True(t, b.Port >= 1 && b.Port <= 65535, "port %d", b.Port)
		if ip, err := netip.ParseAddr(b.Address); err == nil {
			require.Equal(t, ip.String(), b.Address, "canonical IP text")
			require.Empty(t, ip.Zone())
			require.Empty(t, RefusedAddress(ip, opts.AllowLoopback), "a refused address is a backend: %s", b.Address)
		} else {
			require.True(t, opts.AllowFQDN, "a name without allowFQDN: %s", b.Address)
			require.Empty(t, validation.IsDNS1123Subdomain(b.Address), "a valid lower-case DNS name: %q", b.Address)
			require.Empty(t, RefusedName(b.Address, opts.AllowLoopback), "a refused name is a backend: %s", b.Address)
		}

		// It comes from somewhere, and from a serving endpoint.
		copies := copiesOf(list, portName, opts, b)
		require.NotEmpty(t, copies, "backend %v comes from no endpoint of a usable slice", b)
		serving := slices.ContainsFunc(copies, func(c discoveryv1.EndpointConditions) bool { return modelClass(c) != classUnusable })
		require.True(t, serving || opts.PublishNotReady, "backend %v comes from a non-serving endpoint", b)

		// Fenced as the policy says.
		ready := hasReadyCopy(list, portName, opts, b)
		switch {
		case opts.PublishNotReady:
			require.False(t, b.Fenced, "publishNotReady never fences: %v", b)
		case opts.Terminating == TerminatingExclude:
			require.False(t, b.Fenced, "exclude never fences: %v", b)
			require.True(t, ready, "exclude uses no serving-terminating endpoint: %v", b)
		case opts.Terminating == TerminatingFence:
			require.Equal(t, !ready, b.Fenced, "fence fences exactly the serving-terminating backends: %v", b)
		default: // fallback, "" and unknown values
			require.Equal(t, !ready && anyReady, b.Fenced, "fallback fences serving-terminating backends while a ready one exists: %v", b)
		}
	}
}

func compareBackends(a, b Backend) int {
	aIP, aErr := netip.ParseAddr(a.Address)
	bIP, bErr := netip.ParseAddr(b.Address)
	switch {
	case aErr == nil && bErr != nil:
		return -1
	case aErr != nil && bErr == nil:
		return 1
	case aErr == nil:
		return cmp.Or(aIP.Compare(bIP), cmp.Compare(a.Port, b.Port))
	}
	return cmp.Or(strings.Compare(a.Address, b.Address), cmp.Compare(a.Port, b.Port))
}

func hasReadyCopy(list []*discoveryv1.EndpointSlice, portName string, opts Options, b Backend) bool {
	if opts.PublishNotReady {
		return true
	}
	return slices.ContainsFunc(copiesOf(list, portName, opts, b), func(c discoveryv1.EndpointConditions) bool {
		return modelClass(c) == classReady
	})
}

// copiesOf returns the conditions of every endpoint that publishes b's
// address on b's port in a slice Select may use, as the documentation
// describes them: managers, address families, FQDN, and the slice's port
// (the first TCP or unset-protocol port of that name with a number).
func copiesOf(list []*discoveryv1.EndpointSlice, portName string, opts Options, b Backend) []discoveryv1.EndpointConditions {
	var out []discoveryv1.EndpointConditions
	for _, s := range list {
		if s == nil {
			continue
		}
		if len(opts.Managers) > 0 && !slices.Contains(opts.Managers, s.Labels[discoveryv1.LabelManagedBy]) {
			continue
		}
		switch s.AddressType {
		case discoveryv1.AddressTypeIPv4, discoveryv1.AddressTypeIPv6:
			if len(opts.AddressTypes) > 0 && !slices.Contains(opts.AddressTypes, s.AddressType) {
				continue
			}
		case discoveryv1.AddressTypeFQDN:
			if !opts.AllowFQDN {
				continue
			}
		default:
			continue
		}
		port, ok := slicePort(s, portName)
		if !ok || port != b.Port {
			continue
		}
		for _, e := range s.Endpoints {
			for _, a := range e.Addresses {
				if addressText(s.AddressType, a) == b.Address {
					out = append(out, e.Conditions)
				}
			}
		}
	}
	return out
}

func slicePort(s *discoveryv1.EndpointSlice, portName string) (int32, bool) {
	for _, p := range s.Ports {
		name := ""
		if p.Name != nil {
			name = *p.Name
		}
		if name != portName || p.Protocol != nil && *p.Protocol != corev1.ProtocolTCP || p.Port == nil {
			continue
		}
		return *p.Port, true
	}
	return 0, false
}

// addressText is the backend address an address of a slice stands for, or
// "" when it is not one of the slice's type.
func addressText(t discoveryv1.AddressType, a string) string {
	if t == discoveryv1.AddressTypeFQDN {
		name := strings.ToLower(a)
		if ip, err := netip.ParseAddr(name); err == nil {
			return ip.String()
		}
		return name
	}
	ip, err := netip.ParseAddr(a)
	if err != nil || ip.Zone() != "" || t == discoveryv1.AddressTypeIPv4 && !ip.Is4() || t == discoveryv1.AddressTypeIPv6 && (!ip.Is6() || ip.Is4In6()) {
		return ""
	}
	return ip.String()
}

// TestFuzzSelectEncoding: the seed encoding round-trips, so the seeds hold
// the fixtures' slices.
func TestFuzzSelectEncoding(t *testing.T) {
	list := []*discoveryv1.EndpointSlice{{
		ObjectMeta:  metav1.ObjectMeta{Namespace: "ns", Name: "s0", Labels: map[string]string{discoveryv1.LabelServiceName: "svc", discoveryv1.LabelManagedBy: "m"}},
		AddressType: discoveryv1.AddressTypeIPv6,
		Ports:       []discoveryv1.EndpointPort{{Name: new("http"), Port: new(int32(-5)), Protocol: new(corev1.ProtocolUDP)}, {}},
		Endpoints: []discoveryv1.Endpoint{
			{Addresses: []string{"fd00::1", "x"}, Conditions: discoveryv1.EndpointConditions{Ready: new(false), Terminating: new(true)},
				Hints: &discoveryv1.EndpointHints{ForZones: []discoveryv1.ForZone{{Name: "z"}}}},
			{},
		},
	}}
	got, portName, opts := decodeSelectInput(encodeSelectInput(list, "http", TerminatingFence, 2|4|2<<3, "n", "z"))
	require.Equal(t, list, got)
	require.Equal(t, "http", portName)
	require.Equal(t, Options{Terminating: TerminatingFence, AllowLoopback: true, PublishNotReady: true,
		AddressTypes: []discoveryv1.AddressType{discoveryv1.AddressTypeIPv6}, Node: "n", Zone: "z"}, opts)
}
