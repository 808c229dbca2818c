package translate

import (
	"errors"
	"maps"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/sliceway/sliceway/config/dynamic"
	"github.com/sliceway/sliceway/provider/kubernetes/internal/testobjects"
)

func boolPtr(b bool) *bool    { return &b }
func strPtr(s string) *string { return &s }
func oneAnn(key, value string) map[string]string {
	return map[string]string{testobjects.Annotation(key): value}
}

func TestParseRouterAnnotations(t *testing.T) {
	tests := []struct {
		desc        string
		annotations map[string]string
		want        *routerAnnotations
	}{
		{desc: "nil annotations", annotations: nil, want: &routerAnnotations{}},
		{desc: "no annotations", annotations: map[string]string{}, want: &routerAnnotations{}},
		{
			desc: "unrelated annotations are ignored",
			annotations: map[string]string{
				"kubernetes.io/ingress.class":                       "traefik",
				"nginx.ingress.kubernetes.io/rewrite-target":        "/",
				"example.com/router.priority":                       "not a number",
				"traefik.ingress.kubernetes.io":                     "x",
				testobjects.Annotation("routerx.priority"):          "not a number",
				testobjects.Annotation("frontend.rule.type"):        "PathPrefixStrip",
				"traefik.ingress.kubernetes.io/router":              "x",
				"other.traefik.ingress.kubernetes.io/router.tls":    "maybe",
				"xtraefik.ingress.kubernetes.io/router.entrypoints": "web",
			},
			want: &routerAnnotations{},
		},
		{
			desc: "service annotations are ignored by the router parser",
			annotations: map[string]string{
				testobjects.Annotation("service.serversscheme"):  "ftp",
				testobjects.Annotation("service.passhostheader"): "not a bool",
				testobjects.Annotation("service.unknown"):        "x",
			},
			want: &routerAnnotations{},
		},
		{desc: "one entry point", annotations: oneAnn("router.entrypoints", "web"), want: &routerAnnotations{EntryPoints: []string{"web"}}},
		{desc: "entry points", annotations: oneAnn("router.entrypoints", "web,websecure"), want: &routerAnnotations{EntryPoints: []string{"web", "websecure"}}},
		{desc: "entry points with spaces", annotations: oneAnn("router.entrypoints", "web, websecure"), want: &routerAnnotations{EntryPoints: []string{"web", "websecure"}}},
		{
			desc:        "middlewares",
			annotations: oneAnn("router.middlewares", "default-auth@kubernetescrd,team-strip@kubernetescrd"),
			want:        &routerAnnotations{Middlewares: []string{"default-auth@kubernetescrd", "team-strip@kubernetescrd"}},
		},
		{desc: "priority", annotations: oneAnn("router.priority", "42"), want: &routerAnnotations{Priority: 42}},
		{desc: "negative priority", annotations: oneAnn("router.priority", "-3"), want: &routerAnnotations{Priority: -3}},
		{desc: "pathmatcher Path", annotations: oneAnn("router.pathmatcher", "Path"), want: &routerAnnotations{PathMatcher: "Path"}},
		{desc: "pathmatcher PathPrefix", annotations: oneAnn("router.pathmatcher", "PathPrefix"), want: &routerAnnotations{PathMatcher: "PathPrefix"}},
		{desc: "pathmatcher PathRegexp", annotations: oneAnn("router.pathmatcher", "PathRegexp"), want: &routerAnnotations{PathMatcher: "PathRegexp"}},
		{desc: "tls true gives an empty TLS config", annotations: oneAnn("router.tls", "true"), want: &routerAnnotations{TLS: &dynamic.RouterTLSConfig{}}},
		{desc: "tls false gives no TLS config", annotations: oneAnn("router.tls", "false"), want: &routerAnnotations{}},
		{desc: "tls TRUE", annotations: oneAnn("router.tls", "TRUE"), want: &routerAnnotations{TLS: &dynamic.RouterTLSConfig{}}},
		{
			desc: "tls 1 is true", annotations: oneAnn("router.tls", "1"), want: &routerAnnotations{TLS: &dynamic.RouterTLSConfig{}},
		},
		{desc: "tls 0 is false", annotations: oneAnn("router.tls", "0"), want: &routerAnnotations{}},
		{
			desc:        "tls false wins over its fields",
			annotations: map[string]string{testobjects.Annotation("router.tls"): "false", testobjects.Annotation("router.tls.certresolver"): "le"},
			want:        &routerAnnotations{},
		},
		{
			desc:        "tls.certresolver",
			annotations: oneAnn("router.tls.certresolver", "letsencrypt"),
			want:        &routerAnnotations{TLS: &dynamic.RouterTLSConfig{CertResolver: "letsencrypt"}},
		},
		{
			desc:        "tls.options",
			annotations: oneAnn("router.tls.options", "default-mtls@kubernetescrd"),
			want:        &routerAnnotations{TLS: &dynamic.RouterTLSConfig{Options: "default-mtls@kubernetescrd"}},
		},
		{
			desc: "tls and its fields",
			annotations: map[string]string{
				testobjects.Annotation("router.tls"):              "true",
				testobjects.Annotation("router.tls.certresolver"): "le",
				testobjects.Annotation("router.tls.options"):      "strict",
			},
			want: &routerAnnotations{TLS: &dynamic.RouterTLSConfig{CertResolver: "le", Options: "strict"}},
		},
		{
			desc: "tls.domains.0",
			annotations: map[string]string{
				testobjects.Annotation("router.tls.domains.0.main"): "example.com",
				testobjects.Annotation("router.tls.domains.0.sans"): "a.example.com,b.example.com",
			},
			want: &routerAnnotations{TLS: &dynamic.RouterTLSConfig{Domains: []dynamic.Domain{
				{Main: "example.com", SANs: []string{"a.example.com", "b.example.com"}},
			}}},
		},
		{
			desc: "tls.domains.0 and tls.domains.1",
			annotations: map[string]string{
				testobjects.Annotation("router.tls.domains.0.main"): "example.com",
				testobjects.Annotation("router.tls.domains.0.sans"): "www.example.com",
				testobjects.Annotation("router.tls.domains.1.main"): "example.org",
				testobjects.Annotation("router.tls.domains.1.sans"): "*.example.org,www.example.org",
			},
			want: &routerAnnotations{TLS: &dynamic.RouterTLSConfig{Domains: []dynamic.Domain{
				{Main: "example.com", SANs: []string{"www.example.com"}},
				{Main: "example.org", SANs: []string{"*.example.org", "www.example.org"}},
			}}},
		},
		{
			desc:        "tls.domains with sans only",
			annotations: oneAnn("router.tls.domains.0.sans", "a.example.com"),
			want:        &routerAnnotations{TLS: &dynamic.RouterTLSConfig{Domains: []dynamic.Domain{{SANs: []string{"a.example.com"}}}}},
		},
		{
			desc:        "keys are case-insensitive, as Traefik's labels",
			annotations: oneAnn("router.EntryPoints", "web"),
			want:        &routerAnnotations{EntryPoints: []string{"web"}},
		},
		{
			desc: "everything together",
			annotations: map[string]string{
				testobjects.Annotation("router.entrypoints"):        "websecure",
				testobjects.Annotation("router.middlewares"):        "a@file,b@file",
				testobjects.Annotation("router.priority"):           "10",
				testobjects.Annotation("router.pathmatcher"):        "Path",
				testobjects.Annotation("router.tls"):                "true",
				testobjects.Annotation("router.tls.certresolver"):   "le",
				testobjects.Annotation("router.tls.domains.0.main"): "example.com",
				testobjects.Annotation("service.serversscheme"):     "h2c",
				"kubernetes.io/ingress.class":                       "traefik",
			},
			want: &routerAnnotations{
				PathMatcher: "Path",
				EntryPoints: []string{"websecure"},
				Middlewares: []string{"a@file", "b@file"},
				Priority:    10,
				TLS:         &dynamic.RouterTLSConfig{CertResolver: "le", Domains: []dynamic.Domain{{Main: "example.com"}}},
			},
		},
	}
	for _, tc := range tests {
		t.Run(tc.desc, func(t *testing.T) {
			got, err := parseRouterAnnotations(tc.annotations)
			require.NoError(t, err)
			assert.Equal(t, tc.want, got)
		})
	}
}

func TestParseRouterAnnotationsErrors(t *testing.T) {
	tests := []struct {
		desc           string
		annotations    map[string]string
		wantAnnotation string
		wantInMessage  string
	}{
		{desc: "priority is not an int", annotations: oneAnn("router.priority", "high"), wantAnnotation: testobjects.Annotation("router.priority")},
		{desc: "priority is a float", annotations: oneAnn("router.priority", "1.5"), wantAnnotation: testobjects.Annotation("router.priority")},
		// Unknown, and maybe about access: not served.
		{desc: "unknown nested tls field", annotations: oneAnn("router.tls.foo", "bar"), wantAnnotation: testobjects.Annotation("router.tls.foo"), wantInMessage: "may be about access"},
		{desc: "unknown auth field", annotations: oneAnn("router.basicauth", "x"), wantAnnotation: testobjects.Annotation("router.basicauth")},
		{desc: "bad trace verbosity", annotations: oneAnn("router.observability.traceverbosity", "loud"), wantAnnotation: testobjects.Annotation("router.observability.traceverbosity"), wantInMessage: `"loud"`},
		{desc: "bad rule syntax", annotations: oneAnn("router.rulesyntax", "v4"), wantAnnotation: testobjects.Annotation("router.rulesyntax")},
		{desc: "accesslogs is not a bool", annotations: oneAnn("router.observability.accesslogs", "sometimes"), wantAnnotation: testobjects.Annotation("router.observability.accesslogs")},
		{
			desc: "tls is not a bool", annotations: oneAnn("router.tls", "yes please"), wantAnnotation: testobjects.Annotation("router.tls"),
		},
		{desc: "invalid pathmatcher", annotations: oneAnn("router.pathmatcher", "Host"), wantAnnotation: testobjects.Annotation("router.pathmatcher"), wantInMessage: `"Host"`},
		{desc: "pathmatcher is case-sensitive", annotations: oneAnn("router.pathmatcher", "pathprefix"), wantAnnotation: testobjects.Annotation("router.pathmatcher")},
		{desc: "empty domain", annotations: oneAnn("router.tls.domains.0.main", ""), wantAnnotation: testobjects.Annotation("router.tls.domains.0")},
		{
			desc: "the bad annotation is named among good ones",
			annotations: map[string]string{
				testobjects.Annotation("router.entrypoints"):      "web",
				testobjects.Annotation("router.middlewares"):      "a@file",
				testobjects.Annotation("router.priority"):         "abc",
				testobjects.Annotation("router.tls.certresolver"): "le",
				"kubernetes.io/ingress.class":                     "traefik",
			},
			wantAnnotation: testobjects.Annotation("router.priority"),
		},
		{
			desc:           "the key is named as written",
			annotations:    oneAnn("router.Priority", "abc"),
			wantAnnotation: testobjects.Annotation("router.Priority"),
		},
	}
	for _, tc := range tests {
		t.Run(tc.desc, func(t *testing.T) {
			got, err := parseRouterAnnotations(tc.annotations)
			assert.Nil(t, got)
			assertAnnotationError(t, err, tc.wantAnnotation, tc.wantInMessage)
		})
	}
}

func TestParseServiceAnnotations(t *testing.T) {
	tests := []struct {
		desc        string
		annotations map[string]string
		want        *serviceAnnotations
	}{
		{desc: "nil annotations", annotations: nil, want: &serviceAnnotations{}},
		{
			desc: "unrelated annotations are ignored",
			annotations: map[string]string{
				"service.beta.kubernetes.io/aws-load-balancer-type": "nlb",
				"example.com/service.passhostheader":                "not a bool",
				testobjects.Annotation("servicex.nativelb"):         "not a bool",
			},
			want: &serviceAnnotations{},
		},
		{
			desc: "router annotations are ignored by the service parser",
			annotations: map[string]string{
				testobjects.Annotation("router.priority"):    "not an int",
				testobjects.Annotation("router.pathmatcher"): "Host",
				testobjects.Annotation("router.foo"):         "bar",
			},
			want: &serviceAnnotations{},
		},
		{desc: "serversscheme http", annotations: oneAnn("service.serversscheme", "http"), want: &serviceAnnotations{ServersScheme: "http"}},
		{desc: "serversscheme https", annotations: oneAnn("service.serversscheme", "https"), want: &serviceAnnotations{ServersScheme: "https"}},
		{desc: "serversscheme h2c", annotations: oneAnn("service.serversscheme", "h2c"), want: &serviceAnnotations{ServersScheme: "h2c"}},
		{desc: "passhostheader false", annotations: oneAnn("service.passhostheader", "false"), want: &serviceAnnotations{PassHostHeader: boolPtr(false)}},
		{desc: "passhostheader true", annotations: oneAnn("service.passhostheader", "true"), want: &serviceAnnotations{PassHostHeader: boolPtr(true)}},
		{
			desc:        "serverstransport",
			annotations: oneAnn("service.serverstransport", "default-mytransport@kubernetescrd"),
			want:        &serviceAnnotations{ServersTransport: "default-mytransport@kubernetescrd"},
		},
		{
			desc:        "sticky.cookie true gives a cookie with the default path",
			annotations: oneAnn("service.sticky.cookie", "true"),
			want:        &serviceAnnotations{Sticky: &dynamic.Sticky{Cookie: &dynamic.Cookie{Path: strPtr("/")}}},
		},
		{
			desc:        "sticky.cookie.name alone keeps the default path",
			annotations: oneAnn("service.sticky.cookie.name", "affinity"),
			want:        &serviceAnnotations{Sticky: &dynamic.Sticky{Cookie: &dynamic.Cookie{Name: "affinity", Path: strPtr("/")}}},
		},
		{
			desc: "sticky cookie fields",
			annotations: map[string]string{
				testobjects.Annotation("service.sticky.cookie"):          "true",
				testobjects.Annotation("service.sticky.cookie.name"):     "affinity",
				testobjects.Annotation("service.sticky.cookie.secure"):   "true",
				testobjects.Annotation("service.sticky.cookie.httponly"): "true",
				testobjects.Annotation("service.sticky.cookie.samesite"): "strict",
				testobjects.Annotation("service.sticky.cookie.maxage"):   "3600",
				testobjects.Annotation("service.sticky.cookie.path"):     "/app",
				testobjects.Annotation("service.sticky.cookie.domain"):   "example.com",
			},
			want: &serviceAnnotations{Sticky: &dynamic.Sticky{Cookie: &dynamic.Cookie{
				Name: "affinity", Secure: true, HTTPOnly: true, SameSite: "strict", MaxAge: 3600,
				Path: strPtr("/app"), Domain: "example.com",
			}}},
		},
		{
			desc:        "samesite none",
			annotations: oneAnn("service.sticky.cookie.samesite", "none"),
			want:        &serviceAnnotations{Sticky: &dynamic.Sticky{Cookie: &dynamic.Cookie{SameSite: "none", Path: strPtr("/")}}},
		},
		{
			desc:        "samesite is case-insensitive",
			annotations: oneAnn("service.sticky.cookie.samesite", "Lax"),
			want:        &serviceAnnotations{Sticky: &dynamic.Sticky{Cookie: &dynamic.Cookie{SameSite: "Lax", Path: strPtr("/")}}},
		},
		{
			desc:        "sticky.cookie 1 is true",
			annotations: oneAnn("service.sticky.cookie", "1"),
			want:        &serviceAnnotations{Sticky: &dynamic.Sticky{Cookie: &dynamic.Cookie{Path: strPtr("/")}}},
		},
		{
			desc:        "sticky.cookie false wins over its fields",
			annotations: map[string]string{testobjects.Annotation("service.sticky.cookie"): "false", testobjects.Annotation("service.sticky.cookie.name"): "c"},
			want:        &serviceAnnotations{},
		},
		{desc: "nativelb true", annotations: oneAnn("service.nativelb", "true"), want: &serviceAnnotations{NativeLB: boolPtr(true)}},
		{desc: "nativelb false", annotations: oneAnn("service.nativelb", "false"), want: &serviceAnnotations{NativeLB: boolPtr(false)}},
		{desc: "nodeportlb", annotations: oneAnn("service.nodeportlb", "true"), want: &serviceAnnotations{NodePortLB: true}},
		{
			desc: "everything together",
			annotations: map[string]string{
				testobjects.Annotation("service.serversscheme"):      "https",
				testobjects.Annotation("service.serverstransport"):   "tr@file",
				testobjects.Annotation("service.passhostheader"):     "false",
				testobjects.Annotation("service.sticky.cookie.name"): "c",
				testobjects.Annotation("service.nativelb"):           "true",
				testobjects.Annotation("router.priority"):            "1",
			},
			want: &serviceAnnotations{
				ServersScheme:    "https",
				ServersTransport: "tr@file",
				PassHostHeader:   boolPtr(false),
				Sticky:           &dynamic.Sticky{Cookie: &dynamic.Cookie{Name: "c", Path: strPtr("/")}},
				NativeLB:         boolPtr(true),
			},
		},
	}
	for _, tc := range tests {
		t.Run(tc.desc, func(t *testing.T) {
			got, err := parseServiceAnnotations(tc.annotations)
			require.NoError(t, err)
			assert.Equal(t, tc.want, got)
		})
	}
}

func TestParseServiceAnnotationsStickyCookieFalse(t *testing.T) {
	got, err := parseServiceAnnotations(oneAnn("service.sticky.cookie", "false"))
	require.NoError(t, err)
	if got.Sticky != nil {
		assert.Nil(t, got.Sticky.Cookie, "sticky.cookie=false must not set a cookie")
	}
}

func TestParseServiceAnnotationsErrors(t *testing.T) {
	tests := []struct {
		desc           string
		annotations    map[string]string
		wantAnnotation string
		wantInMessage  string
	}{
		{desc: "invalid serversscheme", annotations: oneAnn("service.serversscheme", "ftp"), wantAnnotation: testobjects.Annotation("service.serversscheme"), wantInMessage: `"ftp"`},
		{desc: "serversscheme is case-sensitive", annotations: oneAnn("service.serversscheme", "HTTPS"), wantAnnotation: testobjects.Annotation("service.serversscheme")},
		{desc: "passhostheader is not a bool", annotations: oneAnn("service.passhostheader", "yes"), wantAnnotation: testobjects.Annotation("service.passhostheader")},
		{desc: "nativelb is not a bool", annotations: oneAnn("service.nativelb", "enabled"), wantAnnotation: testobjects.Annotation("service.nativelb")},
		{desc: "nodeportlb is not a bool", annotations: oneAnn("service.nodeportlb", "1x"), wantAnnotation: testobjects.Annotation("service.nodeportlb")},
		{
			desc: "sticky.cookie is not a bool", annotations: oneAnn("service.sticky.cookie", "please"), wantAnnotation: testobjects.Annotation("service.sticky.cookie"),
		},
		{desc: "cookie secure is not a bool", annotations: oneAnn("service.sticky.cookie.secure", "si"), wantAnnotation: testobjects.Annotation("service.sticky.cookie.secure")},
		{desc: "cookie maxage is not an int", annotations: oneAnn("service.sticky.cookie.maxage", "1h"), wantAnnotation: testobjects.Annotation("service.sticky.cookie.maxage")},
		{desc: "invalid samesite", annotations: oneAnn("service.sticky.cookie.samesite", "sometimes"), wantAnnotation: testobjects.Annotation("service.sticky.cookie.samesite"), wantInMessage: `"sometimes"`},
		{desc: "unknown field", annotations: oneAnn("service.loadbalancer", "x"), wantAnnotation: testobjects.Annotation("service.loadbalancer")},
		{desc: "unknown cookie field", annotations: oneAnn("service.sticky.cookie.colour", "blue"), wantAnnotation: testobjects.Annotation("service.sticky.cookie.colour")},
		// The parser panicked on an element closing an index it never opened.
		{desc: "unopened index", annotations: oneAnn("service.stick].cookie", "true"), wantAnnotation: testobjects.Annotation("service.stick].cookie"), wantInMessage: `"stick]"`},
		{desc: "index without a field", annotations: oneAnn("service.sticky.[0]", "x"), wantAnnotation: testobjects.Annotation("service.sticky.[0]"), wantInMessage: `"[0]"`},
		{
			desc: "the bad annotation is named among good ones",
			annotations: map[string]string{
				testobjects.Annotation("service.serversscheme"):      "https",
				testobjects.Annotation("service.passhostheader"):     "maybe",
				testobjects.Annotation("service.sticky.cookie.name"): "c",
				testobjects.Annotation("router.priority"):            "1",
			},
			wantAnnotation: testobjects.Annotation("service.passhostheader"),
		},
	}
	for _, tc := range tests {
		t.Run(tc.desc, func(t *testing.T) {
			got, err := parseServiceAnnotations(tc.annotations)
			assert.Nil(t, got)
			assertAnnotationError(t, err, tc.wantAnnotation, tc.wantInMessage)
		})
	}
}

// assertAnnotationError checks that err is an *annotationError naming the
// annotation want, wrapping its cause, with inMessage (if any) in its text.
func assertAnnotationError(t *testing.T, err error, want, inMessage string) {
	t.Helper()
	require.Error(t, err)
	var ae *annotationError
	require.True(t, errors.As(err, &ae), "want an *annotationError, got %T: %v", err, err)
	assert.Equal(t, want, ae.Annotation)
	require.Error(t, ae.Err)
	assert.ErrorIs(t, err, ae.Err)
	assert.Contains(t, err.Error(), want)
	if inMessage != "" {
		assert.Contains(t, err.Error(), inMessage)
	}
}

// TestParseAnnotationsDoesNotShareState checks that two parses do not share
// slices or pointers: changing one result leaves the other unchanged.
func TestParseAnnotationsDoesNotShareState(t *testing.T) {
	annotations := map[string]string{
		testobjects.Annotation("router.entrypoints"):        "web,websecure",
		testobjects.Annotation("router.tls.domains.0.main"): "example.com",
		testobjects.Annotation("router.tls.domains.0.sans"): "a.example.com",
	}
	a, err := parseRouterAnnotations(annotations)
	require.NoError(t, err)
	b, err := parseRouterAnnotations(annotations)
	require.NoError(t, err)
	a.EntryPoints[0] = "changed"
	a.TLS.Domains[0].SANs[0] = "changed"
	assert.Equal(t, []string{"web", "websecure"}, b.EntryPoints)
	assert.Equal(t, []string{"a.example.com"}, b.TLS.Domains[0].SANs)
}

func TestAnnotationMemoDecodesEachSetOnce(t *testing.T) {
	var m annotationMemo[*routerAnnotations]
	set := map[string]string{
		AnnotationPrefix + "router.entrypoints": "websecure",
		AnnotationPrefix + "router.middlewares": "default-headers@kubernetescrd",
		"other.example/annotation":              "one",
	}
	first, err := m.parse(set, parseRouterAnnotations)
	require.NoError(t, err)
	assert.Equal(t, []string{"websecure"}, first.EntryPoints)
	// Another Ingress from the same chart: the same annotations of ours,
	// others of its own.
	same := maps.Clone(set)
	same["other.example/annotation"] = "two"
	again, err := m.parse(same, parseRouterAnnotations)
	require.NoError(t, err)
	assert.Same(t, first, again)
	assert.Equal(t, 1, m.parsed)

	other := maps.Clone(set)
	other[AnnotationPrefix+"router.entrypoints"] = "web"
	third, err := m.parse(other, parseRouterAnnotations)
	require.NoError(t, err)
	assert.Equal(t, []string{"web"}, third.EntryPoints)
	assert.Equal(t, 2, m.parsed)

	// A problem is remembered with its set, and reported the same.
	bad := map[string]string{AnnotationPrefix + "router.priority": "high"}
	_, err = m.parse(bad, parseRouterAnnotations)
	require.Error(t, err)
	_, again2 := m.parse(maps.Clone(bad), parseRouterAnnotations)
	assert.Equal(t, err.Error(), again2.Error())
	assert.Equal(t, 3, m.parsed)

	// Objects without annotations of ours are decoded at once, not remembered.
	none, err := m.parse(map[string]string{"other.example/annotation": "x"}, parseRouterAnnotations)
	require.NoError(t, err)
	assert.Same(t, noRouterAnnotations, none)
	assert.Equal(t, 3, m.parsed)
}

func TestAnnotationKeyTellsSetsApart(t *testing.T) {
	p := AnnotationPrefix
	// One annotation whose value spells two annotations is not two.
	one := map[string]string{p + "router.priority": "1" + "\x00" + p + "router.tls" + "\x00" + "true"}
	two := map[string]string{p + "router.priority": "1", p + "router.tls": "true"}
	assert.NotEqual(t, annotationKey(one), annotationKey(two))
	assert.Equal(t, annotationKey(two), annotationKey(map[string]string{p + "router.tls": "true", p + "router.priority": "1", "x/y": "z"}),
		"the order of the map and others' annotations do not count")
	assert.NotEqual(t, annotationKey(two), annotationKey(map[string]string{p + "router.priority": "1", p + "router.TLS": "true"}),
		"names as written: an error names the annotation as written")
}

// Traefik v3.7's router.observability.* and router.rulesyntax are read;
// a router.* key of no known field (a newer Traefik's, a typo) is left
// out with a warning, and the Ingress is served.
func TestParseRouterAnnotationsObservabilityAndUnknownKeys(t *testing.T) {
	got, err := parseRouterAnnotations(map[string]string{
		testobjects.Annotation("router.observability.accesslogs"):     "false",
		testobjects.Annotation("router.observability.metrics"):        "true",
		testobjects.Annotation("router.observability.tracing"):        "false",
		testobjects.Annotation("router.observability.traceverbosity"): "detailed",
		testobjects.Annotation("router.rulesyntax"):                   "v3",
		testobjects.Annotation("router.priority"):                     "7",
		testobjects.Annotation("router.shiny"):                        "new",
	})
	require.NoError(t, err)
	require.NotNil(t, got.Observability)
	assert.Equal(t, routerObservability{AccessLogs: new(false), Metrics: new(true), Tracing: new(false), TraceVerbosity: "detailed"}, *got.Observability)
	assert.Equal(t, "v3", got.RuleSyntax)
	assert.Equal(t, 7, got.Priority)
	require.Len(t, got.ignored, 1)
	assert.Equal(t, testobjects.Annotation("router.shiny"), got.ignored[0].Annotation)

	v2, err := parseRouterAnnotations(oneAnn("router.rulesyntax", "v2"))
	require.NoError(t, err)
	assert.Empty(t, v2.RuleSyntax, "rules are written in v3 syntax")
	require.Len(t, v2.ignored, 1)
	assert.Contains(t, v2.ignored[0].Err.Error(), "v3")
}
