// Package serverurl writes the URL of a load-balancer server,
// scheme://host:port, the one way every part of sliceway writes it.
//
// The host:port part is what net.JoinHostPort(host, strconv.Itoa(port))
// returns: a host that holds a colon (an IPv6 literal) is put in brackets,
// any other (an IPv4 literal, a DNS name) is written as it is. Nothing is
// checked or escaped: the caller gives a valid scheme, a canonical host and
// a port in 1..65535, and the text written is exactly the parts joined.
package serverurl

import (
	"strconv"
	"strings"
)

// Append appends scheme://host:port to dst and returns the extended buffer,
// so that a caller writing many URLs can write them into one buffer.
func Append(dst []byte, scheme, host string, port int) []byte {
	dst = append(dst, scheme...)
	dst = append(dst, "://"...)
	if bracketed(host) {
		dst = append(dst, '[')
		dst = append(dst, host...)
		dst = append(dst, ']')
	} else {
		dst = append(dst, host...)
	}
	dst = append(dst, ':')
	return strconv.AppendInt(dst, int64(port), 10)
}

// String returns scheme://host:port; the string is all it allocates.
func String(scheme, host string, port int) string {
	var buf [64]byte // most URLs fit; a longer one is grown by append
	return string(Append(buf[:0], scheme, host, port))
}

// Len is len(String(scheme, host, port)), without writing it: what a
// caller that writes many URLs into one buffer grows it by.
func Len(scheme, host string, port int) int {
	n := len(scheme) + len("://") + len(host) + len(":") + digits(port)
	if bracketed(host) {
		n += len("[]")
	}
	return n
}

// bracketed says whether host goes in brackets: the rule of
// net.JoinHostPort, a colon anywhere.
func bracketed(host string) bool {
	return strings.IndexByte(host, ':') >= 0
}

// digits is len(strconv.Itoa(n)).
func digits(n int) int {
	d := 1
	if n < 0 {
		d++ // the sign; n/10 keeps negative numbers negative until 0
	}
	for n/10 != 0 {
		n /= 10
		d++
	}
	return d
}
