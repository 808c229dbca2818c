package main

import (
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/tls"
	"crypto/x509"
	"crypto/x509/pkix"
	"errors"
	"math/big"
	"strings"
	"time"

	"github.com/rs/zerolog"

	"github.com/sliceway/sliceway/config/dynamic"
)

// certificates are the certificates of one configuration, by the DNS names
// they are valid for (lower case; "*.example.com" for a wildcard).
type certificates map[string]*tls.Certificate

// buildCertificates loads the configuration's certificates, whose certFile
// and keyFile hold the PEM content itself, as sliceway always writes them.
func buildCertificates(conf *dynamic.TLSConfiguration, log zerolog.Logger) certificates {
	certs := certificates{}
	if conf == nil {
		return certs
	}
	for i, c := range conf.Certificates {
		if c == nil {
			continue
		}
		pair, err := tls.X509KeyPair([]byte(c.CertFile), []byte(c.KeyFile))
		if err != nil {
			log.Error().Err(err).Int("certificate", i).Msg("certificate does not load: skipped")
			continue
		}
		names := pair.Leaf.DNSNames
		if len(names) == 0 && pair.Leaf.Subject.CommonName != "" {
			names = []string{pair.Leaf.Subject.CommonName}
		}
		for _, n := range names {
			n = strings.ToLower(n)
			if _, taken := certs[n]; !taken {
				certs[n] = &pair
			}
		}
	}
	return certs
}

// get returns the certificate for a server name: one valid for the exact
// name, else one whose wildcard covers it, else nil.
func (c certificates) get(serverName string) *tls.Certificate {
	name := strings.ToLower(strings.TrimSuffix(serverName, "."))
	if cert := c[name]; cert != nil {
		return cert
	}
	if _, parent, ok := strings.Cut(name, "."); ok {
		return c["*."+parent]
	}
	return nil
}

// getCertificate picks the certificate of a TLS handshake from the current
// table, else the default certificate, as Traefik does.
func (px *proxy) getCertificate(hello *tls.ClientHelloInfo) (*tls.Certificate, error) {
	if t := px.current.Load(); t != nil {
		if cert := t.certs.get(hello.ServerName); cert != nil {
			return cert, nil
		}
	}
	if px.defaultCert == nil {
		return nil, errors.New("no certificate")
	}
	return px.defaultCert, nil
}

// selfSigned makes the default certificate, served when the configuration
// has none for the name asked for.
func selfSigned() (*tls.Certificate, error) {
	key, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		return nil, err
	}
	serial, err := rand.Int(rand.Reader, new(big.Int).Lsh(big.NewInt(1), 62))
	if err != nil {
		return nil, err
	}
	tmpl := &x509.Certificate{
		SerialNumber: serial,
		Subject:      pkix.Name{CommonName: "EMBEDPROXY DEFAULT CERT"},
		NotBefore:    time.Now().Add(-time.Hour),
		NotAfter:     time.Now().Add(365 * 24 * time.Hour),
		KeyUsage:     x509.KeyUsageDigitalSignature,
		ExtKeyUsage:  []x509.ExtKeyUsage{x509.ExtKeyUsageServerAuth},
	}
	der, err := x509.CreateCertificate(rand.Reader, tmpl, tmpl, &key.PublicKey, key)
	if err != nil {
		return nil, err
	}
	return &tls.Certificate{Certificate: [][]byte{der}, PrivateKey: key}, nil
}
