package dynamic

import (
	"testing"

	"github.com/stretchr/testify/require"
)

// The hosts Traefik chooses TLS options by are those of Host matchers,
// whatever the quotes, in lower case; HostRegexp, HostSNI and strings
// that only look like a matcher choose none.
func TestRouterTLSHosts(t *testing.T) {
	for rule, want := range map[string][]string{
		"Host(`a.example`) && PathPrefix(`/`)":                  {"a.example"},
		`Host("A.Example") && Path("/Host(\"x\")")`:             {"a.example"},
		"(Host(`a.example`) || Host(`b.example`)) && Path(`/`)": {"a.example", "b.example"},
		"HostRegexp(`^a\\.example$`) && PathPrefix(`/`)":        nil,
		"HostSNI(`a.example`)":                                  nil,
		"PathPrefix(`/Host(`) && !Host(`c.example`)":            {"c.example"},
		"Host(`a.example`, `b.example`)":                        {"a.example", "b.example"},
		"MyHost(`a.example`)":                                   nil,
	} {
		require.Equal(t, want, (&Router{Rule: rule}).TLSHosts(), rule)
	}
}
