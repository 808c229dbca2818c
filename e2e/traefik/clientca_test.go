package traefike2e

import (
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/tls"
	"crypto/x509"
	"crypto/x509/pkix"
	"encoding/base64"
	"encoding/pem"
	"fmt"
	"math/big"
	"sync"
	"time"
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
	caKey, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		return nil, err
	}
	caTmpl := &x509.Certificate{
		SerialNumber:          randomSerial(),
		Subject:               pkix.Name{CommonName: "CA " + key, Organization: []string{"sliceway e2e"}},
		NotBefore:             time.Now().Add(-time.Hour),
		NotAfter:              time.Now().Add(24 * time.Hour),
		KeyUsage:              x509.KeyUsageCertSign | x509.KeyUsageDigitalSignature,
		BasicConstraintsValid: true,
		IsCA:                  true,
	}
	caDER, err := x509.CreateCertificate(rand.Reader, caTmpl, caTmpl, &caKey.PublicKey, caKey)
	if err != nil {
		return nil, err
	}
	caCert, err := x509.ParseCertificate(caDER)
	if err != nil {
		return nil, err
	}
	clientKey, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		return nil, err
	}
	clientTmpl := &x509.Certificate{
		SerialNumber: randomSerial(),
		Subject:      pkix.Name{CommonName: "client of " + key, Organization: []string{"sliceway e2e"}},
		NotBefore:    time.Now().Add(-time.Hour),
		NotAfter:     time.Now().Add(24 * time.Hour),
		KeyUsage:     x509.KeyUsageDigitalSignature,
		ExtKeyUsage:  []x509.ExtKeyUsage{x509.ExtKeyUsageClientAuth},
	}
	clientDER, err := x509.CreateCertificate(rand.Reader, clientTmpl, caCert, &clientKey.PublicKey, caKey)
	if err != nil {
		return nil, err
	}
	return &clientCA{
		pem:    pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: caDER}),
		client: &tls.Certificate{Certificate: [][]byte{clientDER}, PrivateKey: clientKey},
	}, nil
}

func randomSerial() *big.Int {
	n, err := rand.Int(rand.Reader, new(big.Int).Lsh(big.NewInt(1), 62))
	if err != nil {
		panic(err) // crypto/rand does not fail
	}
	return n
}
