package pki

import (
	"crypto"
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/rsa"
	"crypto/x509"
	"encoding/pem"
	"fmt"
)

// KeyType is the algorithm and size of a generated key.
type KeyType int

const (
	// ECDSAP256 is an ECDSA key on curve P-256: fast to make, and what
	// every certificate here has unless it is given another key.
	ECDSAP256 KeyType = iota
	// RSA2048 is a 2048-bit RSA key, for a peer that needs RSA (the
	// service-account signing key of a Kubernetes API server, a
	// certificate shaped as cert-manager's defaults make them). Making
	// one takes about a tenth of a second.
	RSA2048
)

// GenerateKey makes a key pair of the type.
func GenerateKey(t KeyType) (crypto.Signer, error) {
	switch t {
	case ECDSAP256:
		return ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	case RSA2048:
		return rsa.GenerateKey(rand.Reader, 2048)
	default:
		return nil, fmt.Errorf("pki: unknown key type %d", t)
	}
}

// PrivateKeyPEM encodes a private key as a PEM "PRIVATE KEY" block
// (PKCS #8), which Go's crypto/tls, OpenSSL and Kubernetes all read
// whatever the key's algorithm. It fails for a key PKCS #8 cannot hold
// (one whose private part is not in memory, as a hardware key's).
func PrivateKeyPEM(key crypto.Signer) ([]byte, error) {
	der, err := x509.MarshalPKCS8PrivateKey(key)
	if err != nil {
		return nil, fmt.Errorf("pki: encoding the private key: %w", err)
	}
	return pem.EncodeToMemory(&pem.Block{Type: "PRIVATE KEY", Bytes: der}), nil
}

// PublicKeyPEM encodes a public key as a PEM "PUBLIC KEY" block (PKIX,
// SubjectPublicKeyInfo), as a verifier that is given the public half
// alone reads it.
func PublicKeyPEM(pub crypto.PublicKey) ([]byte, error) {
	der, err := x509.MarshalPKIXPublicKey(pub)
	if err != nil {
		return nil, fmt.Errorf("pki: encoding the public key: %w", err)
	}
	return pem.EncodeToMemory(&pem.Block{Type: "PUBLIC KEY", Bytes: der}), nil
}
