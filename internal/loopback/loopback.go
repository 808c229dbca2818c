// Package loopback finds free TCP ports on the IPv4 loopback address, for
// a test that starts a program which must be told where to listen (one
// that cannot listen on port 0 and say which port it got).
//
// A port is free when it is returned, not after: another program may bind
// it before the caller's does. A test that starts a server on it sees that
// as the server failing to listen (address in use), never as a hang.
package loopback

import (
	"fmt"
	"net"
	"strconv"
)

// Host is the loopback address the ports are on.
const Host = "127.0.0.1"

// FreePort returns a TCP port of Host that was free a moment ago: the
// kernel gave it to a listener, closed before FreePort returns.
func FreePort() (int, error) {
	l, err := net.Listen("tcp", net.JoinHostPort(Host, "0"))
	if err != nil {
		return 0, fmt.Errorf("loopback: finding a free port: %w", err)
	}
	port := l.Addr().(*net.TCPAddr).Port
	if err := l.Close(); err != nil {
		return 0, fmt.Errorf("loopback: releasing port %d: %w", port, err)
	}
	return port, nil
}

// FreeAddress is a free port with its host, "127.0.0.1:port", as a listen
// address is given.
func FreeAddress() (string, error) {
	port, err := FreePort()
	if err != nil {
		return "", err
	}
	return net.JoinHostPort(Host, strconv.Itoa(port)), nil
}
