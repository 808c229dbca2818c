package ingress

import (
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

// certMemo remembers which certificate and key pairs were checked, by the
// hash of their content, so that a render does not parse every certificate
// again. It keeps only the pairs seen by the last two renders' worth of
// checks, so rotated certificates do not pile up.
type certMemo struct {
	mu      sync.Mutex
	current map[[sha256.Size]byte]error
	older   map[[sha256.Size]byte]error
}

// maxMemo is how many pairs a generation holds before it is rotated.
const maxMemo = 4096

func (m *certMemo) check(secret *corev1.Secret) (*dynamic.CertAndStores, error) {
	if m == nil {
		return certificate(secret)
	}
	h := sha256.New()
	h.Write(secret.Data[corev1.TLSCertKey])
	h.Write([]byte{0})
	h.Write(secret.Data[corev1.TLSPrivateKeyKey])
	var sum [sha256.Size]byte
	h.Sum(sum[:0])

	m.mu.Lock()
	err, ok := m.current[sum]
	if !ok {
		if err, ok = m.older[sum]; ok {
			m.remember(sum, err)
		}
	}
	m.mu.Unlock()
	if ok {
		if err != nil {
			return nil, err
		}
		crt, key := secret.Data[corev1.TLSCertKey], secret.Data[corev1.TLSPrivateKeyKey]
		return &dynamic.CertAndStores{Certificate: dynamic.Certificate{CertFile: string(crt), KeyFile: string(key)}}, nil
	}
	cert, err := certificate(secret)
	m.mu.Lock()
	m.remember(sum, err)
	m.mu.Unlock()
	return cert, err
}

func (m *certMemo) remember(sum [sha256.Size]byte, err error) {
	if m.current == nil || len(m.current) >= maxMemo {
		m.older, m.current = m.current, make(map[[sha256.Size]byte]error)
	}
	m.current[sum] = err
}
