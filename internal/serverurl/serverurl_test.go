package serverurl

import (
	"math"
	"net"
	"strconv"
	"testing"

	"github.com/stretchr/testify/require"
)

// joinHostPort is the reference every URL is checked against.
func joinHostPort(scheme, host string, port int) string {
	return scheme + "://" + net.JoinHostPort(host, strconv.Itoa(port))
}

func TestString(t *testing.T) {
	for _, tc := range []struct {
		scheme, host string
		port         int
		want         string
	}{
		{"http", "10.0.0.1", 8080, "http://10.0.0.1:8080"},
		{"https", "fd00::1", 443, "https://[fd00::1]:443"},
		{"http", "::", 80, "http://[::]:80"},
		{"http", "::ffff:10.0.0.1", 80, "http://[::ffff:10.0.0.1]:80"},
		{"h2c", "web.ns.svc.cluster.local", 9000, "h2c://web.ns.svc.cluster.local:9000"},
		{"http", "fe80::1%eth0", 1, "http://[fe80::1%eth0]:1"}, // zones are not refused here: that is the caller's rule
		{"", "", 0, "://:0"},
	} {
		got := String(tc.scheme, tc.host, tc.port)
		require.Equal(t, tc.want, got)
		require.Equal(t, joinHostPort(tc.scheme, tc.host, tc.port), got, "as net.JoinHostPort joins %q and %d", tc.host, tc.port)
	}
}

// TestPorts: every port in 0..65535, and numbers beyond on either side,
// are written as strconv.Itoa writes them, and Len counts them.
func TestPorts(t *testing.T) {
	ports := []int{-1, -10, 65536, 99999, 100000, math.MaxInt32, math.MaxInt64, math.MinInt64}
	for p := range 65536 {
		ports = append(ports, p)
	}
	buf := make([]byte, 0, 64)
	for _, host := range []string{"10.0.0.1", "fd00::1", "a.example"} {
		for _, p := range ports {
			want := joinHostPort("http", host, p)
			buf = Append(buf[:0], "http", host, p)
			if string(buf) != want {
				t.Fatalf("Append(%q, %d) = %q, want %q", host, p, buf, want)
			}
			if n := Len("http", host, p); n != len(want) {
				t.Fatalf("Len(%q, %d) = %d, want %d", host, p, n, len(want))
			}
		}
	}
}

// TestAppendKeepsWhatIsThere: Append writes after the buffer's content,
// so that one buffer holds many URLs.
func TestAppendKeepsWhatIsThere(t *testing.T) {
	b := Append(nil, "http", "10.0.0.1", 80)
	b = Append(b, "http", "fd00::2", 8080)
	require.Equal(t, "http://10.0.0.1:80http://[fd00::2]:8080", string(b))
}

// TestLongHost: a host longer than String's stack buffer (a DNS name may
// have 253 characters) is written whole.
func TestLongHost(t *testing.T) {
	host := ""
	for range 25 {
		host += "abcdefghi."
	}
	host += "example"
	require.Equal(t, joinHostPort("https", host, 65535), String("https", host, 65535))
	require.Equal(t, len(String("https", host, 65535)), Len("https", host, 65535))
}

func BenchmarkAppend(b *testing.B) {
	buf := make([]byte, 0, 64)
	for b.Loop() {
		buf = Append(buf[:0], "http", "fd00:10:0:1::2", 8080)
	}
}
