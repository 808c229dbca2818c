package clustergen

import (
	"crypto"
	"fmt"
	"time"

	corev1 "k8s.io/api/core/v1"
	netv1 "k8s.io/api/networking/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"

	"github.com/sliceway/sliceway/internal/pki"
)

// TLSKeys is how many RSA keys the certificates of WithTLS share: each
// certificate is its own, but making a 2048-bit key takes a tenth of a
// second, and a pair is checked the same whoever else has its key.
const TLSKeys = 4

// WithTLS gives every generated Ingress a spec.tls entry for its host and
// a kubernetes.io/tls Secret of its own, as cert-manager leaves them: a
// certificate for the host (2048-bit RSA key, signed by a generated CA,
// the CA's certificate after it) and its key. It appends the Secrets to
// objs and returns them.
func WithTLS(objs []runtime.Object) ([]runtime.Object, error) {
	// Fixed dates, a century long: a generated cluster rendered at any
	// time has certificates valid then.
	notBefore := time.Unix(1_700_000_000, 0)
	notAfter := notBefore.Add(100 * 365 * 24 * time.Hour)
	ca, err := pki.NewCA(pki.Request{CommonName: "clustergen CA", NotBefore: notBefore, NotAfter: notAfter})
	if err != nil {
		return nil, err
	}
	caPEM := ca.CertPEM()
	// The Secrets of one key share one copy of its PEM: a large generated
	// cluster holds TLSKeys encoded keys, not one per Secret.
	var keys [TLSKeys]crypto.Signer
	var keyPEMs [TLSKeys][]byte
	for i := range keys {
		if keys[i], err = pki.GenerateKey(pki.RSA2048); err != nil {
			return nil, err
		}
		if keyPEMs[i], err = pki.PrivateKeyPEM(keys[i]); err != nil {
			return nil, err
		}
	}
	var secrets []runtime.Object
	for _, o := range objs {
		ing, ok := o.(*netv1.Ingress)
		if !ok || len(ing.Spec.Rules) == 0 {
			continue
		}
		host := ing.Spec.Rules[0].Host
		n := len(secrets)
		leaf, err := ca.Issue(pki.Request{
			CommonName: host,
			Hosts:      []string{host},
			Usage:      pki.ServerAuth,
			NotBefore:  notBefore,
			NotAfter:   notAfter,
			Key:        keys[n%TLSKeys],
		})
		if err != nil {
			return nil, fmt.Errorf("certificate of %s: %w", host, err)
		}
		chain := append(leaf.CertPEM(), caPEM...)
		name := ing.Name + "-tls"
		ing.Spec.TLS = []netv1.IngressTLS{{Hosts: []string{host}, SecretName: name}}
		secrets = append(secrets, &corev1.Secret{
			TypeMeta:   metav1.TypeMeta{APIVersion: "v1", Kind: "Secret"},
			ObjectMeta: metav1.ObjectMeta{Namespace: ing.Namespace, Name: name, CreationTimestamp: ing.CreationTimestamp},
			Type:       corev1.SecretTypeTLS,
			Data:       map[string][]byte{corev1.TLSCertKey: chain, corev1.TLSPrivateKeyKey: keyPEMs[n%TLSKeys]},
		})
	}
	return append(objs, secrets...), nil
}
