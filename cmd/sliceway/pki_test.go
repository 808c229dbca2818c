package main

import (
	"crypto/tls"
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/sliceway/sliceway/internal/pki"
)

// testCA is a certificate authority made for one test.
type testCA struct{ *pki.CA }

func newTestCA(t *testing.T, name string) *testCA {
	t.Helper()
	ca, err := pki.NewCA(pki.Request{CommonName: name})
	require.NoError(t, err)
	return &testCA{ca}
}

// issue signs a leaf certificate for a server on 127.0.0.1 (or
// localhost) or for a client, and returns its certificate and key in PEM.
func (ca *testCA) issue(t *testing.T, name string, usage pki.Usage) (certPEM, keyPEM []byte) {
	t.Helper()
	r := pki.Request{CommonName: name, Usage: usage}
	if usage&pki.ServerAuth != 0 {
		r.Hosts = []string{"127.0.0.1", "localhost"}
	}
	cert, err := ca.Issue(r)
	require.NoError(t, err)
	return cert.CertPEM(), cert.KeyPEM()
}

// clientPair is a client certificate the ca signed, for an http.Client.
func (ca *testCA) clientPair(t *testing.T, name string) tls.Certificate {
	t.Helper()
	cert, err := ca.Issue(pki.Request{CommonName: name, Usage: pki.ClientAuth})
	require.NoError(t, err)
	return cert.TLSCertificate()
}

// writePEM writes data to dir/name, replacing it as a rotation does.
func writePEM(t *testing.T, dir, name string, data []byte) string {
	t.Helper()
	path := filepath.Join(dir, name)
	tmp := path + ".new"
	require.NoError(t, os.WriteFile(tmp, data, 0o600))
	require.NoError(t, os.Rename(tmp, path))
	return path
}
