package main

import (
	"crypto/tls"
	"errors"
	"strings"
	"time"

	"github.com/rs/zerolog"

	"github.com/sliceway/sliceway/config/dynamic"
	"github.com/sliceway/sliceway/internal/pki"
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
// has none for the name asked for. It names no host: no client that
// verifies names trusts it, as none should.
func selfSigned() (*tls.Certificate, error) {
	cert, err := pki.SelfSigned(pki.Request{
		CommonName: "EMBEDPROXY DEFAULT CERT",
		Usage:      pki.ServerAuth,
		NotAfter:   time.Now().Add(365 * 24 * time.Hour),
	})
	if err != nil {
		return nil, err
	}
	pair := cert.TLSCertificate()
	return &pair, nil
}
