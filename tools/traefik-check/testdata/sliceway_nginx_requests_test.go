package ingressnginx

// This file is copied into Traefik's pkg/provider/kubernetes/ingress-nginx
// by tools/traefik-check/run, and, renamed into package ingress, into
// pkg/provider/kubernetes/ingress for the check of Traefik's Ingress
// provider's tables (sliceway_ingress_table_test.go); it is not part of
// sliceway's build. It builds the requests a case is tried with and sends
// each through Traefik's own router (the request decorator, then the muxer
// with the priorities Traefik's router manager gives: a router's priority,
// else the length of its rule), once for Traefik's provider's configuration
// and once for sliceway's.

import (
	"crypto/tls"
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"net/url"
	"os"
	"os/exec"
	"slices"
	"sort"
	"strings"
	"testing"

	"github.com/traefik/traefik/v3/pkg/config/dynamic"
	"github.com/traefik/traefik/v3/pkg/middlewares/requestdecorator"
	httpmuxer "github.com/traefik/traefik/v3/pkg/muxer/http"
)

// slicewaySide is one configuration, with its routers in Traefik's muxers.
type slicewaySide struct {
	name string
	conf *dynamic.Configuration
	// traefik is true for the configuration of Traefik's provider, whose
	// routers name the test's entry points: "http" for plain requests,
	// "https" for TLS ones. sliceway's name none: a router with tls serves
	// TLS requests, one without plain ones.
	traefik    bool
	plain, tls *httpmuxer.Muxer
	refused    []string // routers whose rule Traefik's muxer refuses
}

// slicewayProbe is a request to try: a host, a path, headers, plain or TLS.
type slicewayProbe struct {
	host, path string
	header     map[string]string
	tls        bool
}

func (q slicewayProbe) String() string {
	s := "http://"
	if q.tls {
		s = "https://"
	}
	s += q.host + q.path
	if len(q.header) > 0 {
		keys := make([]string, 0, len(q.header))
		for k := range q.header {
			keys = append(keys, k+": "+q.header[k])
		}
		sort.Strings(keys)
		s += " [" + strings.Join(keys, ", ") + "]"
	}
	return s
}

func newSlicewaySide(t *testing.T, parser httpmuxer.SyntaxParser, name string, conf *dynamic.Configuration, traefik bool) *slicewaySide {
	t.Helper()
	s := &slicewaySide{name: name, conf: conf, traefik: traefik, plain: httpmuxer.NewMuxer(parser, nil), tls: httpmuxer.NewMuxer(parser, nil)}
	if conf.HTTP == nil {
		conf.HTTP = &dynamic.HTTPConfiguration{}
	}
	for rname, r := range conf.HTTP.Routers {
		priority := r.Priority
		if priority == 0 {
			priority = httpmuxer.GetRulePriority(r.Rule)
		}
		handler := http.HandlerFunc(func(rw http.ResponseWriter, _ *http.Request) { rw.Header().Set("X-Router", rname) })
		var muxers []*httpmuxer.Muxer
		switch {
		case !traefik && r.TLS == nil, traefik && r.TLS == nil && slices.Contains(r.EntryPoints, "http"):
			muxers = append(muxers, s.plain)
		case !traefik, slices.Contains(r.EntryPoints, "https"):
			muxers = append(muxers, s.tls)
		}
		for _, m := range muxers {
			if err := m.AddRoute(r.Rule, r.RuleSyntax, priority, "http", handler); err != nil {
				s.refused = append(s.refused, fmt.Sprintf("router %s: Traefik refuses its rule %q: %v", rname, r.Rule, err))
			}
		}
	}
	sort.Strings(s.refused)
	return s
}

// route is the router the request reaches ("" for none).
func (s *slicewaySide) route(q slicewayProbe) string {
	mux := s.plain
	if q.tls {
		mux = s.tls
	}
	rec := httptest.NewRecorder()
	requestdecorator.New(nil).ServeHTTP(rec, slicewayProbeRequest(q), mux.ServeHTTP)
	return rec.Header().Get("X-Router")
}

// slicewayProbeRequest is the request as Traefik's server reads it off
// the wire: the path percent-encoded where RFC 3986 wants it.
func slicewayProbeRequest(q slicewayProbe) *http.Request {
	var wire strings.Builder
	for i := 0; i < len(q.path); i++ {
		c := q.path[i]
		if 'a' <= c && c <= 'z' || 'A' <= c && c <= 'Z' || '0' <= c && c <= '9' || strings.IndexByte("-._~!$&'()*+,;=:@/", c) >= 0 {
			wire.WriteByte(c)
		} else {
			fmt.Fprintf(&wire, "%%%02X", c)
		}
	}
	scheme := "http"
	if q.tls {
		scheme = "https"
	}
	req := httptest.NewRequest(http.MethodGet, scheme+"://"+q.host+"/", nil)
	if u, err := url.ParseRequestURI(wire.String()); err == nil {
		u.Scheme, u.Host = "", ""
		req.URL = u
		req.RequestURI = u.RequestURI()
	}
	req.Host = q.host
	req.RemoteAddr = "192.0.2.10:40000"
	for k, v := range q.header {
		req.Header.Set(k, v)
	}
	if q.tls {
		req.TLS = &tls.ConnectionState{ServerName: strings.Split(q.host, ":")[0], HandshakeComplete: true}
	}
	return req
}

// ruleSampleSet is what tools/traefik-check/cases -samples gives for a
// rule (keep in step with cases/samples.go).
type ruleSampleSet struct {
	Parses  bool                `json:"parses"`
	Hosts   []string            `json:"hosts"`
	Paths   []string            `json:"paths"`
	Headers []map[string]string `json:"headers"`
}

// slicewayProbes are the requests to try for both configurations: the
// hosts, paths and headers that sliceway's rule package samples from every
// router of either (a path, its sub-path and sibling, a trailing slash),
// in every combination when there are not too many, and an unknown host,
// the root path and no header besides; each plain and over TLS. Only the
// lower-case, port-less spelling of a host is kept: Traefik's Host
// matcher ignores both, for either configuration alike.
func slicewayProbes(t *testing.T, sides ...*slicewaySide) []slicewayProbe {
	t.Helper()
	var rules []string
	for _, s := range sides {
		for _, r := range s.conf.HTTP.Routers {
			rules = append(rules, r.Rule)
		}
	}
	sort.Strings(rules)
	rules = slices.Compact(rules)
	in, err := json.Marshal(rules)
	if err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command(os.Getenv("SLICEWAY_CASES_BIN"), "-samples")
	cmd.Stdin = strings.NewReader(string(in))
	cmd.Stderr = os.Stderr
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("cases -samples: %v", err)
	}
	var samples []ruleSampleSet
	if err := json.Unmarshal(out, &samples); err != nil || len(samples) != len(rules) {
		t.Fatalf("cases -samples: %d answers to %d rules: %v", len(samples), len(rules), err)
	}
	hosts, paths := []string{"unknown.example"}, []string{"/"}
	headers := []map[string]string{nil}
	for i, s := range samples {
		if !s.Parses {
			t.Logf("sliceway's rule package does not read %q: its requests are not tried", rules[i])
		}
		for _, h := range s.Hosts {
			if h == strings.ToLower(h) && !strings.Contains(h, ":") && !strings.Contains(h, "*") {
				hosts = append(hosts, h)
			}
		}
		for _, p := range s.Paths {
			if !strings.Contains(p, "//") {
				paths = append(paths, p)
			}
		}
		headers = append(headers, s.Headers...)
	}
	sort.Strings(hosts)
	sort.Strings(paths)
	hosts, paths = slices.Compact(hosts), slices.Compact(paths)
	headers = slicewayUniqHeaders(headers)
	var probes []slicewayProbe
	for _, h := range hosts {
		for _, p := range paths {
			for _, hd := range headers {
				for _, secure := range []bool{false, true} {
					probes = append(probes, slicewayProbe{host: h, path: p, header: hd, tls: secure})
				}
			}
		}
	}
	if len(probes) > 20000 {
		t.Fatalf("%d requests to try: the tables's cases are small, this one needs requests per router", len(probes))
	}
	return probes
}

func slicewayUniqHeaders(list []map[string]string) []map[string]string {
	seen := map[string]bool{}
	var out []map[string]string
	for _, h := range list {
		q := slicewayProbe{header: h}.String()
		if !seen[q] {
			seen[q] = true
			out = append(out, h)
		}
	}
	return out
}

// compareSlicewayBehaviour sends every probe through both configurations
// and returns the differences, one line for each pair of outcomes that
// differ, with the requests that get them.
//
// One systematic difference is normalised away before comparing, and is
// documented (docs/migrating-from-ingress-nginx.md, "TLS hosts"): sliceway
// writes TLS routers only for the hosts an Ingress lists in spec.tls, and
// Traefik's provider one for every path, so a TLS request is only tried
// for a host that some TLS router of sliceway's serves (one that reaches
// a TLS router for some path). The other, that sliceway adds no retry
// middleware and Traefik's provider does, is in the normalisation of
// middlewares (sliceway_nginx_effects_test.go).
func compareSlicewayBehaviour(t *testing.T, theirs, ours *dynamic.Configuration) []string {
	t.Helper()
	parser, err := httpmuxer.NewSyntaxParser()
	if err != nil {
		t.Fatal(err)
	}
	traefik := newSlicewaySide(t, parser, "Traefik", theirs, true)
	sliceway := newSlicewaySide(t, parser, "sliceway", ours, false)
	return compareSlicewaySides(t, traefik, sliceway, true)
}

// compareSlicewaySides is compareSlicewayBehaviour on sides already
// built; slicewayTLSHostsOnly is the normalisation of TLS hosts above,
// which the check of Traefik's Ingress provider (whose TLS routers
// sliceway writes as that provider does) leaves out.
func compareSlicewaySides(t *testing.T, traefik, sliceway *slicewaySide, slicewayTLSHostsOnly bool) []string {
	t.Helper()
	var diffs []string
	for _, r := range traefik.refused {
		t.Logf("Traefik's own configuration: %s", r)
	}
	diffs = append(diffs, sliceway.refused...)
	probes := slicewayProbes(t, traefik, sliceway)
	tlsHosts := map[string]bool{}
	for _, q := range probes {
		if q.tls && (!slicewayTLSHostsOnly || sliceway.route(q) != "") {
			tlsHosts[q.host] = true
		}
	}
	type pair struct{ theirs, ours string }
	var order []pair
	byPair := map[pair][]string{}
	for _, q := range probes {
		if q.tls && !tlsHosts[q.host] {
			continue
		}
		p := pair{traefik.outcome(q), sliceway.outcome(q)}
		if p.theirs == p.ours {
			continue
		}
		if byPair[p] == nil {
			order = append(order, p)
		}
		byPair[p] = append(byPair[p], q.String())
	}
	for _, p := range order {
		reqs := byPair[p]
		more := ""
		if len(reqs) > 3 {
			more = fmt.Sprintf(" (and %d more)", len(reqs)-3)
			reqs = reqs[:3]
		}
		diffs = append(diffs, fmt.Sprintf("%s%s -> Traefik: %s | sliceway: %s", strings.Join(reqs, ", "), more, p.theirs, p.ours))
	}
	return diffs
}
