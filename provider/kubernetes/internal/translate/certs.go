package translate

import (
	"bytes"
	"crypto/sha256"
	"crypto/tls"
	"encoding/pem"
	"fmt"
	"strings"
	"sync"

	corev1 "k8s.io/api/core/v1"

	"github.com/sliceway/sliceway/config/dynamic"
)

// certificate reads tls.crt and tls.key of a Secret: both must be PEM, and
// the key must match the certificate, or Traefik would refuse the pair.
func certificate(secret *corev1.Secret) (*dynamic.CertAndStores, error) {
	crt, key := secret.Data[corev1.TLSCertKey], secret.Data[corev1.TLSPrivateKeyKey]
	if len(crt) == 0 {
		return nil, fmt.Errorf("%s is missing or empty", corev1.TLSCertKey)
	}
	if len(key) == 0 {
		return nil, fmt.Errorf("%s is missing or empty", corev1.TLSPrivateKeyKey)
	}
	if !hasPEMBlock(crt, func(typ string) bool { return typ == "CERTIFICATE" }) {
		return nil, fmt.Errorf("%s holds no PEM CERTIFICATE block", corev1.TLSCertKey)
	}
	if !hasPEMBlock(key, func(typ string) bool { return strings.HasSuffix(typ, "PRIVATE KEY") }) {
		return nil, fmt.Errorf("%s holds no PEM PRIVATE KEY block", corev1.TLSPrivateKeyKey)
	}
	if _, err := tls.X509KeyPair(crt, key); err != nil {
		return nil, fmt.Errorf("%s and %s are not a valid certificate and key: %w", corev1.TLSCertKey, corev1.TLSPrivateKeyKey, err)
	}
	return &dynamic.CertAndStores{Certificate: dynamic.Certificate{CertFile: string(crt), KeyFile: string(key)}}, nil
}

func hasPEMBlock(data []byte, want func(string) bool) bool {
	for {
		var block *pem.Block
		block, data = pem.Decode(data)
		if block == nil {
			return false
		}
		if want(block.Type) {
			return true
		}
	}
}

// certMemo remembers the certificates checked, so that a render neither
// parses nor copies again a certificate it has seen: at ten thousand TLS
// Ingresses, checking every pair takes a second (a 2048-bit RSA key is
// 0.2 ms to parse), and copying them to strings tens of megabytes.
//
// A Secret's certificate is found by its namespace/name and taken when
// its content is the one checked (the very same bytes, as informer
// objects are replaced and never modified, or else equal ones). A Secret
// seen for the first time, or with a new content, is looked up by the hash
// of its content, so that copies of one pair (a wildcard certificate in
// many namespaces) are parsed once; the outcomes of the hashes seen last
// are kept, two generations of maxMemo pairs. The Secrets no Ingress names
// any longer are forgotten (prune).
type certMemo struct {
	mu      sync.Mutex
	secrets map[Key]*certCheck
	sums    generations[[sha256.Size]byte, error]
	parsed  int // pairs parsed so far, for tests
}

// certCheck is the certificate of a Secret, or why it has none.
type certCheck struct {
	crt, key []byte // what was checked: the Secret's data, last seen
	cert     *dynamic.CertAndStores
	err      error
}

// maxMemo is how many pairs a generation of hashes holds before it is rotated.
const maxMemo = 4096

// check returns the certificate of secret, whose namespace/name is id.
func (m *certMemo) check(id Key, secret *corev1.Secret) (*dynamic.CertAndStores, error) {
	crt, key := secret.Data[corev1.TLSCertKey], secret.Data[corev1.TLSPrivateKeyKey]
	m.mu.Lock()
	if c := m.secrets[id]; c != nil && c.holds(crt, key) {
		m.mu.Unlock()
		return c.cert, c.err
	}
	m.mu.Unlock()

	h := sha256.New()
	h.Write(crt)
	h.Write([]byte{0})
	h.Write(key)
	var sum [sha256.Size]byte
	h.Sum(sum[:0])
	m.mu.Lock()
	err, ok := m.sums.get(sum, maxMemo)
	m.mu.Unlock()
	c := &certCheck{crt: crt, key: key, err: err}
	switch {
	case !ok:
		c.cert, c.err = certificate(secret)
	case err == nil:
		// A pair parsed before, under this name or another.
		c.cert = &dynamic.CertAndStores{Certificate: dynamic.Certificate{CertFile: string(crt), KeyFile: string(key)}}
	}
	m.mu.Lock()
	if !ok {
		m.parsed++
		m.sums.put(sum, c.err, maxMemo)
	}
	if m.secrets == nil {
		m.secrets = map[Key]*certCheck{}
	}
	m.secrets[id] = c
	m.mu.Unlock()
	return c.cert, c.err
}

// holds says whether c was checked on this content: the very same bytes
// (at once), or equal ones, which it then keeps instead, so that the next
// check of the Secret is at once too.
func (c *certCheck) holds(crt, key []byte) bool {
	if sameBytes(c.crt, crt) && sameBytes(c.key, key) {
		return true
	}
	if bytes.Equal(c.crt, crt) && bytes.Equal(c.key, key) {
		c.crt, c.key = crt, key
		return true
	}
	return false
}

// sameBytes says whether a and b are the same bytes in memory.
func sameBytes(a, b []byte) bool {
	return len(a) == len(b) && (len(a) == 0 || &a[0] == &b[0])
}

// prune forgets the Secrets that are not in use (inUse says which are,
// of the count in use) once more are remembered than twice those in use,
// so that the Secrets of deleted namespaces do not pile up.
func (m *certMemo) prune(count int, inUse func(Key) bool) {
	m.mu.Lock()
	defer m.mu.Unlock()
	if len(m.secrets) <= 2*count+64 {
		return
	}
	for id := range m.secrets {
		if !inUse(id) {
			delete(m.secrets, id)
		}
	}
}
