package traefike2e

import (
	"fmt"
	"net/http"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"
)

// slicewayFlags are given to both `sliceway serve` and the `sliceway
// render` the suite compares it with. The echo backends are FQDN slices
// of 127.0.0.1, which a provider uses only when told to. A file of cases
// for another provider appends that provider's flags in its init, e.g.
// --providers.kubernetesingressnginx=true and its own
// allowfqdnendpoints/allowloopbackendpoints.
var slicewayFlags = []string{
	"--providers.kubernetesingress.allowfqdnendpoints=true",
	"--providers.kubernetesingress.allowloopbackendpoints=true",
}

// cases are every case of the suite, registered by the case files' init
// functions, in the order the files are compiled (by name).
var cases []Case

func register(cs ...Case) { cases = append(cases, cs...) }

var caseName = regexp.MustCompile(`^[a-z0-9]([-a-z0-9]{0,61}[a-z0-9])?$`)

// suite is what the cases share: one sliceway serve, one Traefik.
type suite struct {
	manifests *manifests
	converger *converger
	ports     traefikPorts
	client    *http.Client
}

// TestTraefik runs every case through a real Traefik that polls a real
// `sliceway serve` of the cases' manifests. tools/traefik-e2e/run (part
// of make check-traefik) builds both and names them.
func TestTraefik(t *testing.T) {
	traefikBin, slicewayBin := os.Getenv("SLICEWAY_E2E_TRAEFIK"), os.Getenv("SLICEWAY_E2E_SLICEWAY")
	if traefikBin == "" || slicewayBin == "" {
		t.Skip("SLICEWAY_E2E_TRAEFIK and SLICEWAY_E2E_SLICEWAY are not set: run make check-traefik " +
			"(or bash tools/traefik-e2e/run), which builds Traefik and sliceway and sets them")
	}
	if err := checkCases(cases); err != nil {
		t.Fatal(err)
	}
	dir, logDir := t.TempDir(), t.TempDir()
	s := &suite{manifests: &manifests{dir: dir, backends: newBackends(t), certs: newCertificates(), cas: newClientCAs()}}
	for i := range cases {
		if err := s.manifests.write(&cases[i], cases[i].Manifests); err != nil {
			t.Fatal(err)
		}
	}
	serveBase, serve := startServe(t, slicewayBin, dir, logDir, slicewayFlags)
	ports, traefik := startTraefik(t, traefikBin, serveBase, logDir)
	t.Cleanup(func() {
		if t.Failed() {
			for _, f := range []string{"sliceway.log", "traefik.log", "traefik.out", "access.log"} {
				t.Logf("%s:\n%s", f, tail(filepath.Join(logDir, f), 80))
			}
		}
	})
	s.converger = &converger{slicewayBin: slicewayBin, dir: dir, flags: slicewayFlags, serve: serve, serveBase: serveBase,
		traefik: traefik, apiBase: fmt.Sprintf("http://127.0.0.1:%d", ports.api)}
	s.ports, s.client = ports, newClient(ports, nil, "")
	s.converger.wait(t)

	for i := range cases {
		c := &cases[i]
		t.Run(c.Name, func(t *testing.T) { s.run(t, c) })
	}
}

func checkCases(cs []Case) error {
	seen := map[string]bool{}
	for _, c := range cs {
		if !caseName.MatchString(c.Name) {
			return fmt.Errorf("case %q: a name must be a DNS label (its namespace and its host's first label)", c.Name)
		}
		if seen[c.Name] {
			return fmt.Errorf("case %q: two cases have this name", c.Name)
		}
		seen[c.Name] = true
		if len(c.Requests) == 0 && len(c.Updates) == 0 {
			return fmt.Errorf("case %q: no requests", c.Name)
		}
		for _, rs := range append([][]Request{c.Requests}, updateRequests(c.Updates)...) {
			for i, r := range rs {
				if r.Burst < 0 || r.Burst > maxBurst || (r.Burst > 0) != (len(r.Statuses) > 0) {
					return fmt.Errorf("case %q: request %d (%s): a burst is 1 to %d requests with Statuses, and Statuses need a burst", c.Name, i+1, r.URL, maxBurst)
				}
			}
		}
	}
	return nil
}

func updateRequests(us []Update) [][]Request {
	var out [][]Request
	for _, u := range us {
		out = append(out, u.Requests)
	}
	return out
}

// run sends the case's requests and checks its errors, then applies each
// update and sends its.
func (s *suite) run(t *testing.T, c *Case) {
	s.requests(t, c, c.Requests)
	for _, w := range missingReports(s.converger.firstReports, c.Name, c.Errors) {
		t.Errorf("sliceway does not report %q about namespace %s; its reports there:\n%s", w, c.Name,
			strings.Join(s.converger.firstReports[c.Name], "\n"))
	}
	for i, u := range c.Updates {
		if t.Failed() {
			return // later steps build on this one
		}
		if err := s.manifests.write(c, u.Manifests); err != nil {
			t.Fatalf("update %d: %v", i+1, err)
		}
		s.converger.wait(t)
		s.requests(t, c, u.Requests)
	}
}

func (s *suite) requests(t *testing.T, c *Case, rs []Request) {
	t.Helper()
	for i := range rs {
		s.request(t, c, &rs[i])
	}
}

// request sends r (until each of r.Backends has answered, for a
// balancing check) and reports the first answer that is wrong.
func (s *suite) request(t *testing.T, c *Case, r *Request) {
	t.Helper()
	if r.Burst > 0 {
		s.burst(t, c, r)
		return
	}
	client := s.client
	if r.ClientCert != "" {
		key := r.ClientCert
		if !strings.Contains(key, "/") {
			key = c.Name + "/" + key
		}
		cert := s.manifests.cas.certificate(key)
		if cert == nil {
			s.fail(t, c, r, nil, []string{"no case wrote the caSecret " + key})
			return
		}
		client = newClient(s.ports, cert, r.From)
	} else if r.From != "" {
		client = newClient(s.ports, nil, r.From)
	}
	tries := 1
	if len(r.Backends) > 0 {
		tries = balanceTries
	}
	seen := map[string]bool{}
	var last *Response
	for range tries {
		res, err := send(client, c, r)
		if r.TLSAlert != "" {
			if err == nil || !strings.Contains(err.Error(), "tls: "+r.TLSAlert) {
				s.fail(t, c, r, res, []string{fmt.Sprintf("error %v, want the TLS alert %q", err, r.TLSAlert)})
			}
			return
		}
		if err != nil {
			s.fail(t, c, r, nil, []string{err.Error()})
			return
		}
		last = res
		wrong := r.check(res, s.manifests.certs, c.Name)
		if len(r.Backends) > 0 && !slices.Contains(r.Backends, res.Backend) {
			wrong = append(wrong, fmt.Sprintf("answered by %s, not one of %v", answeredBy(res), r.Backends))
		}
		if len(wrong) > 0 {
			s.fail(t, c, r, res, wrong)
			return
		}
		seen[res.Backend] = true
		if len(seen) == len(r.Backends) || len(r.Backends) == 0 {
			return
		}
	}
	s.fail(t, c, r, last, []string{fmt.Sprintf("after %d requests only %s answered, want each of %v",
		tries, strings.Join(sortedKeys(seen), ", "), r.Backends)})
}

func (s *suite) fail(t *testing.T, c *Case, r *Request, res *Response, wrong []string) {
	t.Helper()
	raw, err := s.converger.rawdata()
	t.Error(report(c, r, res, wrong, raw, err))
}
