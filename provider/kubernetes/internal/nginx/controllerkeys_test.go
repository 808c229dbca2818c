package nginx

import (
	"errors"
	"os"
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// upstreamConfigMapKeys are the keys of the table of ingress-nginx's
// ConfigMap reference (docs/user-guide/nginx-configuration/configmap.md
// of kubernetes/ingress-nginx at dbb11b92ddb77bee9c35e462479129354c84f939,
// v1.15.1): each must be a key this package knows, so that none of them
// is taken for an unknown key (which may close every Ingress).
var upstreamConfigMapKeys = strings.Fields(`
access-log-params access-log-path add-headers allow-backend-server-header
allow-cross-namespace-resources allow-snippet-annotations
annotation-value-word-blocklist annotations-risk-level bind-address
block-cidrs block-referers block-user-agents brotli-level brotli-min-length
brotli-types client-body-buffer-size client-body-timeout
client-header-buffer-size client-header-timeout compute-full-forwarded-for
custom-http-errors debug-connections default-type denylist-source-range
disable-access-log disable-ipv6 disable-ipv6-dns
enable-access-log-for-default-backend enable-aio-write enable-brotli
enable-modsecurity enable-multi-accept enable-ocsp enable-opentelemetry
enable-owasp-modsecurity-crs enable-real-ip enable-serial-reloads
enable-syslog enable-underscores-in-headers error-log-level error-log-path
force-ssl-redirect forwarded-for-header forwarded-for-proxy-protocol-header
generate-request-id geoip2-autoreload-in-minutes
global-allowed-response-headers global-auth-cache-duration
global-auth-cache-key global-auth-method global-auth-request-redirect
global-auth-response-headers global-auth-signin
global-auth-signin-redirect-param global-auth-snippet global-auth-url
grpc-buffer-size-kb gzip-disable gzip-level gzip-min-length gzip-types
hide-headers hsts hsts-include-subdomains hsts-max-age hsts-preload
http-access-log-path http-redirect-code http-snippet
http2-max-concurrent-streams http2-max-field-size http2-max-header-size
http2-max-requests ignore-invalid-headers jaeger-baggage-header
jaeger-collector-host jaeger-collector-port jaeger-debug-header
jaeger-endpoint jaeger-propagation-format jaeger-sampler-host
jaeger-sampler-param jaeger-sampler-port jaeger-sampler-type
jaeger-service-name jaeger-trace-baggage-header-prefix
jaeger-trace-context-header-name keep-alive keep-alive-requests
large-client-header-buffers limit-conn-status-code limit-conn-zone-variable
limit-rate limit-rate-after limit-req-status-code load-balance
location-snippet log-format-escape-json log-format-escape-none
log-format-stream log-format-upstream lua-shared-dicts main-snippet
map-hash-bucket-size max-worker-connections max-worker-open-files
modsecurity-snippet nginx-status-ipv4-whitelist nginx-status-ipv6-whitelist
no-auth-locations no-tls-redirect-locations opentelemetry-config
opentelemetry-operation-name opentelemetry-trust-incoming-span
otel-max-export-batch-size otel-max-queuesize otel-sampler
otel-sampler-parent-based otel-sampler-ratio otel-schedule-delay-millis
otel-service-name otlp-collector-host otlp-collector-port
proxy-add-original-uri-header proxy-body-size proxy-buffer-size
proxy-buffering proxy-buffers-number proxy-busy-buffers-size
proxy-connect-timeout proxy-cookie-domain proxy-cookie-path
proxy-headers-hash-bucket-size proxy-headers-hash-max-size
proxy-next-upstream proxy-next-upstream-timeout proxy-next-upstream-tries
proxy-protocol-header-timeout proxy-read-timeout proxy-real-ip-cidr
proxy-redirect-from proxy-request-buffering proxy-send-timeout
proxy-set-headers proxy-ssl-location-only proxy-stream-next-upstream
proxy-stream-next-upstream-timeout proxy-stream-next-upstream-tries
proxy-stream-responses proxy-stream-timeout relative-redirects
retry-non-idempotent reuse-port server-name-hash-bucket-size
server-name-hash-max-size server-snippet server-tokens service-upstream
skip-access-log-urls ssl-buffer-size ssl-ciphers ssl-dh-param
ssl-ecdh-curve ssl-protocols ssl-redirect ssl-reject-handshake
ssl-session-cache ssl-session-cache-size ssl-session-ticket-key
ssl-session-tickets ssl-session-timeout stream-access-log-path
stream-snippet strict-validate-path-type syslog-host syslog-port
upstream-keepalive-connections upstream-keepalive-requests
upstream-keepalive-time upstream-keepalive-timeout use-forwarded-headers
use-geoip use-geoip2 use-gzip use-http2 use-proxy-protocol
variables-hash-bucket-size variables-hash-max-size whitelist-source-range
worker-cpu-affinity worker-processes worker-shutdown-timeout
`)

// upstreamConfigMapSectionKeys are keys the same reference describes in
// a section of their own but leaves out of its table.
var upstreamConfigMapSectionKeys = []string{"global-auth-always-set-cookie", "ssl-early-data"}

// notUpstreamConfigMapKeys are keys this package knows that ingress-nginx
// does not document: none today.
var notUpstreamConfigMapKeys []string

func TestConfigMapKeysCoverUpstream(t *testing.T) {
	require.Len(t, upstreamConfigMapKeys, 192, "the reference's table has 192 keys")
	upstream := map[string]bool{}
	for _, key := range slices.Concat(upstreamConfigMapKeys, upstreamConfigMapSectionKeys) {
		if upstream[key] {
			t.Errorf("%s is listed twice", key)
		}
		upstream[key] = true
		if _, ok := controllerKeys[key]; !ok {
			t.Errorf("ingress-nginx documents the ConfigMap key %s, which controllerKeys does not hold", key)
		}
	}
	for key := range controllerKeys {
		if !upstream[key] && !slices.Contains(notUpstreamConfigMapKeys, key) {
			t.Errorf("controllerKeys holds %s, which ingress-nginx does not document", key)
		}
	}
	for _, key := range notUpstreamConfigMapKeys {
		if upstream[key] {
			t.Errorf("%s is documented upstream: take it out of notUpstreamConfigMapKeys", key)
		}
	}
	// Every ignored key says why, whatever its value.
	for _, k := range ignoredKeys() {
		var ig ignoredKey
		err := k.parse("anything", DefaultController())
		if assert.True(t, errors.As(err, &ig), k.name) {
			assert.NotEmpty(t, string(ig), k.name)
		}
	}
}

func TestParseConfigMap(t *testing.T) {
	type problem struct {
		key             string
		warning, closed bool
	}
	tests := []struct {
		name     string
		opts     *Options
		data     map[string]string
		problems []problem
		check    func(*testing.T, *Controller)
	}{
		{name: "applied", data: map[string]string{"ssl-redirect": "false", "proxy-connect-timeout": "10"},
			check: func(t *testing.T, c *Controller) {
				assert.False(t, c.SSLRedirect)
				assert.Equal(t, 10, c.ConnectTimeout)
			}},
		{name: "defaults", data: nil,
			check: func(t *testing.T, c *Controller) {
				assert.True(t, c.SSLRedirect)
				assert.True(t, c.HSTS.enabled)
			}},
		{name: "ignored", data: map[string]string{"worker-processes": "4"},
			problems: []problem{{key: "worker-processes", warning: true}}},
		{name: "modsecurity on", data: map[string]string{"enable-modsecurity": "true"},
			problems: []problem{{key: "enable-modsecurity", closed: true}}},
		{name: "modsecurity off", data: map[string]string{"enable-modsecurity": "false"}},
		{name: "bad allow list", data: map[string]string{"whitelist-source-range": "10.0.0.0/8, nonsense"},
			problems: []problem{{key: "whitelist-source-range", closed: true}}},
		{name: "bad timeout", data: map[string]string{"proxy-connect-timeout": "soon"},
			problems: []problem{{key: "proxy-connect-timeout"}},
			check:    func(t *testing.T, c *Controller) { assert.Zero(t, c.ConnectTimeout) }},
		{name: "snippet", data: map[string]string{"server-snippet": "deny all;"},
			problems: []problem{{key: "server-snippet", closed: true}}},
		{name: "snippet dropped", opts: &Options{DropSnippets: true}, data: map[string]string{"server-snippet": "deny all;"},
			problems: []problem{{key: "server-snippet", warning: true}}},
		{name: "empty snippet", data: map[string]string{"server-snippet": ""}},
		{name: "unknown", data: map[string]string{"foo-bar": "1"},
			problems: []problem{{key: "foo-bar", warning: true}}},
		{name: "unknown limit", data: map[string]string{"limit-foo": "1"},
			problems: []problem{{key: "limit-foo", warning: true}}},
		{name: "unknown access", data: map[string]string{"my-auth-thing": "on"},
			problems: []problem{{key: "my-auth-thing", closed: true}}},
		{name: "in key order", data: map[string]string{"zzz": "1", "enable-modsecurity": "true", "gzip-level": "5", "block-referers": "x"},
			problems: []problem{{key: "block-referers", closed: true}, {key: "enable-modsecurity", closed: true}, {key: "gzip-level", warning: true}, {key: "zzz", warning: true}}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			c, problems := tt.opts.ParseConfigMap("ingress-nginx/ingress-nginx-controller", tt.data)
			require.NotNil(t, c)
			assert.Equal(t, "ingress-nginx/ingress-nginx-controller", c.Source)
			var got []problem
			var closing []string
			for _, p := range problems {
				assert.Error(t, p.Err, p.Key)
				got = append(got, problem{key: p.Key, warning: p.Warning, closed: p.Closed})
				if p.Closed {
					closing = append(closing, p.Key)
				}
			}
			assert.Equal(t, tt.problems, got)
			assert.Equal(t, closing, c.Closing)
			if tt.check != nil {
				tt.check(t, c)
			}
		})
	}
}

// configMapRowRE is a row of the guide's ConfigMap table: the key, its
// default in ingress-nginx, then what it does here.
var configMapRowRE = regexp.MustCompile("^\\| `([a-z0-9-]+)` \\| [^|]+ \\| (applied|closes|no effect) \\| [^|]+ \\|$")

func TestMigrationGuideConfigMapTable(t *testing.T) {
	data, err := os.ReadFile(migrationGuide)
	require.NoError(t, err)
	_, section, found := strings.Cut(string(data), "\n### The controller's ConfigMap\n")
	require.True(t, found, "%s has no \"### The controller's ConfigMap\" section", migrationGuide)
	section, _, _ = strings.Cut(section, "\n## ")
	section, _, _ = strings.Cut(section, "\n### ")

	rows := map[string]string{}
	var order []string
	for _, line := range strings.Split(section, "\n") {
		if !strings.HasPrefix(line, "| `") {
			continue
		}
		m := configMapRowRE.FindStringSubmatch(line)
		if m == nil {
			t.Errorf("%s: a row of the ConfigMap table is not \"| `key` | default | applied, closes or no effect | what |\": %s", migrationGuide, line)
			continue
		}
		if _, dup := rows[m[1]]; dup {
			t.Errorf("%s: %s has two rows", migrationGuide, m[1])
		}
		rows[m[1]] = m[2]
		order = append(order, m[1])
	}

	status := map[string]string{}
	for _, family := range []struct {
		keys   []controllerKey
		status string
	}{{appliedKeys, "applied"}, {closingKeys, "closes"}, {ignoredKeys(), "no effect"}} {
		for _, k := range family.keys {
			status[k.name] = family.status
		}
	}
	for key := range controllerKeys {
		row, ok := rows[key]
		switch {
		case !ok:
			t.Errorf("%s: the ConfigMap table has no row for %s", migrationGuide, key)
		case row != status[key]:
			t.Errorf("%s: the ConfigMap table says %s %s, the code: %s", migrationGuide, key, row, status[key])
		}
	}
	for key := range rows {
		if _, ok := controllerKeys[key]; !ok {
			t.Errorf("%s: the ConfigMap table lists %s, which the code does not know", migrationGuide, key)
		}
	}
	if !slices.IsSorted(order) {
		t.Errorf("%s: the ConfigMap table is not in alphabetical order", migrationGuide)
	}
}
