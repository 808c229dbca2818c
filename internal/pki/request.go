package pki

import (
	"crypto"
	"crypto/rsa"
	"crypto/x509"
	"crypto/x509/pkix"
	"errors"
	"fmt"
	"net"
	"time"
)

// Usage is what a leaf certificate may be used for: its extended key
// usages. A peer that checks them (Go's crypto/tls does) refuses a
// certificate for a use it does not list.
type Usage int

const (
	// ServerAuth is a TLS server's certificate.
	ServerAuth Usage = 1 << iota
	// ClientAuth is a TLS client's certificate, for mutual TLS.
	ClientAuth
)

// Request is what a certificate says: its subject, the hosts and uses it
// is valid for, its validity and its key.
type Request struct {
	// CommonName is the subject's common name. Peers match hosts against
	// Hosts, never against it.
	CommonName string
	// Hosts are the DNS names ("*.example.com" for a wildcard) and IP
	// addresses a leaf is valid for; an entry that parses as an IP
	// address is one. A CA has none.
	Hosts []string
	// Usage is what a leaf is for, at least one; a CA has none.
	Usage Usage
	// NotBefore is when the certificate starts being valid; zero is an
	// hour ago, so that a peer whose clock is a little behind accepts it.
	NotBefore time.Time
	// NotAfter is when it stops being valid; zero is a day from now.
	NotAfter time.Time
	// Key is the key pair the certificate is for; nil makes a fresh
	// ECDSA P-256 one. Several certificates may share a key. It must be
	// one PKCS #8 can hold (see PrivateKeyPEM).
	Key crypto.Signer
}

// validity is the request's validity, the defaults filled in.
func (r Request) validity(now time.Time) (notBefore, notAfter time.Time, err error) {
	notBefore, notAfter = r.NotBefore, r.NotAfter
	if notBefore.IsZero() {
		notBefore = now.Add(-time.Hour)
	}
	if notAfter.IsZero() {
		notAfter = now.Add(24 * time.Hour)
	}
	if !notAfter.After(notBefore) {
		return time.Time{}, time.Time{}, fmt.Errorf("pki: %q would expire (%s) before it is valid (%s)", r.CommonName, notAfter, notBefore)
	}
	return notBefore, notAfter, nil
}

// key is the request's key, a fresh one when it gives none.
func (r Request) key() (crypto.Signer, error) {
	if r.Key != nil {
		return r.Key, nil
	}
	return GenerateKey(ECDSAP256)
}

// leafTemplate is the template of a leaf certificate for the request.
func (r Request) leafTemplate(key crypto.Signer, now time.Time) (*x509.Certificate, error) {
	if r.Usage == 0 {
		return nil, fmt.Errorf("pki: leaf certificate %q has no usage (ServerAuth, ClientAuth)", r.CommonName)
	}
	if r.Usage&^(ServerAuth|ClientAuth) != 0 {
		return nil, fmt.Errorf("pki: leaf certificate %q: unknown usage %#x", r.CommonName, int(r.Usage))
	}
	notBefore, notAfter, err := r.validity(now)
	if err != nil {
		return nil, err
	}
	tmpl := &x509.Certificate{
		Subject:   pkix.Name{CommonName: r.CommonName},
		NotBefore: notBefore,
		NotAfter:  notAfter,
		KeyUsage:  x509.KeyUsageDigitalSignature,
		// A leaf says it is no CA, so that no verifier takes it for one.
		BasicConstraintsValid: true,
	}
	// TLS 1.2's RSA key exchange encrypts the session key to the
	// certificate's key: a peer using it checks for key encipherment.
	if _, ok := key.Public().(*rsa.PublicKey); ok {
		tmpl.KeyUsage |= x509.KeyUsageKeyEncipherment
	}
	if r.Usage&ServerAuth != 0 {
		tmpl.ExtKeyUsage = append(tmpl.ExtKeyUsage, x509.ExtKeyUsageServerAuth)
	}
	if r.Usage&ClientAuth != 0 {
		tmpl.ExtKeyUsage = append(tmpl.ExtKeyUsage, x509.ExtKeyUsageClientAuth)
	}
	for _, h := range r.Hosts {
		switch ip := net.ParseIP(h); {
		case h == "":
			return nil, fmt.Errorf("pki: leaf certificate %q: empty host", r.CommonName)
		case ip != nil:
			tmpl.IPAddresses = append(tmpl.IPAddresses, ip)
		default:
			tmpl.DNSNames = append(tmpl.DNSNames, h)
		}
	}
	return tmpl, nil
}

// caTemplate is the template of a CA certificate for the request.
func (r Request) caTemplate(now time.Time) (*x509.Certificate, error) {
	if len(r.Hosts) != 0 || r.Usage != 0 {
		return nil, errors.New("pki: a CA certificate has no hosts and no usage: its leaves do")
	}
	notBefore, notAfter, err := r.validity(now)
	if err != nil {
		return nil, err
	}
	return &x509.Certificate{
		Subject:               pkix.Name{CommonName: r.CommonName},
		NotBefore:             notBefore,
		NotAfter:              notAfter,
		KeyUsage:              x509.KeyUsageCertSign | x509.KeyUsageDigitalSignature,
		BasicConstraintsValid: true,
		IsCA:                  true,
		// It signs leaves only: a CA certificate it signed is refused.
		MaxPathLen:     0,
		MaxPathLenZero: true,
	}, nil
}
