package nginx

import (
	"errors"
	"slices"
	"strings"

	"github.com/sliceway/sliceway/internal/editdistance"
)

// upstreamAnnotations are the annotations ingress-nginx's reference
// documents (docs/user-guide/nginx-configuration/annotations.md of
// kubernetes/ingress-nginx at dbb11b92ddb77bee9c35e462479129354c84f939,
// its last release line): the guide must say what becomes of each, so
// that no row can be dropped unnoticed, and an annotation this dialect
// does not know is told apart from a misspelling by it.
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

// formerAnnotations are annotations of earlier ingress-nginx releases,
// removed or renamed since: not misspellings, whatever they are near.
var formerAnnotations = strings.Fields(`
add-base-url base-url-scheme enable-influxdb enable-opentracing global-rate-limit
global-rate-limit-ignored-cidrs global-rate-limit-key global-rate-limit-window
grpc-backend influxdb-host influxdb-measurement influxdb-port influxdb-server-name
mirror-uri opentracing-trust-incoming-span secure-backends session-cookie-hash
upstream-fail-timeout upstream-max-fails
`)

// unknownAnnotation is the error of an annotation (its name after the
// prefix) this dialect neither reads nor refuses. One ingress-nginx
// documents is one sliceway lacks; one it does not, but that is a few
// edits from one it does or that sliceway reads, is a misspelling, which
// ingress-nginx would ignore as well: saying "not supported" would send
// the user looking for a feature rather than at the typo.
func unknownAnnotation(name string) error {
	if !slices.Contains(upstreamAnnotations, name) && !slices.Contains(formerAnnotations, name) {
		if near := nearestAnnotation(name); near != "" {
			return errors.New("not an ingress-nginx annotation; did you mean " + near + "?")
		}
	}
	return errors.New("not supported by sliceway's ingress-nginx dialect")
}

// nearestAnnotation is the annotation name, among those this dialect
// reads or refuses and those ingress-nginx documents, nearest to name
// (case aside) when it is near enough to be the one meant: one edit for
// a name under 8 characters, two from 8 (ingress-nginx's names differ
// from each other by more: limit-rps and limit-rpm are the closest);
// "" otherwise. Of names as near, the first in alphabetical order.
func nearestAnnotation(name string) string {
	lower := strings.ToLower(name)
	limit := 1
	if len(lower) >= 8 {
		limit = 2
	}
	best, bestDistance := "", limit+1
	consider := func(candidate string) {
		if candidate == name {
			return
		}
		d := editdistance.Between(lower, candidate)
		if d < bestDistance || (d == bestDistance && candidate < best) {
			best, bestDistance = candidate, d
		}
	}
	for candidate := range known {
		consider(candidate)
	}
	for candidate := range refused {
		consider(candidate)
	}
	for _, candidate := range upstreamAnnotations {
		consider(candidate)
	}
	return best
}
