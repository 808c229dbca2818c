package loopback_test

import (
	"net"
	"strconv"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/sliceway/sliceway/internal/loopback"
)

func TestFreePortCanBeListenedOn(t *testing.T) {
	port, err := loopback.FreePort()
	require.NoError(t, err)
	require.Positive(t, port)
	l, err := net.Listen("tcp", net.JoinHostPort(loopback.Host, strconv.Itoa(port)))
	require.NoError(t, err, "the port was released")
	require.NoError(t, l.Close())
}

func TestFreeAddressIsOnLoopback(t *testing.T) {
	addr, err := loopback.FreeAddress()
	require.NoError(t, err)
	host, port, err := net.SplitHostPort(addr)
	require.NoError(t, err)
	require.Equal(t, "127.0.0.1", host)
	n, err := strconv.Atoi(port)
	require.NoError(t, err)
	require.True(t, n > 0 && n < 1<<16, n)
	l, err := net.Listen("tcp", addr)
	require.NoError(t, err, "the address was released")
	require.NoError(t, l.Close())
}
