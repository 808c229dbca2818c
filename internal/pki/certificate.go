package pki

import (
	"bytes"
	"crypto"
	"crypto/rand"
	"crypto/tls"
	"crypto/x509"
	"encoding/pem"
	"fmt"
	"time"
)

// Certificate is a certificate and its private key.
type Certificate struct {
	// Cert is the certificate, parsed; Cert.Raw is its DER.
	Cert *x509.Certificate
	// Key is its private key.
	Key crypto.Signer

	certPEM, keyPEM []byte
}

// SelfSigned makes a leaf certificate signed by its own key: one a peer
// trusts only when it is given this very certificate as a root.
func SelfSigned(r Request) (*Certificate, error) {
	key, err := r.key()
	if err != nil {
		return nil, err
	}
	tmpl, err := r.leafTemplate(key, time.Now())
	if err != nil {
		return nil, err
	}
	return sign(tmpl, tmpl, key, key)
}

// CertPEM is the certificate as a PEM "CERTIFICATE" block. The slice is
// the caller's own: appending to it (a chain) changes no other.
func (c *Certificate) CertPEM() []byte { return bytes.Clone(c.certPEM) }

// KeyPEM is the private key as a PEM "PRIVATE KEY" block (PKCS #8). The
// slice is the caller's own.
func (c *Certificate) KeyPEM() []byte { return bytes.Clone(c.keyPEM) }

// TLSCertificate is the certificate and key as crypto/tls serves or
// presents them.
func (c *Certificate) TLSCertificate() tls.Certificate {
	return tls.Certificate{Certificate: [][]byte{c.Cert.Raw}, PrivateKey: c.Key, Leaf: c.Cert}
}

// sign makes the certificate of tmpl for key, signed by issuer's key
// signer (the certificate's own key when it signs itself).
func sign(tmpl, issuer *x509.Certificate, key, signer crypto.Signer) (*Certificate, error) {
	// The key is encoded first: a key PKCS #8 cannot hold is refused
	// before anything is signed for it.
	keyPEM, err := PrivateKeyPEM(key)
	if err != nil {
		return nil, err
	}
	// A nil SerialNumber has crypto/x509 draw a random one, as RFC 5280
	// asks: no two certificates of an issuer share one.
	der, err := x509.CreateCertificate(rand.Reader, tmpl, issuer, key.Public(), signer)
	if err != nil {
		return nil, fmt.Errorf("pki: signing %q: %w", tmpl.Subject.CommonName, err)
	}
	cert, err := x509.ParseCertificate(der)
	if err != nil {
		return nil, fmt.Errorf("pki: reading back %q: %w", tmpl.Subject.CommonName, err)
	}
	return &Certificate{
		Cert:    cert,
		Key:     key,
		certPEM: pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: der}),
		keyPEM:  keyPEM,
	}, nil
}
