package nginx

import (
	"os"
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
)

// migrationGuide is the operators' guide whose annotation table must say
// what this package does.
const migrationGuide = "../../../../../docs/migrating-from-ingress-nginx.md"

// upstreamAnnotations are the annotations ingress-nginx's reference
// documents (docs/user-guide/nginx-configuration/annotations.md of
// kubernetes/ingress-nginx at dbb11b92ddb77bee9c35e462479129354c84f939,
// its last release line): the guide must say what becomes of each, so
// that no row can be dropped unnoticed.
var upstreamAnnotations = strings.Fields(`
affinity affinity-canary-behavior affinity-mode app-root auth-always-set-cookie
auth-cache-duration auth-cache-key auth-keepalive auth-keepalive-requests
auth-keepalive-share-vars auth-keepalive-timeout auth-method auth-proxy-set-headers
auth-realm auth-request-redirect auth-response-headers auth-secret auth-secret-type
auth-signin auth-signin-redirect-param auth-snippet auth-tls-error-page
auth-tls-match-cn auth-tls-pass-certificate-to-upstream auth-tls-secret
auth-tls-verify-client auth-tls-verify-depth auth-type auth-url backend-protocol
canary canary-by-cookie canary-by-header canary-by-header-pattern
canary-by-header-value canary-weight canary-weight-total client-body-buffer-size
configuration-snippet connection-proxy-header cors-allow-credentials
cors-allow-headers cors-allow-methods cors-allow-origin cors-expose-headers
cors-max-age custom-headers custom-http-errors default-backend denylist-source-range
enable-access-log enable-cors enable-global-auth enable-modsecurity
enable-opentelemetry enable-owasp-core-rules enable-rewrite-log force-ssl-redirect
from-to-www-redirect http2-push-preload limit-burst-multiplier limit-connections
limit-rate limit-rate-after limit-rpm limit-rps limit-whitelist load-balance
mirror-host mirror-request-body mirror-target modsecurity-snippet
modsecurity-transaction-id opentelemetry-trust-incoming-span permanent-redirect
permanent-redirect-code preserve-trailing-slash proxy-body-size proxy-buffer-size
proxy-buffering proxy-buffers-number proxy-busy-buffers-size proxy-connect-timeout
proxy-cookie-domain proxy-cookie-path proxy-http-version proxy-max-temp-file-size
proxy-next-upstream proxy-next-upstream-timeout proxy-next-upstream-tries
proxy-read-timeout proxy-redirect-from proxy-redirect-to proxy-request-buffering
proxy-send-timeout proxy-ssl-ciphers proxy-ssl-name proxy-ssl-protocols
proxy-ssl-secret proxy-ssl-server-name proxy-ssl-verify proxy-ssl-verify-depth
rewrite-target satisfy server-alias server-snippet service-upstream
session-cookie-change-on-failure session-cookie-conditional-samesite-none
session-cookie-domain session-cookie-expires session-cookie-max-age
session-cookie-name session-cookie-path session-cookie-samesite session-cookie-secure
ssl-ciphers ssl-passthrough ssl-prefer-server-ciphers ssl-redirect stream-snippet
temporal-redirect temporal-redirect-code upstream-hash-by upstream-hash-by-subset
upstream-hash-by-subset-size upstream-vhost use-regex whitelist-source-range
x-forwarded-prefix
`)

// guideRow is what the guide's table says of one annotation.
type guideRow struct {
	status string // supported, differs, ignored or refused
	access bool   // ", access": the Ingress is not served when it cannot be honoured
}

// guideRowRE is a row of the annotation table: the name, then the status.
var guideRowRE = regexp.MustCompile("^\\| `([a-z0-9-]+)` \\| (supported|differs|ignored|refused)(, access)? \\|")

// readGuideTable reads the rows of the guide's "## Annotations" section,
// in their order.
func readGuideTable(t *testing.T) (map[string]guideRow, []string) {
	t.Helper()
	data, err := os.ReadFile(migrationGuide)
	require.NoError(t, err)
	_, section, found := strings.Cut(string(data), "\n## Annotations\n")
	require.True(t, found, "%s has no \"## Annotations\" section", migrationGuide)
	section, _, _ = strings.Cut(section, "\n## ")
	rows := map[string]guideRow{}
	var order []string
	for _, line := range strings.Split(section, "\n") {
		if !strings.HasPrefix(line, "| `") {
			continue
		}
		m := guideRowRE.FindStringSubmatch(line)
		if m == nil {
			t.Errorf("%s: a row of the annotation table is not \"| `name` | status[, access] | ...\": %s", migrationGuide, line)
			continue
		}
		if _, dup := rows[m[1]]; dup {
			t.Errorf("%s: %s has two rows", migrationGuide, m[1])
		}
		rows[m[1]] = guideRow{status: m[2], access: m[3] != ""}
		order = append(order, m[1])
	}
	return rows, order
}

// closesIngress is what ParseAnnotations does with an annotation this
// package has no parser for (a refusal, or one it does not know): whether
// the Ingress is closed (its paths answer 403).
func closesIngress(t *testing.T, name string) bool {
	t.Helper()
	_, problems := ParseAnnotations(map[string]string{AnnotationPrefix + name: "true"})
	require.Len(t, problems, 1, name)
	return problems[0].Closed
}

func TestMigrationGuideAnnotationTable(t *testing.T) {
	rows, order := readGuideTable(t)

	for name, a := range known {
		row, ok := rows[name]
		if !ok {
			t.Errorf("%s: the code reads %s, which the annotation table does not list", migrationGuide, name)
			continue
		}
		if row.access != a.access {
			t.Errorf("%s: %s: the table says access=%v, the code's table access=%v", migrationGuide, name, row.access, a.access)
		}
	}
	for name := range refused {
		if _, ok := rows[name]; !ok {
			t.Errorf("%s: the code refuses %s, which the annotation table does not list", migrationGuide, name)
		}
	}
	// The others are refused: by name, or as annotations the code does
	// not know.
	for name, row := range rows {
		if _, ok := known[name]; ok {
			continue
		}
		if row.status != "refused" {
			why := "the code does not read it"
			if r, ok := refused[name]; ok {
				why = "the code refuses it by name (" + r.why + ")"
			}
			t.Errorf("%s: the table calls %s %s, but %s", migrationGuide, name, row.status, why)
		}
		if closed := closesIngress(t, name); row.access != closed {
			t.Errorf("%s: %s: the table says access=%v, but the code leaves the Ingress unserved=%v", migrationGuide, name, row.access, closed)
		}
	}
	for _, name := range upstreamAnnotations {
		if _, ok := rows[name]; !ok {
			t.Errorf("%s: ingress-nginx documents %s, which the annotation table does not list", migrationGuide, name)
		}
	}
	if !slices.IsSorted(order) {
		t.Errorf("%s: the annotation table is not in alphabetical order, so readers cannot find a name", migrationGuide)
	}
}
