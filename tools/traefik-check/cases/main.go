// Command cases writes what tools/traefik-check hands to Traefik's own
// code: for each sliceway configuration it is given (a YAML or JSON file,
// such as a fixture's expected.yaml or the output of `sliceway render`),
// the text that `serve` (JSON) and `watch --output` (YAML) write, what each
// router and service holds, and requests with the router that sliceway's
// reading of the rules (package rule, in Traefik's order) sends them to.
//
//	go run ./tools/traefik-check/cases -out cases.json fixtures/*/expected.yaml demo.json
//
// A file may also hold expectations of its own (the Ingress conformance
// cases of examples/embedproxy write one): a JSON object with the
// configuration under "configuration" and requests under "requests", each
// with its entryPoint, host, path and the service the Ingress
// specification wants it to reach.
package main

import (
	"bytes"
	"encoding/json"
	"flag"
	"fmt"
	"maps"
	"os"
	"slices"
	"sort"
	"strings"

	"sigs.k8s.io/yaml"

	"github.com/sliceway/sliceway/config/dynamic"
	"github.com/sliceway/sliceway/rule"
)

// The file written, read by testdata/sliceway_check_test.go in Traefik's
// tree: keep the two in step.
type caseFile struct {
	Cases []checkCase `json:"cases"`
}

type checkCase struct {
	Name string `json:"name"`
	// The configuration as serve and watch --output write it (the file
	// for Traefik's file provider).
	JSON string `json:"json"`
	YAML string `json:"yaml"`
	// What Traefik must read from it, besides the values of the text: as
	// many routers (and whether each rule parses), services and
	// certificates.
	Routers      map[string]routerWant `json:"routers"`
	Services     int                   `json:"services"`
	Certificates int                   `json:"certificates"`
	Requests     []request             `json:"requests"`
}

type routerWant struct {
	// Parses says whether package rule reads the rule; Traefik's parser
	// must agree.
	Parses bool `json:"parses"`
}

// request is one request on an entry point, over TLS or not. Router is
// where it must go ("" for nowhere: a 404); when several routers of the
// same priority match, Router is "" and Tied names them: Traefik picks one
// of them by the order of a Go map, so such a configuration is ambiguous.
type request struct {
	EntryPoint string   `json:"entryPoint"`
	TLS        bool     `json:"tls"`
	Host       string   `json:"host"`
	Path       string   `json:"path"`
	Router     string   `json:"router"`
	Tied       []string `json:"tied,omitempty"`
	// Service, when set, is the service the Ingress specification wants
	// the request to reach (a conformance case); Router is then not checked.
	Service string `json:"service,omitempty"`
}

// withExpectations is a file that brings its own requests.
type withExpectations struct {
	Configuration *dynamic.Configuration `json:"configuration"`
	Requests      []request              `json:"requests"`
}

// defaultEntryPoint stands for every entry point when no router names one.
const defaultEntryPoint = "web"

func main() {
	out := flag.String("out", "", "where to write the cases (JSON); standard output when empty")
	flag.Parse()
	var file caseFile
	for _, path := range flag.Args() {
		c, err := load(path)
		if err != nil {
			fmt.Fprintf(os.Stderr, "cases: %s: %v\n", path, err)
			os.Exit(1)
		}
		file.Cases = append(file.Cases, c)
	}
	requests := 0
	for _, c := range file.Cases {
		requests += len(c.Requests)
	}
	fmt.Fprintf(os.Stderr, "%d configurations, %d requests\n", len(file.Cases), requests)
	data, err := json.Marshal(file)
	if err != nil {
		fmt.Fprintf(os.Stderr, "cases: %v\n", err)
		os.Exit(1)
	}
	if *out == "" {
		_, err = os.Stdout.Write(data)
	} else {
		err = os.WriteFile(*out, data, 0o644)
	}
	if err != nil {
		fmt.Fprintf(os.Stderr, "cases: %v\n", err)
		os.Exit(1)
	}
}

func load(path string) (checkCase, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return checkCase{}, err
	}
	var conf *dynamic.Configuration
	var given []request
	if bytes.Contains(data, []byte(`"configuration"`)) {
		var w withExpectations
		if err := json.Unmarshal(data, &w); err != nil {
			return checkCase{}, err
		}
		conf, given = w.Configuration, w.Requests
	} else {
		conf = &dynamic.Configuration{}
		if err := yaml.UnmarshalStrict(data, conf); err != nil {
			return checkCase{}, err
		}
	}
	if conf == nil {
		conf = &dynamic.Configuration{}
	}
	c := checkCase{Name: path, Routers: map[string]routerWant{}}
	text, err := (&dynamic.JSONEncoder{}).Encode(conf)
	if err != nil {
		return c, err
	}
	c.JSON = string(text)
	if text, err = (&dynamic.YAMLEncoder{}).Encode(conf); err != nil {
		return c, err
	}
	c.YAML = string(dynamic.FileProviderText(text))
	if conf.TLS != nil {
		c.Certificates = len(conf.TLS.Certificates)
	}
	readRouters(&c, conf)
	for _, q := range given {
		if q.Service == "" {
			return c, fmt.Errorf("request %s%s: no service", q.Host, q.Path)
		}
		c.Requests = append(c.Requests, request{EntryPoint: q.EntryPoint, TLS: q.TLS, Host: q.Host, Path: q.Path, Service: q.Service})
	}
	return c, nil
}

// readRouters fills in the routers and services of c, and the requests
// with the router sliceway's reading of the rules sends each to.
func readRouters(c *checkCase, conf *dynamic.Configuration) {
	if conf.HTTP == nil {
		return
	}
	c.Services = len(conf.HTTP.Services)
	t := newTable(conf.HTTP.Routers)
	for name := range conf.HTTP.Routers {
		c.Routers[name] = routerWant{Parses: t.parsed[name] != nil}
	}
	c.Requests = t.requests()
}

// table is sliceway's reading of the routers: package rule's matching in
// Traefik's order (priority, which defaults to the length of the rule).
type table struct {
	parsed map[string]rule.Expr
	// The routes of each entry point and TLS or not, highest priority first.
	groups map[groupKey][]route
	hosts  map[string][]string // request hosts to try, by router
	paths  map[string][]string // request paths to try, by router
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

func newTable(routers map[string]*dynamic.Router) *table {
	t := &table{parsed: map[string]rule.Expr{}, groups: map[groupKey][]route{}, hosts: map[string][]string{}, paths: map[string][]string{}}
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
// element, a sub-path).
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
			v := m.Value
			for _, p := range []string{v, v + "/", v + "/x", v + "x", strings.TrimSuffix(v, "/"), strings.ToUpper(v)} {
				if strings.HasPrefix(p, "/") { // as every request's path does
					paths = append(paths, p)
				}
			}
		}
	}
	return hosts, paths
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

// maxCross is how many host and path pairs a group tries across all its
// routers; larger configurations try each router's own pairs.
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
		for _, r := range routes {
			hosts = append(hosts, t.hosts[r.name]...)
			paths = append(paths, t.paths[r.name]...)
		}
		hosts = append(hosts, "unknown.example")
		paths = append(paths, "/", "/unknown")
		hosts, paths = uniq(hosts), uniq(paths)
		type pair struct{ host, path string }
		var pairs []pair
		if len(hosts)*len(paths) <= maxCross {
			for _, h := range hosts {
				for _, p := range paths {
					pairs = append(pairs, pair{h, p})
				}
			}
		} else {
			for _, r := range routes {
				hs := append([]string{"unknown.example"}, t.hosts[r.name]...)
				ps := append([]string{"/"}, t.paths[r.name]...)
				for _, h := range hs {
					for _, p := range ps {
						pairs = append(pairs, pair{h, p})
					}
				}
			}
		}
		seen := map[pair]bool{}
		for _, p := range pairs {
			if seen[p] {
				continue
			}
			seen[p] = true
			q := request{EntryPoint: k.entryPoint, TLS: k.tls, Host: p.host, Path: p.path}
			q.Router, q.Tied = match(routes, p.host, p.path)
			out = append(out, q)
		}
	}
	return out
}

// match is the router routes send host and path to, or the routers of the
// same priority that all match.
func match(routes []route, host, path string) (string, []string) {
	for i, r := range routes {
		if !r.expr.Match(host, path) {
			continue
		}
		tied := []string{r.name}
		for _, o := range routes[i+1:] {
			if o.priority != r.priority {
				break
			}
			if o.expr.Match(host, path) {
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
