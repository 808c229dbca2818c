package endpoints

import (
	"net"
	"strconv"
)

// Backend is one address and port to send traffic to.
type Backend struct {
	Address string // canonical IP text (netip.Addr.String()), or the lower-cased FQDN for FQDN slices
	Port    int32
	Fenced  bool // serving but terminating: only existing (sticky) sessions may reach it

	url string // scheme://host:port, written by Prepare, when the backend came from a prepared slice
}

// URL returns scheme://host:port of the backend when Prepare wrote it for
// that scheme (a backend that AppendSelectPrepared took from a prepared
// slice), without building a string; ok is false otherwise.
func (b Backend) URL(scheme string) (url string, ok bool) {
	n := len(scheme)
	if len(b.url) > n+3 && b.url[:n] == scheme && b.url[n:n+3] == "://" {
		return b.url, true
	}
	return "", false
}

// HostPort returns address:port, IPv6 in brackets (net.JoinHostPort).
func (b Backend) HostPort() string {
	return net.JoinHostPort(b.Address, strconv.Itoa(int(b.Port)))
}
