package traefike2e

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"os/exec"
	"slices"
	"strings"
	"testing"
	"time"
)

// convergeTimeout bounds each wait for a configuration to travel: from
// the manifest files to serve's /api/config, then from there to Traefik's
// routers.
const convergeTimeout = 30 * time.Second

// config is the part of a dynamic configuration the suite compares: what
// sliceway wrote, and what Traefik's /api/rawdata says it runs (its
// routers and services carry "@http", and status and errors of their own).
type config struct {
	Routers  map[string]router  `json:"routers"`
	Services map[string]service `json:"services"`
}

type router struct {
	EntryPoints []string        `json:"entryPoints,omitempty"`
	Rule        string          `json:"rule"`
	Service     string          `json:"service"`
	Priority    int             `json:"priority,omitempty"`
	Middlewares []string        `json:"middlewares,omitempty"`
	TLS         json.RawMessage `json:"tls,omitempty"`
	Status      string          `json:"status,omitempty"`
	Error       []string        `json:"error,omitempty"`
	Using       []string        `json:"using,omitempty"`
}

type service struct {
	LoadBalancer *struct {
		Servers []struct {
			URL string `json:"url"`
		} `json:"servers"`
	} `json:"loadBalancer,omitempty"`
	Status       string            `json:"status,omitempty"`
	Error        []string          `json:"error,omitempty"`
	ServerStatus map[string]string `json:"serverStatus,omitempty"`
}

func (s service) serverURLs() []string {
	if s.LoadBalancer == nil {
		return nil
	}
	var urls []string
	for _, sv := range s.LoadBalancer.Servers {
		urls = append(urls, sv.URL)
	}
	slices.Sort(urls)
	return urls
}

// converger makes each step of the suite wait until what the manifests
// say is what Traefik runs.
type converger struct {
	slicewayBin string
	dir         string
	flags       []string
	serve       *process
	serveBase   string
	traefik     *process
	apiBase     string
	// firstReports are the errors and warnings of the first render, by
	// namespace (parseReports).
	firstReports map[string][]string
}

// wait renders the manifests once with `sliceway render` (the same code
// and flags as serve: the same cluster always gives the same
// configuration), waits until serve's /api/config is that configuration,
// then until Traefik's routers and services are those of it.
func (c *converger) wait(t *testing.T) {
	t.Helper()
	want, reports := c.render(t)
	if c.firstReports == nil {
		c.firstReports = reports
	}
	waitFor(t, c.serve, convergeTimeout, "sliceway serve to follow the manifests to the configuration `sliceway render` gives", func() (bool, string) {
		got, err := fetch(c.serveBase + "/api/config")
		if err != nil {
			return false, err.Error()
		}
		return configDiff(want, got)
	})
	var wantConf struct {
		HTTP config `json:"http"`
	}
	if err := json.Unmarshal(want, &wantConf); err != nil {
		t.Fatalf("sliceway render: %v", err)
	}
	waitFor(t, c.traefik, convergeTimeout, "Traefik to run sliceway's routers and services", func() (bool, string) {
		raw, err := c.rawdata()
		if err != nil {
			return false, err.Error()
		}
		problems := traefikDiff(wantConf.HTTP, raw)
		return len(problems) == 0, strings.Join(problems, "; ")
	})
}

// render is the configuration `sliceway render` makes of the manifests,
// and what it reports about them, by namespace.
func (c *converger) render(t *testing.T) ([]byte, map[string][]string) {
	t.Helper()
	cmd := exec.Command(c.slicewayBin, append([]string{"render", "--manifests=" + c.dir, "--format=json", "--log.format=json"}, c.flags...)...)
	cmd.Env = configuredByArgs()
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("sliceway render of the cases' manifests: %v\n%s", err, stderr.String())
	}
	return out, parseReports(stderr.Bytes())
}

// rawdata is Traefik's runtime configuration (all of it: /api/http/routers
// pages its answer).
func (c *converger) rawdata() (config, error) {
	var raw config
	body, err := fetch(c.apiBase + "/api/rawdata")
	if err != nil {
		return raw, err
	}
	return raw, json.Unmarshal(body, &raw)
}

func fetch(url string) ([]byte, error) {
	res, err := probe.Get(url)
	if err != nil {
		return nil, err
	}
	defer func() { _ = res.Body.Close() }()
	body, err := io.ReadAll(res.Body)
	if err != nil {
		return nil, err
	}
	if res.StatusCode != 200 {
		return nil, fmt.Errorf("GET %s: %s: %.300s", url, res.Status, body)
	}
	return body, nil
}

// configDiff says whether two JSON configurations are the same value, and
// if not, which routers and services tell them apart.
func configDiff(want, got []byte) (bool, string) {
	var w, g any
	if err := json.Unmarshal(want, &w); err != nil {
		return false, "render: " + err.Error()
	}
	if err := json.Unmarshal(got, &g); err != nil {
		return false, "serve: " + err.Error()
	}
	wj, _ := json.Marshal(w) // maps marshal with sorted keys
	gj, _ := json.Marshal(g)
	if bytes.Equal(wj, gj) {
		return true, ""
	}
	var wc, gc struct {
		HTTP struct {
			Routers  map[string]json.RawMessage `json:"routers"`
			Services map[string]json.RawMessage `json:"services"`
		} `json:"http"`
	}
	_ = json.Unmarshal(want, &wc)
	_ = json.Unmarshal(got, &gc)
	var diffs []string
	for _, kind := range []struct {
		name      string
		want, got map[string]json.RawMessage
	}{{"router", wc.HTTP.Routers, gc.HTTP.Routers}, {"service", wc.HTTP.Services, gc.HTTP.Services}} {
		for name, v := range kind.want {
			if gv, ok := kind.got[name]; !ok {
				diffs = append(diffs, kind.name+" "+name+" not served yet")
			} else if !jsonEqual(v, gv) {
				diffs = append(diffs, kind.name+" "+name+" differs")
			}
		}
		for name := range kind.got {
			if _, ok := kind.want[name]; !ok {
				diffs = append(diffs, kind.name+" "+name+" still served")
			}
		}
	}
	if len(diffs) == 0 {
		diffs = append(diffs, "the configurations differ outside HTTP routers and services (TLS?)")
	}
	slices.Sort(diffs)
	return false, strings.Join(diffs, "; ")
}

func jsonEqual(a, b json.RawMessage) bool {
	var x, y any
	if json.Unmarshal(a, &x) != nil || json.Unmarshal(b, &y) != nil {
		return false
	}
	xj, _ := json.Marshal(x)
	yj, _ := json.Marshal(y)
	return bytes.Equal(xj, yj)
}

// modelEntryPoints are the entry points whose model (http.tls) makes
// Traefik copy a router that has several entry points, as
// "<entrypoint>-<name>".
var modelEntryPoints = []string{"web", "websecure"}

// runtimeNames are the names Traefik gives router name of the HTTP
// provider: name@http, or one copy per entry point with a model.
func runtimeNames(raw config, name string) []string {
	var names []string
	for key := range raw.Routers {
		base, ok := strings.CutSuffix(key, "@http")
		if !ok {
			continue
		}
		if base == name {
			names = append(names, key)
			continue
		}
		for _, ep := range modelEntryPoints {
			if base == ep+"-"+name {
				names = append(names, key)
			}
		}
	}
	slices.Sort(names)
	return names
}

// traefikDiff lists how Traefik's runtime configuration differs from
// sliceway's: a router missing, another rule, a router left over; a
// service missing, other servers, one left over.
func traefikDiff(want, raw config) []string {
	var problems []string
	seen := map[string]bool{}
	for name, r := range want.Routers {
		keys := runtimeNames(raw, name)
		if len(keys) == 0 {
			problems = append(problems, "router "+name+" is not in Traefik")
		}
		for _, k := range keys {
			seen[k] = true
			if got := raw.Routers[k]; got.Rule != r.Rule {
				problems = append(problems, fmt.Sprintf("router %s: rule %q, sliceway's is %q", k, got.Rule, r.Rule))
			}
		}
	}
	for key := range raw.Routers {
		if strings.HasSuffix(key, "@http") && !seen[key] {
			problems = append(problems, "router "+key+" is still in Traefik")
		}
	}
	for name, s := range want.Services {
		got, ok := raw.Services[name+"@http"]
		if !ok {
			problems = append(problems, "service "+name+" is not in Traefik")
			continue
		}
		if w, g := s.serverURLs(), got.serverURLs(); !slices.Equal(w, g) {
			problems = append(problems, fmt.Sprintf("service %s: servers %v, sliceway's are %v", name, g, w))
		}
	}
	for key := range raw.Services {
		name, ok := strings.CutSuffix(key, "@http")
		if _, wanted := want.Services[name]; ok && !wanted {
			problems = append(problems, "service "+key+" is still in Traefik")
		}
	}
	slices.Sort(problems)
	return problems
}
