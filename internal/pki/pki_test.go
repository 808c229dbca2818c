package pki_test

import (
	"crypto"
	"crypto/rand"
	"crypto/rsa"
	"crypto/tls"
	"crypto/x509"
	"encoding/pem"
	"net"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/sliceway/sliceway/internal/pki"
)

func newCA(t *testing.T, name string) *pki.CA {
	t.Helper()
	ca, err := pki.NewCA(pki.Request{CommonName: name})
	require.NoError(t, err)
	return ca
}

func poolOf(certs ...*x509.Certificate) *x509.CertPool {
	pool := x509.NewCertPool()
	for _, c := range certs {
		pool.AddCert(c)
	}
	return pool
}

// verify checks leaf against roots for one extended key usage.
func verify(leaf *x509.Certificate, roots *x509.CertPool, usage x509.ExtKeyUsage) error {
	_, err := leaf.Verify(x509.VerifyOptions{Roots: roots, KeyUsages: []x509.ExtKeyUsage{usage}})
	return err
}

func TestIssuedCertificateVerifiesForItsUsageOnly(t *testing.T) {
	ca, other := newCA(t, "test CA"), newCA(t, "other CA")
	for _, tc := range []struct {
		name           string
		usage          pki.Usage
		server, client bool
	}{
		{"server", pki.ServerAuth, true, false},
		{"client", pki.ClientAuth, false, true},
		{"both", pki.ServerAuth | pki.ClientAuth, true, true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			leaf, err := ca.Issue(pki.Request{CommonName: tc.name, Usage: tc.usage})
			require.NoError(t, err)
			assert.False(t, leaf.Cert.IsCA)
			assert.Equal(t, ca.Cert.RawSubject, leaf.Cert.RawIssuer)

			for usage, want := range map[x509.ExtKeyUsage]bool{x509.ExtKeyUsageServerAuth: tc.server, x509.ExtKeyUsageClientAuth: tc.client} {
				err := verify(leaf.Cert, poolOf(ca.Cert), usage)
				if want {
					assert.NoError(t, err, "usage %d", usage)
				} else {
					var invalid x509.CertificateInvalidError
					require.ErrorAs(t, err, &invalid, "usage %d", usage)
					assert.Equal(t, x509.IncompatibleUsage, invalid.Reason)
				}
			}
			var unknown x509.UnknownAuthorityError
			require.ErrorAs(t, verify(leaf.Cert, poolOf(other.Cert), x509.ExtKeyUsageAny), &unknown, "another CA does not vouch for it")
		})
	}
}

func TestHostsAreSubjectAlternativeNames(t *testing.T) {
	ca := newCA(t, "test CA")
	leaf, err := ca.Issue(pki.Request{
		CommonName: "not-a-host.example",
		Hosts:      []string{"web.example", "*.apps.example", "127.0.0.1", "::1"},
		Usage:      pki.ServerAuth,
	})
	require.NoError(t, err)
	assert.Equal(t, []string{"web.example", "*.apps.example"}, leaf.Cert.DNSNames)
	require.Len(t, leaf.Cert.IPAddresses, 2)
	assert.True(t, leaf.Cert.IPAddresses[0].Equal(net.IPv4(127, 0, 0, 1)))
	assert.True(t, leaf.Cert.IPAddresses[1].Equal(net.IPv6loopback))
	assert.Equal(t, "not-a-host.example", leaf.Cert.Subject.CommonName)

	for _, host := range []string{"web.example", "shop.apps.example", "127.0.0.1", "::1"} {
		_, err := leaf.Cert.Verify(x509.VerifyOptions{Roots: poolOf(ca.Cert), DNSName: host})
		assert.NoError(t, err, host)
	}
	for _, host := range []string{"other.example", "not-a-host.example", "a.b.apps.example", "127.0.0.2"} {
		_, err := leaf.Cert.Verify(x509.VerifyOptions{Roots: poolOf(ca.Cert), DNSName: host})
		var hostErr x509.HostnameError
		assert.ErrorAs(t, err, &hostErr, host)
	}
}

func TestSelfSignedIsTrustedAsItsOwnRootOnly(t *testing.T) {
	leaf, err := pki.SelfSigned(pki.Request{CommonName: "web.example", Hosts: []string{"web.example"}, Usage: pki.ServerAuth})
	require.NoError(t, err)
	assert.False(t, leaf.Cert.IsCA)
	assert.Equal(t, leaf.Cert.RawSubject, leaf.Cert.RawIssuer)
	require.NoError(t, leaf.Cert.CheckSignatureFrom(&x509.Certificate{
		Raw: leaf.Cert.Raw, RawSubject: leaf.Cert.RawSubject, PublicKey: leaf.Cert.PublicKey, PublicKeyAlgorithm: leaf.Cert.PublicKeyAlgorithm,
	}), "signed by its own key")

	_, err = leaf.Cert.Verify(x509.VerifyOptions{Roots: poolOf(leaf.Cert), DNSName: "web.example"})
	require.NoError(t, err)
	var unknown x509.UnknownAuthorityError
	require.ErrorAs(t, verify(leaf.Cert, x509.NewCertPool(), x509.ExtKeyUsageServerAuth), &unknown)
}

func TestCASignsLeavesOnly(t *testing.T) {
	ca := newCA(t, "root")
	assert.True(t, ca.Cert.IsCA)
	assert.True(t, ca.Cert.BasicConstraintsValid)
	assert.Equal(t, x509.KeyUsageCertSign, ca.Cert.KeyUsage&x509.KeyUsageCertSign)
	assert.True(t, ca.Cert.MaxPathLenZero)
	assert.Equal(t, "root", ca.Cert.Subject.CommonName)

	// A CA the root signed (built by hand: pki makes none) is refused
	// as an intermediate.
	inter, err := pki.NewCA(pki.Request{CommonName: "intermediate"})
	require.NoError(t, err)
	tmpl := *inter.Cert
	der, err := x509.CreateCertificate(rand.Reader, &tmpl, ca.Cert, inter.Key.Public(), ca.Key)
	require.NoError(t, err)
	signedInter, err := x509.ParseCertificate(der)
	require.NoError(t, err)
	interCA := pki.CA{Certificate: pki.Certificate{Cert: signedInter, Key: inter.Key}}
	leaf, err := interCA.Issue(pki.Request{CommonName: "leaf", Usage: pki.ServerAuth})
	require.NoError(t, err)
	_, err = leaf.Cert.Verify(x509.VerifyOptions{Roots: poolOf(ca.Cert), Intermediates: poolOf(signedInter)})
	var invalid x509.CertificateInvalidError
	require.ErrorAs(t, err, &invalid)
	assert.Equal(t, x509.TooManyIntermediates, invalid.Reason)
}

func TestRefusesContradictoryRequests(t *testing.T) {
	ca := newCA(t, "test CA")
	for name, r := range map[string]pki.Request{
		"no usage":            {CommonName: "x"},
		"unknown usage":       {CommonName: "x", Usage: 1 << 5},
		"empty host":          {CommonName: "x", Usage: pki.ServerAuth, Hosts: []string{"a.example", ""}},
		"expires before born": {CommonName: "x", Usage: pki.ServerAuth, NotBefore: time.Now(), NotAfter: time.Now().Add(-time.Minute)},
	} {
		_, err := ca.Issue(r)
		assert.Error(t, err, "issue: %s", name)
		_, err = pki.SelfSigned(r)
		assert.Error(t, err, "self-signed: %s", name)
	}
	for name, r := range map[string]pki.Request{
		"hosts": {CommonName: "ca", Hosts: []string{"a.example"}},
		"usage": {CommonName: "ca", Usage: pki.ServerAuth},
	} {
		_, err := pki.NewCA(r)
		assert.Error(t, err, "CA with %s", name)
	}
	_, err := pki.GenerateKey(pki.KeyType(99))
	assert.Error(t, err)
}

func TestValidity(t *testing.T) {
	ca := newCA(t, "test CA")
	before := time.Now().Truncate(time.Second)
	leaf, err := ca.Issue(pki.Request{CommonName: "default", Usage: pki.ServerAuth})
	require.NoError(t, err)
	after := time.Now()
	// X.509 times have whole seconds: the bounds are truncated.
	assert.WithinRange(t, leaf.Cert.NotBefore, before.Add(-time.Hour-time.Second), after.Add(-time.Hour))
	assert.WithinRange(t, leaf.Cert.NotAfter, before.Add(24*time.Hour-time.Second), after.Add(24*time.Hour))

	// Dates far from now, on both sides of 2050 (UTCTime, then
	// GeneralizedTime), are kept to the second.
	from, to := time.Unix(0, 0).UTC(), time.Date(2070, 1, 1, 0, 0, 0, 0, time.UTC)
	old, err := pki.SelfSigned(pki.Request{CommonName: "fixed", Usage: pki.ServerAuth, NotBefore: from, NotAfter: to})
	require.NoError(t, err)
	assert.True(t, old.Cert.NotBefore.Equal(from), old.Cert.NotBefore)
	assert.True(t, old.Cert.NotAfter.Equal(to), old.Cert.NotAfter)

	_, err = leaf.Cert.Verify(x509.VerifyOptions{Roots: poolOf(ca.Cert), CurrentTime: time.Now().Add(25 * time.Hour)})
	var invalid x509.CertificateInvalidError
	require.ErrorAs(t, err, &invalid)
	assert.Equal(t, x509.Expired, invalid.Reason)
}

func TestPEMRoundTrip(t *testing.T) {
	rsaKey, err := pki.GenerateKey(pki.RSA2048)
	require.NoError(t, err)
	ca := newCA(t, "test CA")
	for name, key := range map[string]*rsa.PrivateKey{"ECDSA": nil, "RSA": rsaKey.(*rsa.PrivateKey)} {
		t.Run(name, func(t *testing.T) {
			r := pki.Request{CommonName: "web", Hosts: []string{"web.example"}, Usage: pki.ServerAuth}
			if key != nil {
				r.Key = key
			}
			leaf, err := ca.Issue(r)
			require.NoError(t, err)

			block, rest := pem.Decode(leaf.CertPEM())
			require.NotNil(t, block)
			assert.Empty(t, rest)
			assert.Equal(t, "CERTIFICATE", block.Type)
			assert.Equal(t, leaf.Cert.Raw, block.Bytes)

			block, rest = pem.Decode(leaf.KeyPEM())
			require.NotNil(t, block)
			assert.Empty(t, rest)
			assert.Equal(t, "PRIVATE KEY", block.Type)
			parsed, err := x509.ParsePKCS8PrivateKey(block.Bytes)
			require.NoError(t, err)
			public := leaf.Key.Public().(interface{ Equal(crypto.PublicKey) bool })
			assert.True(t, public.Equal(parsed.(crypto.Signer).Public()), "the key read back")
			assert.True(t, public.Equal(leaf.Cert.PublicKey), "the certificate is for its key")

			pair, err := tls.X509KeyPair(leaf.CertPEM(), leaf.KeyPEM())
			require.NoError(t, err, "crypto/tls loads the pair")
			assert.Equal(t, leaf.Cert.Raw, pair.Leaf.Raw)
		})
	}

	// Each call returns a slice of its own: a chain appended to one
	// leaves the next call's untouched.
	chain := append(ca.CertPEM(), []byte("more")...)
	chain[0] = 'X'
	assert.NotEqual(t, chain[:len(chain)-4], ca.CertPEM())
	block, _ := pem.Decode(ca.CertPEM())
	require.NotNil(t, block)
	assert.Equal(t, ca.Cert.Raw, block.Bytes)
}

func TestSharedKey(t *testing.T) {
	key, err := pki.GenerateKey(pki.RSA2048)
	require.NoError(t, err)
	ca := newCA(t, "test CA")
	a, err := ca.Issue(pki.Request{CommonName: "a", Usage: pki.ServerAuth, Key: key})
	require.NoError(t, err)
	b, err := ca.Issue(pki.Request{CommonName: "b", Usage: pki.ServerAuth, Key: key})
	require.NoError(t, err)
	for _, c := range []*pki.Certificate{a, b} {
		assert.True(t, key.Public().(*rsa.PublicKey).Equal(c.Cert.PublicKey), c.Cert.Subject.CommonName)
		assert.Equal(t, x509.KeyUsageDigitalSignature|x509.KeyUsageKeyEncipherment, c.Cert.KeyUsage, "RSA key exchange needs key encipherment")
	}
	assert.NotEqual(t, 0, a.Cert.SerialNumber.Cmp(b.Cert.SerialNumber), "an issuer's serial numbers differ")
	assert.Positive(t, a.Cert.SerialNumber.Sign())

	ec, err := ca.Issue(pki.Request{CommonName: "ec", Usage: pki.ClientAuth})
	require.NoError(t, err)
	assert.Equal(t, x509.KeyUsageDigitalSignature, ec.Cert.KeyUsage, "an ECDSA key encrypts nothing")
}

func TestPublicKeyPEM(t *testing.T) {
	key, err := pki.GenerateKey(pki.RSA2048)
	require.NoError(t, err)
	pubPEM, err := pki.PublicKeyPEM(key.Public())
	require.NoError(t, err)
	block, rest := pem.Decode(pubPEM)
	require.NotNil(t, block)
	assert.Empty(t, rest)
	assert.Equal(t, "PUBLIC KEY", block.Type)
	pub, err := x509.ParsePKIXPublicKey(block.Bytes)
	require.NoError(t, err)
	assert.True(t, key.Public().(*rsa.PublicKey).Equal(pub))

	privPEM, err := pki.PrivateKeyPEM(key)
	require.NoError(t, err)
	block, _ = pem.Decode(privPEM)
	require.NotNil(t, block)
	priv, err := x509.ParsePKCS8PrivateKey(block.Bytes)
	require.NoError(t, err)
	assert.True(t, key.(*rsa.PrivateKey).Equal(priv))
}

// handshake runs a TLS handshake between server and client over a
// loopback TCP connection, whose buffers let either side finish while the
// other still writes, and returns each side's error.
func handshake(t *testing.T, server, client *tls.Config) (serverErr, clientErr error) {
	t.Helper()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	require.NoError(t, err)
	defer func() { _ = l.Close() }()
	done := make(chan error, 1)
	go func() {
		raw, err := l.Accept()
		if err != nil {
			done <- err
			return
		}
		defer func() { _ = raw.Close() }()
		done <- tls.Server(raw, server).Handshake()
	}()
	raw, err := net.Dial("tcp", l.Addr().String())
	require.NoError(t, err)
	defer func() { _ = raw.Close() }()
	clientErr = tls.Client(raw, client).Handshake()
	return <-done, clientErr
}

func TestMutualTLSHandshake(t *testing.T) {
	serverCA, clientCA := newCA(t, "server CA"), newCA(t, "client CA")
	server, err := serverCA.Issue(pki.Request{CommonName: "server", Hosts: []string{"localhost", "127.0.0.1"}, Usage: pki.ServerAuth})
	require.NoError(t, err)
	client, err := clientCA.Issue(pki.Request{CommonName: "client", Usage: pki.ClientAuth})
	require.NoError(t, err)
	serverOnly, err := clientCA.Issue(pki.Request{CommonName: "not a client", Usage: pki.ServerAuth})
	require.NoError(t, err)

	serverConf := &tls.Config{
		Certificates: []tls.Certificate{server.TLSCertificate()},
		ClientAuth:   tls.RequireAndVerifyClientCert,
		ClientCAs:    poolOf(clientCA.Cert),
	}
	clientConf := func(serverName string, cert *pki.Certificate) *tls.Config {
		return &tls.Config{ServerName: serverName, RootCAs: poolOf(serverCA.Cert), Certificates: []tls.Certificate{cert.TLSCertificate()}}
	}

	for _, name := range []string{"localhost", "127.0.0.1"} {
		serverErr, clientErr := handshake(t, serverConf, clientConf(name, client))
		require.NoError(t, serverErr, name)
		require.NoError(t, clientErr, name)
	}

	serverErr, _ := handshake(t, serverConf, clientConf("localhost", serverOnly))
	require.Error(t, serverErr, "a certificate for servers is no client's")
	var invalid x509.CertificateInvalidError
	require.ErrorAs(t, serverErr, &invalid)
	assert.Equal(t, x509.IncompatibleUsage, invalid.Reason)

	_, clientErr := handshake(t, serverConf, clientConf("elsewhere.example", client))
	var hostErr x509.HostnameError
	require.ErrorAs(t, clientErr, &hostErr, "the server's certificate names no other host")
}
