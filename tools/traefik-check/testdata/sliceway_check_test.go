package http

// This file is copied into Traefik's pkg/provider/http by
// tools/traefik-check/run; it is not part of sliceway's build. It reads
// the cases that tools/traefik-check/cases wrote (SLICEWAY_CASES) and
// gives each configuration to Traefik's own code: the HTTP provider's
// decoder, the file provider (a template, then the same decoder), the
// certificate loader, and
// the HTTP router (the request decorator that finds the request's host,
// then the muxer, with the priorities Traefik's router manager gives).

import (
	"context"
	"crypto/tls"
	"encoding/json"
	"fmt"
	"math"
	"net/http"
	"net/http/httptest"
	"net/url"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/traefik/traefik/v3/pkg/config/dynamic"
	"github.com/traefik/traefik/v3/pkg/middlewares/requestdecorator"
	httpmuxer "github.com/traefik/traefik/v3/pkg/muxer/http"
	"github.com/traefik/traefik/v3/pkg/provider/file"
)

type slicewayCases struct {
	Cases []slicewayCase `json:"cases"`
}

type slicewayCase struct {
	Name              string                    `json:"name"`
	JSON              string                    `json:"json"`
	YAML              string                    `json:"yaml"`
	Routers           map[string]slicewayRouter `json:"routers"`
	Services          int                       `json:"services"`
	Middlewares       int                       `json:"middlewares"`
	ServersTransports int                       `json:"serversTransports"`
	TLSOptions        int                       `json:"tlsOptions"`
	Certificates      int                       `json:"certificates"`
	Requests          []slicewayRequest         `json:"requests"`
}

type slicewayRouter struct {
	Parses bool `json:"parses"` // whether sliceway's rule package reads the rule
}

type slicewayRequest struct {
	EntryPoint string            `json:"entryPoint"`
	TLS        bool              `json:"tls"`
	Host       string            `json:"host"`
	Path       string            `json:"path"`
	Header     map[string]string `json:"header"`
	Router     string            `json:"router"`
	Tied       []string          `json:"tied"`
	Service    string            `json:"service"`
}

// readSlicewayCases reads the file named by SLICEWAY_CASES.
func readSlicewayCases(t *testing.T) slicewayCases {
	t.Helper()
	data, err := os.ReadFile(os.Getenv("SLICEWAY_CASES"))
	if err != nil {
		t.Fatalf("SLICEWAY_CASES: %v", err)
	}
	var file slicewayCases
	if err := json.Unmarshal(data, &file); err != nil {
		t.Fatal(err)
	}
	return file
}

// The largest priority a router of a provider may have (pkg/server/router).
const slicewayMaxUserPriority = math.MaxInt - 1000

func TestSlicewayConfigurations(t *testing.T) {
	file := readSlicewayCases(t)
	if len(file.Cases) == 0 {
		t.Fatal("no cases")
	}
	parser, err := httpmuxer.NewSyntaxParser()
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range file.Cases {
		t.Run(c.Name, func(t *testing.T) {
			var conf *dynamic.Configuration
			for _, text := range []struct {
				format, text string
				read         func(string) (*dynamic.Configuration, error)
			}{{"JSON (serve), by the HTTP provider", c.JSON, slicewayHTTPProvider}, {"YAML (watch --output), by the file provider", c.YAML, slicewayFileProvider(t)}} {
				got, err := text.read(text.text)
				if err != nil {
					t.Fatalf("the %s text is refused: %v", text.format, err)
				}
				checkRead(t, text.format, &c, got)
				if conf == nil {
					conf = got
				}
			}
			for i, cert := range conf.TLS.Certificates {
				if _, err := cert.Certificate.GetCertificate(); err != nil {
					t.Errorf("certificate %d: %v", i, err)
				}
			}
			checkRouting(t, parser, conf, c.Routers, c.Requests)
		})
	}
}

// slicewayHTTPProvider reads a text as Traefik's HTTP provider reads a
// response.
func slicewayHTTPProvider(text string) (*dynamic.Configuration, error) {
	return decodeConfiguration([]byte(text))
}

// slicewayFileProvider reads a text as Traefik's file provider reads a
// file: a Go template first (with Sprig's functions), then YAML.
func slicewayFileProvider(t *testing.T) func(string) (*dynamic.Configuration, error) {
	return func(text string) (*dynamic.Configuration, error) {
		name := filepath.Join(t.TempDir(), "sliceway.yaml")
		if err := os.WriteFile(name, []byte(text), 0o644); err != nil {
			return nil, err
		}
		p := &file.Provider{Filename: name}
		return p.CreateConfiguration(context.Background(), name, nil, false)
	}
}

// checkRead compares what Traefik read with what sliceway wrote: as many
// routers, services, middlewares, servers transports, TLS options and
// certificates, and every value of each (checkFields).
func checkRead(t *testing.T, format string, c *slicewayCase, got *dynamic.Configuration) {
	t.Helper()
	for _, n := range []struct {
		what       string
		read, want int
	}{
		{"routers", len(got.HTTP.Routers), len(c.Routers)},
		{"services", len(got.HTTP.Services), c.Services},
		{"middlewares", len(got.HTTP.Middlewares), c.Middlewares},
		{"servers transports", len(got.HTTP.ServersTransports), c.ServersTransports},
		{"TLS options", len(got.TLS.Options), c.TLSOptions},
		{"certificates", len(got.TLS.Certificates), c.Certificates},
	} {
		if n.read != n.want {
			t.Errorf("%s: Traefik read %d %s, sliceway wrote %d", format, n.read, n.what, n.want)
		}
	}
	checkFields(t, format, c.JSON, got)
}

// checkFields checks that every value sliceway wrote (its JSON text) is
// what Traefik read, field by field: Traefik's configuration written back
// as JSON holds each of them, with the same value. (It may hold more: the
// defaults Traefik gives what was left out.) Two values Traefik's file and
// HTTP providers skip (it fills them only in its own Kubernetes
// providers): a server's "fenced", which is why fenced servers also carry
// weight 0, and a router's observability "metadata". Three ways of writing
// the same value count as the same: a zero value (false, 0, "", an empty
// list) Traefik leaves out when it writes the field back (both decoders
// refuse a field name Traefik does not know, so the name is Traefik's), a
// duration in another spelling ("1m" read as "1m0s"), and a PEM block
// without the line end after it (Traefik's decoder trims a value's
// surrounding whitespace, which PEM does not mind).
func checkFields(t *testing.T, format, written string, got *dynamic.Configuration) {
	t.Helper()
	var ours, theirs any
	if err := json.Unmarshal([]byte(written), &ours); err != nil {
		t.Fatal(err)
	}
	data, err := json.Marshal(got)
	if err != nil {
		t.Fatal(err)
	}
	if err := json.Unmarshal(data, &theirs); err != nil {
		t.Fatal(err)
	}
	var walk func(path string, ours, theirs any)
	walk = func(path string, ours, theirs any) {
		switch o := ours.(type) {
		case map[string]any:
			th, ok := theirs.(map[string]any)
			if !ok {
				t.Errorf("%s: %s: written %v, read %v", format, path, ours, theirs)
				return
			}
			for k, v := range o {
				if k == "fenced" && strings.Contains(path, ".servers[") || k == "metadata" && strings.HasSuffix(path, ".observability") {
					continue
				}
				tv, ok := th[k]
				if !ok {
					if !slicewayZero(v) {
						t.Errorf("%s: %s.%s: written %v, not read", format, path, k, v)
					}
					continue
				}
				walk(path+"."+k, v, tv)
			}
		case []any:
			th, ok := theirs.([]any)
			if !ok || len(th) != len(o) {
				t.Errorf("%s: %s: written %v, read %v", format, path, ours, theirs)
				return
			}
			for i := range o {
				walk(fmt.Sprintf("%s[%d]", path, i), o[i], th[i])
			}
		default:
			if !reflect.DeepEqual(ours, theirs) && !slicewaySameText(ours, theirs) {
				t.Errorf("%s: %s: written %v, read %v", format, path, ours, theirs)
			}
		}
	}
	walk("", ours, theirs)
}

// slicewayZero says whether a JSON value is the zero value of its type.
func slicewayZero(v any) bool {
	switch v := v.(type) {
	case bool:
		return !v
	case float64:
		return v == 0
	case string:
		return v == ""
	case []any:
		return len(v) == 0
	case map[string]any:
		return len(v) == 0
	}
	return v == nil
}

// slicewaySameText says whether two strings are the same duration, or
// the same PEM block but for the whitespace around it.
func slicewaySameText(ours, theirs any) bool {
	a, ok := ours.(string)
	b, ok2 := theirs.(string)
	if !ok || !ok2 {
		return false
	}
	if da, err := time.ParseDuration(a); err == nil {
		db, err := time.ParseDuration(b)
		return err == nil && da == db
	}
	return strings.HasPrefix(a, "-----BEGIN ") && strings.TrimSpace(a) == strings.TrimSpace(b)
}

// checkRouting builds Traefik's router for each entry point, TLS or not,
// as its router manager does, and sends each request through it.
func checkRouting(t *testing.T, parser httpmuxer.SyntaxParser, conf *dynamic.Configuration, want map[string]slicewayRouter, requests []slicewayRequest) {
	t.Helper()
	type groupKey struct {
		entryPoint string
		tls        bool
	}
	var named []string
	for _, r := range conf.HTTP.Routers {
		for _, ep := range r.EntryPoints {
			if !slices.Contains(named, ep) {
				named = append(named, ep)
			}
		}
	}
	if len(named) == 0 {
		named = []string{"web"}
	}
	muxers := map[groupKey]*httpmuxer.Muxer{}
	for name, r := range conf.HTTP.Routers {
		priority := r.Priority
		if priority == 0 {
			priority = httpmuxer.GetRulePriority(r.Rule)
		}
		if priority > slicewayMaxUserPriority {
			t.Errorf("router %s: priority %d is above what Traefik allows a provider", name, priority)
			continue
		}
		eps := r.EntryPoints
		if len(eps) == 0 {
			eps = named
		}
		handler := http.HandlerFunc(func(rw http.ResponseWriter, _ *http.Request) { rw.Header().Set("X-Router", name) })
		for _, ep := range eps {
			k := groupKey{ep, r.TLS != nil}
			if muxers[k] == nil {
				muxers[k] = httpmuxer.NewMuxer(parser, nil)
			}
			err := muxers[k].AddRoute(r.Rule, r.RuleSyntax, priority, "http", handler)
			switch {
			case err != nil && want[name].Parses:
				t.Errorf("router %s: Traefik refuses the rule that sliceway reads: %v", name, err)
			case err == nil && !want[name].Parses:
				t.Errorf("router %s: Traefik takes the rule %q that sliceway does not read", name, r.Rule)
			}
		}
	}
	decorator := requestdecorator.New(nil)
	var ambiguous []string
	for _, q := range requests {
		mux := muxers[groupKey{q.EntryPoint, q.TLS}]
		if mux == nil {
			t.Errorf("no router on entry point %s (tls %v)", q.EntryPoint, q.TLS)
			continue
		}
		req, err := slicewayRequestFor(q)
		if err != nil {
			t.Errorf("%s%s: %v", q.Host, q.Path, err)
			continue
		}
		rec := httptest.NewRecorder()
		decorator.ServeHTTP(rec, req, mux.ServeHTTP)
		got := rec.Header().Get("X-Router")
		where := q.EntryPoint
		if q.TLS {
			where += " over TLS"
		}
		if len(q.Header) > 0 {
			where += fmt.Sprintf(" with headers %v", q.Header)
		}
		switch {
		case q.Service != "":
			var service string
			if r := conf.HTTP.Routers[got]; r != nil {
				service = r.Service
			}
			if service != q.Service {
				t.Errorf("%s%s on %s: Traefik routes it to router %q (service %q); the Ingress specification wants service %q", q.Host, q.Path, where, got, service, q.Service)
			}
		case len(q.Tied) > 0:
			if !slices.Contains(q.Tied, got) {
				t.Errorf("%s%s on %s: Traefik routes it to %q, not one of the tied routers %q", q.Host, q.Path, where, got, q.Tied)
			}
			ambiguous = append(ambiguous, q.Host+q.Path+" on "+where+": "+strings.Join(q.Tied, ", "))
		case got != q.Router:
			t.Errorf("%s%s on %s: Traefik routes it to %q; sliceway's reading of the rules says %q", q.Host, q.Path, where, got, q.Router)
		}
	}
	for _, a := range ambiguous {
		t.Errorf("ambiguous: routers of the same priority all match %s (Traefik picks one by map order)", a)
	}
}

// slicewayRequestFor is the request as Traefik's server reads it off the
// wire, the path percent-encoded as RFC 3986 lets a client send it:
// unreserved characters, sub-delimiters, ":", "@" and "/" as they are,
// every other byte encoded. (Traefik routes on the path with reserved
// characters left as the client sent them, so a client that encodes a
// sub-delimiter, or a "|" that makes Go's server encode all of them
// again, does not match a rule that holds it.)
func slicewayRequestFor(q slicewayRequest) (*http.Request, error) {
	var wire strings.Builder
	for i := 0; i < len(q.Path); i++ {
		c := q.Path[i]
		switch {
		case 'a' <= c && c <= 'z', 'A' <= c && c <= 'Z', '0' <= c && c <= '9', strings.IndexByte("-._~!$&'()*+,;=:@/", c) >= 0:
			wire.WriteByte(c)
		default:
			fmt.Fprintf(&wire, "%%%02X", c)
		}
	}
	u, err := url.ParseRequestURI(wire.String())
	if err != nil {
		return nil, err
	}
	req := httptest.NewRequest(http.MethodGet, "http://placeholder/", nil)
	req.URL = u
	req.RequestURI = u.RequestURI()
	req.Host = q.Host
	for k, v := range q.Header {
		req.Header.Set(k, v)
	}
	if q.TLS {
		req.TLS = &tls.ConnectionState{ServerName: strings.Split(q.Host, ":")[0]}
	}
	return req, nil
}
