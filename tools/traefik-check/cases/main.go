// Command cases writes what tools/traefik-check hands to Traefik's own
// code: for each sliceway configuration it is given (a YAML or JSON file,
// such as a fixture's expected.yaml or the output of `sliceway render`),
// the text that `serve` (JSON) and `watch --output` (YAML) write, how many
// of each kind of object it holds, and requests (a host, a path, headers)
// with the router that sliceway's reading of the rules (package rule, in
// Traefik's order) sends them to.
//
//	go run ./tools/traefik-check/cases -out cases.json fixtures/*/expected.yaml demo.json
//	echo '["Host(\"a.example\") && PathPrefix(\"/x\")"]' | go run ./tools/traefik-check/cases -samples
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
	"os"

	"sigs.k8s.io/yaml"

	"github.com/sliceway/sliceway/config/dynamic"
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
	// many routers (and whether each rule parses), services, middlewares,
	// servers transports, TLS options and certificates.
	Routers           map[string]routerWant `json:"routers"`
	Services          int                   `json:"services"`
	Middlewares       int                   `json:"middlewares"`
	ServersTransports int                   `json:"serversTransports"`
	TLSOptions        int                   `json:"tlsOptions"`
	Certificates      int                   `json:"certificates"`
	Requests          []request             `json:"requests"`
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
	EntryPoint string `json:"entryPoint"`
	TLS        bool   `json:"tls"`
	Host       string `json:"host"`
	Path       string `json:"path"`
	// Header holds the request's headers, one value each.
	Header map[string]string `json:"header,omitempty"`
	Router string            `json:"router"`
	Tied   []string          `json:"tied,omitempty"`
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
	sampleRules := flag.Bool("samples", false, "read a JSON list of rules on standard input and write the hosts, paths and headers that test each (samples.go)")
	flag.Parse()
	if *sampleRules {
		if err := writeSamples(os.Stdin, os.Stdout); err != nil {
			fmt.Fprintf(os.Stderr, "cases: %v\n", err)
			os.Exit(1)
		}
		return
	}
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
		c.TLSOptions = len(conf.TLS.Options)
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
	c.Middlewares = len(conf.HTTP.Middlewares)
	c.ServersTransports = len(conf.HTTP.ServersTransports)
	t := newTable(conf.HTTP.Routers)
	for name := range conf.HTTP.Routers {
		c.Routers[name] = routerWant{Parses: t.parsed[name] != nil}
	}
	c.Requests = t.requests()
}
