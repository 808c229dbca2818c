package traefike2e

import (
	"crypto/tls"
	"encoding/base64"
	"fmt"
	"sync"

	"github.com/sliceway/sliceway/internal/pki"
)

// clientCAs are the certificate authorities of the cases' client
// certificate Secrets ({{ caSecret "name" }}: a Secret whose ca.crt is a
// CA's certificate), by namespace/name, each with a client certificate
// it signed, which a request presents (Request.ClientCert). They are
// made once, so a rewrite of a case's manifests keeps them.
type clientCAs struct {
	mu sync.Mutex
	by map[string]*clientCA
}

type clientCA struct {
	pem    []byte // the CA's certificate
	client *tls.Certificate
}

func newClientCAs() *clientCAs { return &clientCAs{by: map[string]*clientCA{}} }

// secret writes the Secret of the CA namespace/name, made now if it is
// new.
func (c *clientCAs) secret(ns, name string) (string, error) {
	key := ns + "/" + name
	c.mu.Lock()
	defer c.mu.Unlock()
	ca, ok := c.by[key]
	if !ok {
		var err error
		if ca, err = newClientCA(key); err != nil {
			return "", fmt.Errorf("caSecret %q: %w", name, err)
		}
		c.by[key] = ca
	}
	return fmt.Sprintf(`---
apiVersion: v1
kind: Secret
metadata:
  name: %s
  namespace: %s
type: Opaque
data:
  ca.crt: %s
`, name, ns, base64.StdEncoding.EncodeToString(ca.pem)), nil
}

// certificate is the client certificate the CA of Secret namespace/name
// signed, nil if no case wrote that caSecret.
func (c *clientCAs) certificate(key string) *tls.Certificate {
	c.mu.Lock()
	defer c.mu.Unlock()
	if ca := c.by[key]; ca != nil {
		return ca.client
	}
	return nil
}

// newClientCA makes a CA (ECDSA P-256, valid from an hour ago for a day)
// and a client certificate it signs, for a client named after the CA.
func newClientCA(key string) (*clientCA, error) {
	ca, err := pki.NewCA(pki.Request{CommonName: "CA " + key})
	if err != nil {
		return nil, err
	}
	client, err := ca.Issue(pki.Request{CommonName: "client of " + key, Usage: pki.ClientAuth})
	if err != nil {
		return nil, err
	}
	pair := client.TLSCertificate()
	return &clientCA{pem: ca.CertPEM(), client: &pair}, nil
}
