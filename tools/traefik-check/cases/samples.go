package main

import (
	"encoding/json"
	"io"
	"strings"

	"github.com/sliceway/sliceway/rule"
)

// ruleSamples is what -samples writes for one rule: whether package rule
// reads it, and the hosts, paths and headers that test it (samples and
// headerSamples, as the routing check uses them).
type ruleSamples struct {
	Parses  bool      `json:"parses"`
	Hosts   []string  `json:"hosts"`
	Paths   []string  `json:"paths"`
	Headers []headers `json:"headers,omitempty"`
}

// writeSamples reads a JSON list of rules and writes, for each, its
// samples (a JSON list in the same order). The comparison of Traefik's
// own ingress-nginx table with sliceway's output
// (testdata/sliceway_nginx_requests_test.go) asks for them, in Traefik's
// module, which cannot import package rule. Traefik's Host matcher also
// takes a wildcard (Host("*.example.com")), which sliceway writes as a
// HostRegexp: such a host is tried as a name under it, and as the bare
// domain.
func writeSamples(in io.Reader, out io.Writer) error {
	var rules []string
	if err := json.NewDecoder(in).Decode(&rules); err != nil {
		return err
	}
	list := make([]ruleSamples, len(rules))
	for i, text := range rules {
		expr, err := rule.Parse(text)
		if err != nil {
			continue
		}
		s := ruleSamples{Parses: true}
		s.Hosts, s.Paths = samples(expr)
		for _, m := range rule.Matchers(expr) {
			if domain, ok := strings.CutPrefix(m.Value, "*."); ok && m.Name == rule.Host {
				s.Hosts = append(s.Hosts, "one."+domain, domain)
			}
		}
		s.Headers = headerSamples(expr)
		list[i] = s
	}
	return json.NewEncoder(out).Encode(list)
}
