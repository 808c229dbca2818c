package main

import (
	"maps"
	"net/http"
	"slices"
	"sort"
	"strings"

	"github.com/sliceway/sliceway/config/dynamic"
	"github.com/sliceway/sliceway/rule"
)

// table is sliceway's reading of the routers: package rule's matching in
// Traefik's order (priority, which defaults to the length of the rule).
type table struct {
	parsed map[string]rule.Expr
	// The routes of each entry point and TLS or not, highest priority first.
	groups  map[groupKey][]route
	hosts   map[string][]string  // request hosts to try, by router
	paths   map[string][]string  // request paths to try, by router
	headers map[string][]headers // request headers to try, by router
}

type groupKey struct {
	entryPoint string
	tls        bool
}

type route struct {
	name     string
	priority int
	expr     rule.Expr
}

// headers are a request's headers, one value each, by canonical name.
type headers map[string]string

// key is a text that two equal sets of headers share.
func (h headers) key() string {
	var b strings.Builder
	for _, k := range slices.Sorted(maps.Keys(h)) {
		b.WriteString(k + ": " + h[k] + "\n")
	}
	return b.String()
}

func (h headers) http() http.Header {
	if len(h) == 0 {
		return nil
	}
	out := http.Header{}
	for k, v := range h {
		out.Set(k, v)
	}
	return out
}

func newTable(routers map[string]*dynamic.Router) *table {
	t := &table{parsed: map[string]rule.Expr{}, groups: map[groupKey][]route{}, hosts: map[string][]string{}, paths: map[string][]string{}, headers: map[string][]headers{}}
	named := map[string]bool{}
	for _, r := range routers {
		for _, ep := range r.EntryPoints {
			named[ep] = true
		}
	}
	entryPoints := slices.Sorted(maps.Keys(named))
	if len(entryPoints) == 0 {
		entryPoints = []string{defaultEntryPoint}
	}
	for name, r := range routers {
		if r == nil {
			continue
		}
		expr, err := rule.Parse(r.Rule)
		if err != nil {
			continue
		}
		t.parsed[name] = expr
		priority := r.Priority
		if priority == 0 {
			priority = rule.Priority(r.Rule)
		}
		eps := r.EntryPoints
		if len(eps) == 0 {
			eps = entryPoints // a router that names none is on all of them
		}
		for _, ep := range eps {
			k := groupKey{ep, r.TLS != nil}
			t.groups[k] = append(t.groups[k], route{name: name, priority: priority, expr: expr})
		}
		t.hosts[name], t.paths[name] = samples(expr)
		t.headers[name] = headerSamples(expr)
	}
	for k, routes := range t.groups {
		sort.Slice(routes, func(i, j int) bool {
			if routes[i].priority != routes[j].priority {
				return routes[i].priority > routes[j].priority
			}
			return routes[i].name < routes[j].name
		})
		t.groups[k] = routes
	}
	return t
}

// samples are the hosts and paths that test a rule: its own values and
// their neighbours (another case, a port, a trailing slash, a longer path
// element, a sub-path), and for a path's regular expression a path it
// matches and those neighbours.
func samples(expr rule.Expr) (hosts, paths []string) {
	for _, m := range rule.Matchers(expr) {
		switch m.Name {
		case rule.Host:
			hosts = append(hosts, m.Value, strings.ToUpper(m.Value), m.Value+":8443")
		case rule.HostRegexp:
			// The wildcard hosts sliceway writes: ^[a-zA-Z0-9-]+\.rest$.
			if rest, ok := strings.CutPrefix(m.Value, `^[a-zA-Z0-9-]+\.`); ok {
				if rest, ok := strings.CutSuffix(rest, "$"); ok {
					domain := unquoteMeta(rest)
					hosts = append(hosts, "one."+domain, "Two-1."+domain+":80", "a.b."+domain, domain)
				}
			}
		case rule.Path, rule.PathPrefix:
			paths = append(paths, pathNeighbours(m.Value)...)
		case rule.PathRegexp:
			if v, ok := regexpSample(m.Value); ok {
				paths = append(paths, pathNeighbours(v)...)
			}
		}
	}
	return hosts, paths
}

func pathNeighbours(v string) []string {
	var out []string
	for _, p := range []string{v, v + "/", v + "/x", v + "x", strings.TrimSuffix(v, "/"), strings.ToUpper(v)} {
		if strings.HasPrefix(p, "/") { // as every request's path does
			out = append(out, p)
		}
	}
	return out
}

// headerSamples are the sets of headers that test a rule's Header and
// HeaderRegexp matchers (negated or not): each header alone with the
// value it wants, or with another; and, when the rule names several
// headers, all of them at once with the values it wants (the first value
// for a header named twice), which is where one router's headers meet
// another's. A rule without such matchers has none.
func headerSamples(expr rule.Expr) []headers {
	var out []headers
	all := headers{}
	for _, m := range rule.Matchers(expr) {
		name := http.CanonicalHeaderKey(m.Key)
		var want string
		switch m.Name {
		case rule.Header:
			want = m.Value
		case rule.HeaderRegexp:
			v, ok := regexpSample(m.Value)
			if !ok {
				continue
			}
			want = v
		default:
			continue
		}
		out = append(out, headers{name: want}, headers{name: want + "-other"})
		if _, ok := all[name]; !ok {
			all[name] = want
		}
	}
	if len(all) > 1 {
		out = append(out, all)
	}
	return out
}

// unquoteMeta undoes regexp.QuoteMeta.
func unquoteMeta(s string) string {
	var b strings.Builder
	for i := 0; i < len(s); i++ {
		if s[i] == '\\' && i+1 < len(s) {
			i++
		}
		b.WriteByte(s[i])
	}
	return b.String()
}

// maxCross is how many host, path and headers triples a group tries
// across all its routers; larger configurations try each router's own.
const maxCross = 5000

func (t *table) requests() []request {
	var out []request
	keys := slices.SortedFunc(maps.Keys(t.groups), func(a, b groupKey) int {
		if a.entryPoint != b.entryPoint {
			return strings.Compare(a.entryPoint, b.entryPoint)
		}
		if a.tls == b.tls {
			return 0
		}
		if !a.tls {
			return -1
		}
		return 1
	})
	for _, k := range keys {
		routes := t.groups[k]
		var hosts, paths []string
		heads := []headers{{}}
		for _, r := range routes {
			hosts = append(hosts, t.hosts[r.name]...)
			paths = append(paths, t.paths[r.name]...)
			heads = append(heads, t.headers[r.name]...)
		}
		hosts = append(hosts, "unknown.example")
		paths = append(paths, "/", "/unknown")
		hosts, paths, heads = uniq(hosts), uniq(paths), uniqHeaders(heads)
		type triple struct {
			host, path string
			headers    headers
		}
		var triples []triple
		if len(hosts)*len(paths)*len(heads) <= maxCross {
			for _, h := range hosts {
				for _, p := range paths {
					for _, hd := range heads {
						triples = append(triples, triple{h, p, hd})
					}
				}
			}
		} else {
			for _, r := range routes {
				hs := append([]string{"unknown.example"}, t.hosts[r.name]...)
				ps := append([]string{"/"}, t.paths[r.name]...)
				hds := append([]headers{{}}, t.headers[r.name]...)
				for _, h := range hs {
					for _, p := range ps {
						for _, hd := range hds {
							triples = append(triples, triple{h, p, hd})
						}
					}
				}
			}
		}
		seen := map[string]bool{}
		for _, tr := range triples {
			id := tr.host + "\x00" + tr.path + "\x00" + tr.headers.key()
			if seen[id] {
				continue
			}
			seen[id] = true
			q := request{EntryPoint: k.entryPoint, TLS: k.tls, Host: tr.host, Path: tr.path}
			if len(tr.headers) > 0 {
				q.Header = tr.headers
			}
			q.Router, q.Tied = match(routes, rule.Request{Host: tr.host, Path: tr.path, Header: tr.headers.http()})
			out = append(out, q)
		}
	}
	return out
}

// match is the router routes send the request to, or the routers of the
// same priority that all match.
func match(routes []route, req rule.Request) (string, []string) {
	for i, r := range routes {
		if !r.expr.MatchRequest(req) {
			continue
		}
		tied := []string{r.name}
		for _, o := range routes[i+1:] {
			if o.priority != r.priority {
				break
			}
			if o.expr.MatchRequest(req) {
				tied = append(tied, o.name)
			}
		}
		if len(tied) > 1 {
			return "", tied
		}
		return r.name, nil
	}
	return "", nil
}

func uniq(list []string) []string {
	seen := map[string]bool{}
	out := list[:0]
	for _, s := range list {
		if !seen[s] {
			seen[s] = true
			out = append(out, s)
		}
	}
	return out
}

func uniqHeaders(list []headers) []headers {
	seen := map[string]bool{}
	out := list[:0]
	for _, h := range list {
		if k := h.key(); !seen[k] {
			seen[k] = true
			out = append(out, h)
		}
	}
	return out
}
