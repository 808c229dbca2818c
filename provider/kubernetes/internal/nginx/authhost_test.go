package nginx

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// Every spelling of an address that is never an auth service is refused,
// as a resolver or Go's dialer would read it; an ordinary host passes.
func TestAuthURLHosts(t *testing.T) {
	refused := map[string]string{
		// Loopback, in each family and form.
		"http://127.0.0.1:8080/api/config": "loopback",
		"http://127.53.0.1/":               "loopback",
		"http://[::1]:9000/":               "loopback",
		"http://[0:0:0:0:0:0:0:1]/":        "loopback",
		"http://[::ffff:127.0.0.1]/":       "loopback",
		"http://[::ffff:7f00:1]/":          "loopback",
		"http://127.0.0.1./":               "loopback",
		"http://[64:ff9b::127.0.0.1]/":     "the NAT64 form of 127.0.0.1, which is loopback",
		"http://[::127.0.0.1]/":            "IPv4-compatible",
		"http://localhost/":                "a name of loopback",
		"http://LocalHost.:8080/":          "a name of loopback",
		"http://auth.localhost/":           "every name under .localhost",
		"http://ip6-localhost/":            "a name of loopback",
		"http://localhost.localdomain/":    "a name of loopback",
		"http://ｌｏｃａｌｈｏｓｔ/":                "not ASCII",
		// What inet_aton and the WHATWG URL standard read as 127.0.0.1,
		// and other numbers.
		"http://2130706433/":   "ends in a number",
		"http://0x7f.1/":       "ends in a number",
		"http://0X7F000001/":   "ends in a number",
		"http://127.1/":        "ends in a number",
		"http://017700000001/": "ends in a number",
		"http://0177.0.0.1/":   "ends in a number",
		"http://010.0.0.1/":    "ends in a number",
		"http://0/":            "ends in a number",
		"http://1.2.3.256/":    "ends in a number",
		// Link-local and the metadata services.
		"http://169.254.169.254/latest/meta-data/iam/": "a cloud metadata address",
		"http://[fd00:ec2::254]/":                      "a cloud metadata address",
		"http://[::ffff:169.254.169.254]/":             "a cloud metadata address",
		"http://100.100.100.200/":                      "a cloud metadata address",
		"http://169.254.1.1/":                          "link-local",
		"http://[fe80::1%25eth0]/":                     "link-local",
		// Unspecified, which Linux dials as loopback.
		"http://0.0.0.0:8080/":      "unspecified",
		"http://[::]:8080/":         "unspecified",
		"http://0.1.2.3/":           "unspecified",
		"https://[::ffff:0.0.0.0]/": "unspecified",
	}
	for url, why := range refused {
		for _, name := range []string{"auth-url", "auth-signin"} {
			_, problems := ParseAnnotations(map[string]string{AnnotationPrefix + name: url})
			require.Len(t, problems, 1, "%s: %s", name, url)
			assert.True(t, problems[0].Closed, "%s: %s closes the Ingress", name, url)
			assert.Contains(t, problems[0].Err.Error(), why, url)
			assert.Contains(t, problems[0].Err.Error(), "allowedAuthHosts", url)
		}
	}
	for _, url := range []string{
		"http://auth.shop.svc.cluster.local:8080/check",
		"https://auth.example.com/oauth2/auth",
		"http://10.96.0.10/check",
		"http://[2001:db8::1]:4180/",
		"http://127.0.0.1.nip.io/", // a DNS name: checked as written, not resolved
		"http://auth.0x7f.example/",
		"http://auth.example/",
		"https://xn--bcher-kva.example/",
	} {
		cfg, problems := ParseAnnotations(map[string]string{AnnotationPrefix + "auth-url": url})
		assert.Empty(t, problems, url)
		assert.Equal(t, url, cfg.Access.Forward.url)
	}
}

// allowedAuthHosts lets the hosts it names through, by the URL's host as
// written (any case, an IPv6 entry with or without brackets), and no
// other spelling of them.
func TestAllowedAuthHosts(t *testing.T) {
	o := &Options{AllowedAuthHosts: []string{"127.0.0.1", "[::1]", "LOCALHOST"}}
	for _, url := range []string{"http://127.0.0.1:8080/check", "http://[::1]:9000/", "http://localhost/", "http://LocalHost/"} {
		cfg, problems := o.ParseAnnotations(map[string]string{AnnotationPrefix + "auth-url": url, AnnotationPrefix + "auth-signin": url})
		assert.Empty(t, problems, url)
		assert.Equal(t, url, cfg.Access.Forward.url)
		assert.Equal(t, url, cfg.Access.Forward.signin)
	}
	for _, url := range []string{"http://127.1/", "http://2130706433/", "http://127.0.0.2/", "http://[::ffff:127.0.0.1]/", "http://169.254.169.254/"} {
		_, problems := o.ParseAnnotations(map[string]string{AnnotationPrefix + "auth-url": url})
		require.Len(t, problems, 1, url)
		assert.True(t, problems[0].Closed, url)
	}
}

func TestCheckAuthHosts(t *testing.T) {
	require.NoError(t, CheckAuthHosts(nil))
	require.NoError(t, CheckAuthHosts([]string{"127.0.0.1", "::1", "[::1]", "localhost", "auth.localhost", "fe80::1%eth0"}))
	for _, bad := range []string{"", "127.0.0.1:8080", "http://127.0.0.1", "localhost/check", "user@localhost", "local host"} {
		err := CheckAuthHosts([]string{"localhost", bad})
		require.Error(t, err, bad)
		assert.Contains(t, err.Error(), "without scheme, port or path")
	}
}
