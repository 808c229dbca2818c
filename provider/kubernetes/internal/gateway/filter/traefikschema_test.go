package filter

import (
	"bytes"
	"encoding/json"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
	"github.com/traefik/paerser/file"
	ptypes "github.com/traefik/paerser/types"
	gwapiv1 "sigs.k8s.io/gateway-api/apis/v1"

	"github.com/sliceway/sliceway/config/dynamic"
)

// The types below hold the part of Traefik v3.7's dynamic configuration
// (pkg/config/dynamic, v3.7.0 to v3.7.9) that this package writes: the
// same Go names, types and decoding tags, so that decoding into them is
// what Traefik's deliveries do. Traefik's file and HTTP providers decode
// with paerser's file.DecodeContent (v0.2.2, the version Traefik v3.7
// and sliceway use), which matches fields by Go name and skips any
// field tagged file:"-"; its provider plugin hands JSON to
// encoding/json, which reads every field with a json name.

type traefikConfiguration struct {
	HTTP *traefikHTTP `json:"http,omitempty"`
}

type traefikHTTP struct {
	Middlewares       map[string]*traefikMiddleware       `json:"middlewares,omitempty"`
	Services          map[string]*traefikService          `json:"services,omitempty"`
	ServersTransports map[string]*traefikServersTransport `json:"serversTransports,omitempty"`
}

type traefikMiddleware struct {
	Headers          *traefikHeaders          `json:"headers,omitempty"`
	RedirectRegex    *traefikRedirectRegex    `json:"redirectRegex,omitempty"`
	ReplacePath      *traefikReplacePath      `json:"replacePath,omitempty"`
	ReplacePathRegex *traefikReplacePathRegex `json:"replacePathRegex,omitempty"`

	// Traefik's Gateway API middlewares, tagged as Traefik tags them.
	RequestHeaderModifier  *traefikHeaderModifier  `json:"requestHeaderModifier,omitempty" toml:"-" yaml:"-" label:"-" file:"-" kv:"-"`
	ResponseHeaderModifier *traefikHeaderModifier  `json:"responseHeaderModifier,omitempty" toml:"-" yaml:"-" label:"-" file:"-" kv:"-"`
	RequestRedirect        *traefikRequestRedirect `json:"requestRedirect,omitempty" toml:"-" yaml:"-" label:"-" file:"-" kv:"-"`
	URLRewrite             *traefikURLRewrite      `json:"URLRewrite,omitempty" toml:"-" yaml:"-" label:"-" file:"-" kv:"-"`

	Retry *traefikRetry `json:"retry,omitempty"`
}

type traefikRetry struct {
	Attempts        int             `json:"attempts,omitempty"`
	Timeout         ptypes.Duration `json:"timeout,omitempty"`
	InitialInterval ptypes.Duration `json:"initialInterval,omitempty"`
	Status          []string        `json:"status,omitempty"`
}

type traefikHeaders struct {
	CustomRequestHeaders              map[string]string `json:"customRequestHeaders,omitempty"`
	CustomResponseHeaders             map[string]string `json:"customResponseHeaders,omitempty"`
	AccessControlAllowCredentials     bool              `json:"accessControlAllowCredentials,omitempty"`
	AccessControlAllowHeaders         []string          `json:"accessControlAllowHeaders,omitempty"`
	AccessControlAllowMethods         []string          `json:"accessControlAllowMethods,omitempty"`
	AccessControlAllowOriginList      []string          `json:"accessControlAllowOriginList,omitempty"`
	AccessControlAllowOriginListRegex []string          `json:"accessControlAllowOriginListRegex,omitempty"`
	AccessControlExposeHeaders        []string          `json:"accessControlExposeHeaders,omitempty"`
	AccessControlMaxAge               *int64            `json:"accessControlMaxAge,omitempty"`
	AddVaryHeader                     bool              `json:"addVaryHeader,omitempty"`
}

type traefikRedirectRegex struct {
	Regex       string `json:"regex,omitempty"`
	Replacement string `json:"replacement,omitempty"`
	Permanent   bool   `json:"permanent,omitempty"`
}

type traefikReplacePath struct {
	Path string `json:"path,omitempty"`
}

type traefikReplacePathRegex struct {
	Regex       string `json:"regex,omitempty"`
	Replacement string `json:"replacement,omitempty"`
}

type traefikHeaderModifier struct {
	Set    map[string]string `json:"set,omitempty"`
	Add    map[string]string `json:"add,omitempty"`
	Remove []string          `json:"remove,omitempty"`
}

type traefikRequestRedirect struct {
	Scheme     *string `json:"scheme,omitempty"`
	Hostname   *string `json:"hostname,omitempty"`
	Port       *string `json:"port,omitempty"`
	Path       *string `json:"path,omitempty"`
	PathPrefix *string `json:"pathPrefix,omitempty"`
	StatusCode int     `json:"statusCode,omitempty"`
}

type traefikURLRewrite struct {
	Hostname   *string `json:"hostname,omitempty"`
	Path       *string `json:"path,omitempty"`
	PathPrefix *string `json:"pathPrefix,omitempty"`
}

type traefikService struct {
	Mirroring *traefikMirroring `json:"mirroring,omitempty"`
}

type traefikMirroring struct {
	Service     string                 `json:"service,omitempty"`
	MirrorBody  *bool                  `json:"mirrorBody,omitempty"`
	MaxBodySize *int64                 `json:"maxBodySize,omitempty"`
	Mirrors     []traefikMirrorService `json:"mirrors,omitempty"`
}

type traefikMirrorService struct {
	Name    string `json:"name,omitempty"`
	Percent int    `json:"percent,omitempty"`
}

type traefikServersTransport struct {
	ForwardingTimeouts *traefikForwardingTimeouts `json:"forwardingTimeouts,omitempty"`
}

type traefikForwardingTimeouts struct {
	DialTimeout           ptypes.Duration `json:"dialTimeout,omitempty"`
	ResponseHeaderTimeout ptypes.Duration `json:"responseHeaderTimeout,omitempty"`
	IdleConnTimeout       ptypes.Duration `json:"idleConnTimeout,omitempty"`
}

// decodeEach decodes text as Traefik's HTTP provider (paerser, with the
// content read as YAML), file provider (paerser, a .json file) and
// provider plugin (encoding/json; unknown fields refused here, which
// Traefik would ignore, to catch a misspelt name) do.
func decodeEach(t *testing.T, text []byte) (httpProvider, fileProvider, plugin traefikConfiguration) {
	t.Helper()
	require.NoError(t, file.DecodeContent(string(text), ".yaml", &httpProvider))
	require.NoError(t, file.DecodeContent(string(text), ".json", &fileProvider))
	dec := json.NewDecoder(bytes.NewReader(text))
	dec.DisallowUnknownFields()
	require.NoError(t, dec.Decode(&plugin))
	return httpProvider, fileProvider, plugin
}

// configurationOf is the JSON of a configuration holding middlewares,
// and optionally a service and a servers transport, as sliceway
// writes it.
func configurationOf(t *testing.T, mws []NamedMiddleware, mirroring *dynamic.Mirroring, timeouts *dynamic.ForwardingTimeouts) []byte {
	t.Helper()
	http := map[string]any{}
	if len(mws) > 0 {
		m := map[string]dynamic.Middleware{}
		for _, mw := range mws {
			m[mw.Name] = mw.Middleware
		}
		http["middlewares"] = m
	}
	if mirroring != nil {
		http["services"] = map[string]*dynamic.Service{"mirrored": {Mirroring: mirroring}} // as config/dynamic writes it
	}
	if timeouts != nil {
		http["serversTransports"] = map[string]any{"timed": &dynamic.ServersTransport{ForwardingTimeouts: timeouts}}
	}
	text, err := json.Marshal(map[string]any{"http": http})
	require.NoError(t, err)
	return text
}

// Every Portable middleware reaches Traefik whole through every
// delivery, a header removal (an empty value) included.
func TestPortableDecodedByEveryDelivery(t *testing.T) {
	r := &gwapiv1.HTTPRouteRule{
		Matches: prefixMatch("/prefix"),
		Filters: []gwapiv1.HTTPRouteFilter{
			requestHeaders(gwapiv1.HTTPHeaderFilter{Set: []gwapiv1.HTTPHeader{header("X-Header-Set", "v")}, Remove: []string{"X-Header-Remove"}}),
			responseHeaders(gwapiv1.HTTPHeaderFilter{Remove: []string{"Server"}}),
			{Type: gwapiv1.HTTPRouteFilterCORS, CORS: &gwapiv1.HTTPCORSFilter{
				AllowOrigins: origins("https://www.foo.com", "https://*.bar.com"), AllowCredentials: new(true),
				AllowMethods: []gwapiv1.HTTPMethodWithWildcard{"GET", "OPTIONS"}, MaxAge: 3600}},
			{Type: gwapiv1.HTTPRouteFilterURLRewrite, URLRewrite: &gwapiv1.HTTPURLRewriteFilter{
				Hostname: new(gwapiv1.PreciseHostname("h.example")), Path: prefixRewrite("/one")}},
		},
	}
	res, err := HTTPRuleFilters(Env{}, rule0, "r", r)
	require.NoError(t, err)
	redirect, err := HTTPRuleFilters(Env{Listener: Listener{Scheme: "http", Port: 80}}, rule0, "d",
		redirectRule(gwapiv1.HTTPRequestRedirectFilter{Scheme: new("https"), StatusCode: new(301)}, nil))
	require.NoError(t, err)
	full, err := HTTPRuleFilters(Env{}, rule0, "f", rewriteRule(gwapiv1.HTTPURLRewriteFilter{Path: &gwapiv1.HTTPPathModifier{
		Type: gwapiv1.FullPathHTTPPathModifier, ReplaceFullPath: new("/one")}}, nil))
	require.NoError(t, err)
	mws := append(append(res.Middlewares, redirect.Middlewares...), full.Middlewares...)
	retry, err := HTTPRuleRetry(rule0, &gwapiv1.HTTPRouteRetry{Codes: []gwapiv1.HTTPRouteRetryStatusCode{500, 503}, Attempts: new(2), Backoff: duration("100ms")},
		&gwapiv1.HTTPRouteTimeouts{Request: duration("10s")})
	require.NoError(t, err)
	mws = append(mws, NamedMiddleware{Name: "retry", Middleware: retry})
	timeouts, err := HTTPRuleTimeouts(rule0, &gwapiv1.HTTPRouteTimeouts{Request: duration("500ms")})
	require.NoError(t, err)
	mirroring := MirroringService("main", []MirrorTarget{{Service: "m1", Percent: 100}, {Service: "m2", Percent: 35}})

	h, f, p := decodeEach(t, configurationOf(t, mws, mirroring, timeouts))
	for _, c := range []traefikConfiguration{h, f, p} {
		m := c.HTTP.Middlewares
		require.Len(t, m, len(mws))
		require.Equal(t, map[string]string{"X-Header-Set": "v", "X-Header-Remove": ""}, m["r-requestheadermodifier-0"].Headers.CustomRequestHeaders)
		require.Equal(t, &traefikRetry{Attempts: 3, Status: []string{"500", "503"}, InitialInterval: ptypes.Duration(200 * time.Millisecond),
			Timeout: ptypes.Duration(10 * time.Second)}, m["retry"].Retry)
		require.Equal(t, map[string]string{"Server": ""}, m["r-responseheadermodifier-1"].Headers.CustomResponseHeaders)
		cors := m["r-cors-2"].Headers
		require.Equal(t, []string{"https://www.foo.com"}, cors.AccessControlAllowOriginList)
		require.Equal(t, []string{`^https://(?:[a-z0-9-]+\.)+bar\.com$`}, cors.AccessControlAllowOriginListRegex)
		require.Equal(t, []string{"GET", "OPTIONS"}, cors.AccessControlAllowMethods)
		require.Equal(t, int64(3600), *cors.AccessControlMaxAge)
		require.True(t, cors.AccessControlAllowCredentials)
		require.True(t, cors.AddVaryHeader)
		require.Equal(t, map[string]string{"Host": "h.example"}, m["r-urlrewrite-3-host"].Headers.CustomRequestHeaders)
		require.Equal(t, &traefikReplacePathRegex{Regex: "^/prefix(?P<rest>/.*)?$", Replacement: "/one${rest}"}, m["r-urlrewrite-3-path"].ReplacePathRegex)
		require.Equal(t, &traefikReplacePath{Path: "/one"}, m["f-urlrewrite-0-path"].ReplacePath)
		rr := m["d-requestredirect-0"].RedirectRegex
		require.Equal(t, "HTTPS://${host}${path}${query}", rr.Replacement)
		require.True(t, rr.Permanent)

		require.Equal(t, &traefikMirroring{Service: "main", Mirrors: []traefikMirrorService{{"m1", 100}, {"m2", 35}}}, c.HTTP.Services["mirrored"].Mirroring)
		require.Equal(t, &traefikForwardingTimeouts{
			DialTimeout:           ptypes.Duration(500 * time.Millisecond),
			ResponseHeaderTimeout: ptypes.Duration(500 * time.Millisecond),
			IdleConnTimeout:       ptypes.Duration(90 * time.Second),
		}, c.HTTP.ServersTransports["timed"].ForwardingTimeouts)
	}
}

// The Plugin target's middlewares reach Traefik through the plugin only:
// Traefik's file and HTTP providers decode each into a middleware of no
// type, and a router naming it fails.
func TestPluginDecodedByThePluginOnly(t *testing.T) {
	r := &gwapiv1.HTTPRouteRule{
		Matches: prefixMatch("/prefix"),
		Filters: []gwapiv1.HTTPRouteFilter{
			requestHeaders(gwapiv1.HTTPHeaderFilter{Add: []gwapiv1.HTTPHeader{header("X-Header-Add", "v")}}),
			responseHeaders(gwapiv1.HTTPHeaderFilter{Set: []gwapiv1.HTTPHeader{header("X-A", "a")}}),
			{Type: gwapiv1.HTTPRouteFilterURLRewrite, URLRewrite: &gwapiv1.HTTPURLRewriteFilter{Path: prefixRewrite("/one")}},
		},
	}
	res, err := HTTPRuleFilters(Env{Target: Plugin}, rule0, "r", r)
	require.NoError(t, err)
	redirect, err := HTTPRuleFilters(Env{Target: Plugin}, rule0, "d",
		redirectRule(gwapiv1.HTTPRequestRedirectFilter{StatusCode: new(308)}, nil))
	require.NoError(t, err)
	mws := append(res.Middlewares, redirect.Middlewares...)

	h, f, p := decodeEach(t, configurationOf(t, mws, nil, nil))
	for _, c := range []traefikConfiguration{h, f} {
		require.Len(t, c.HTTP.Middlewares, len(mws))
		for name, m := range c.HTTP.Middlewares {
			require.Equal(t, traefikMiddleware{}, *m, name)
		}
	}
	m := p.HTTP.Middlewares
	require.Equal(t, map[string]string{"X-Header-Add": "v"}, m["r-requestheadermodifier-0"].RequestHeaderModifier.Add)
	require.Equal(t, map[string]string{"X-A": "a"}, m["r-responseheadermodifier-1"].ResponseHeaderModifier.Set)
	require.Equal(t, &traefikURLRewrite{Path: new("/one"), PathPrefix: new("/prefix")}, m["r-urlrewrite-2"].URLRewrite)
	require.Equal(t, &traefikRequestRedirect{StatusCode: 308}, m["d-requestredirect-0"].RequestRedirect)
}
