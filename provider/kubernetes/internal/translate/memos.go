package translate

import corev1 "k8s.io/api/core/v1"

// Memos are what translation remembers across renders so as not to work
// again: what sets of router and service annotations decoded into, and
// the certificates checked. What they hold depends on the objects alone,
// never on the options, so that renders with other options may share
// them. The zero value is ready; they are safe for concurrent use.
type Memos struct {
	routerSets  annotationMemo[*routerAnnotations]
	serviceSets annotationMemo[*serviceAnnotations]
	certs       certMemo
}

// PruneCertificates forgets the certificates of the Secrets that are not
// keys of inUse, once many more are remembered than are in use.
func PruneCertificates[V any](m *Memos, inUse map[Key]V) {
	m.certs.prune(len(inUse), func(k Key) bool { _, ok := inUse[k]; return ok })
}

// CertificatesParsed is how many certificate pairs m has parsed so far:
// how much work the memo saved shows in it.
func (m *Memos) CertificatesParsed() int {
	m.certs.mu.Lock()
	defer m.certs.mu.Unlock()
	return m.certs.parsed
}

// CheckCertificate says whether secret holds a certificate and key
// Traefik takes (PEM, the key matching the certificate), as a render
// checks the certificates it writes, through the same memo: a Gateway
// listener whose Secret does not is refused (ResolvedRefs=False).
func (m *Memos) CheckCertificate(secret *corev1.Secret) error {
	if err := CheckSecretData(secret); err != nil {
		return err
	}
	_, err := m.certs.check(Key{Namespace: secret.Namespace, Name: secret.Name}, secret)
	return err
}
