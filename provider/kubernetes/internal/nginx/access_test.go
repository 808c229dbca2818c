package nginx

import (
	"regexp"
	"testing"

	"github.com/stretchr/testify/require"
)

// The hashes Traefik's basicAuth verifies pass; what it would read as an
// MD5 hash and never match (plain text, crypt(3) DES, SHA-256/512 crypt,
// {SSHA}) is refused.
func TestVerifiableHash(t *testing.T) {
	for hash, want := range map[string]bool{
		"$apr1$abcdefgh$h9FWgUz3n9YxylKLlR5SQ/":                        true,
		"$1$abcdefgh$h9FWgUz3n9YxylKLlR5SQ/":                           true,
		"{SHA}5en6G6MezRroT3XKqkdPOmY/BfQ=":                            true,
		"$2a$04$4WWmXc6CBaC7Ns4thtZNF.QmiCfEUh9jfNC5N.xMna6bC20ldmk/e": true,
		"$2y$04$4WWmXc6CBaC7Ns4thtZNF.QmiCfEUh9jfNC5N.xMna6bC20ldmk/e": true,
		"hunter2":                            false,
		"rl0uE8Ikq7aQ.":                      false,
		"$5$salt$abcdef":                     false,
		"$6$salt$abcdef":                     false,
		"{SSHA}abcdefghijklmnopqrstuvwxyz12": false,
		"{PLAIN}secret":                      false,
		"$apr1$abcdefgh$":                    false,
		"$2y$04$short":                       false,
	} {
		require.Equal(t, want, verifiableHash(hash), hash)
	}
}

// A wildcard origin matches one label, whatever its case, and nothing
// around it.
func TestOriginPattern(t *testing.T) {
	re := regexp.MustCompile(originPattern("https://*.example.org:8443"))
	require.True(t, re.MatchString("https://app.example.org:8443"))
	require.True(t, re.MatchString("HTTPS://App.Example.org:8443"))
	require.False(t, re.MatchString("https://a.b.example.org:8443"))
	require.False(t, re.MatchString("https://app.example.org"))
	require.False(t, re.MatchString("https://app.example.org:8443.evil.com"))
	require.False(t, re.MatchString("https://example.org:8443"))
}

func TestCheckCAs(t *testing.T) {
	require.Error(t, checkCAs(nil))
	require.Error(t, checkCAs([]byte("not pem")))
	require.Error(t, checkCAs([]byte("-----BEGIN PRIVATE KEY-----\nAAAA\n-----END PRIVATE KEY-----\n")))
	require.Error(t, checkCAs([]byte("-----BEGIN CERTIFICATE-----\nAAAA\n-----END CERTIFICATE-----\n")))
}
