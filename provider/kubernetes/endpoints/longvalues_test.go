package endpoints

import (
	"regexp"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	corev1 "k8s.io/api/core/v1"
	discoveryv1 "k8s.io/api/discovery/v1"
)

// TestLongValuesInProblems: a problem about a value of 250,000 bytes in a
// slice (an address, a port name, a label) quotes its start and says its
// length, in a text of a few hundred bytes.
func TestLongValuesInProblems(t *testing.T) {
	long := strings.Repeat("x", 250_000)
	length := regexp.MustCompile(`\.\.\."? \(250,00\d bytes\)`)
	managed := slice("managed", discoveryv1.AddressTypeIPv4, http(), ready("10.0.0.1"))
	managed.Labels = map[string]string{discoveryv1.LabelManagedBy: long}
	for _, tc := range []struct {
		name  string
		slice *discoveryv1.EndpointSlice
		port  string
		opts  Options
	}{
		{"IPv4 address", slice("a", discoveryv1.AddressTypeIPv4, http(), ready(long)), "http", Options{}},
		{"IPv6 address", slice("a", discoveryv1.AddressTypeIPv6, http(), ready(long)), "http", Options{}},
		{"FQDN", slice("a", discoveryv1.AddressTypeFQDN, http(), ready(long+"!")), "http", Options{AllowFQDN: true}},
		{"address type", slice("a", discoveryv1.AddressType(long), http(), ready("10.0.0.1")), "http", Options{}},
		{"port name", slice("a", discoveryv1.AddressTypeIPv4, []discoveryv1.EndpointPort{{Name: ptr(long)}}, ready("10.0.0.1")), long, Options{}},
		{"protocol", slice("a", discoveryv1.AddressTypeIPv4, []discoveryv1.EndpointPort{{Name: ptr(long), Port: ptr(int32(80)), Protocol: ptr(corev1.Protocol(long))}}, ready("10.0.0.1")), long, Options{}},
		{"manager", managed, "http", Options{Managers: []string{"endpointslice-controller.k8s.io"}}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, problems := Select([]*discoveryv1.EndpointSlice{tc.slice}, tc.port, tc.opts)
			require.Len(t, problems, 1)
			text := problems[0].Error()
			assert.Less(t, len(text), 1024, "%.600s", text)
			assert.Regexp(t, length, text)
		})
	}
}
