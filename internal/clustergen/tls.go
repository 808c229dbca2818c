package clustergen

import (
	"crypto"
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/rsa"
	"crypto/x509"
	"crypto/x509/pkix"
	"encoding/pem"
	"fmt"
	"math/big"
	"time"

	corev1 "k8s.io/api/core/v1"
	netv1 "k8s.io/api/networking/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
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
	caKey, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		return nil, err
	}
	now := time.Unix(1_700_000_000, 0)
	caTmpl := &x509.Certificate{
		SerialNumber: big.NewInt(1), Subject: pkix.Name{CommonName: "clustergen CA"},
		NotBefore: now, NotAfter: now.Add(100 * 365 * 24 * time.Hour),
		IsCA: true, BasicConstraintsValid: true, KeyUsage: x509.KeyUsageCertSign,
	}
	caDER, err := x509.CreateCertificate(rand.Reader, caTmpl, caTmpl, caKey.Public(), caKey)
	if err != nil {
		return nil, err
	}
	ca, err := x509.ParseCertificate(caDER)
	if err != nil {
		return nil, err
	}
	caPEM := pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: caDER})
	var keys [TLSKeys]crypto.Signer
	var keyPEMs [TLSKeys][]byte
	for i := range keys {
		k, err := rsa.GenerateKey(rand.Reader, 2048)
		if err != nil {
			return nil, err
		}
		der, err := x509.MarshalPKCS8PrivateKey(k)
		if err != nil {
			return nil, err
		}
		keys[i], keyPEMs[i] = k, pem.EncodeToMemory(&pem.Block{Type: "PRIVATE KEY", Bytes: der})
	}
	var secrets []runtime.Object
	for _, o := range objs {
		ing, ok := o.(*netv1.Ingress)
		if !ok || len(ing.Spec.Rules) == 0 {
			continue
		}
		host := ing.Spec.Rules[0].Host
		n := len(secrets)
		tmpl := &x509.Certificate{
			SerialNumber: big.NewInt(int64(n) + 2), Subject: pkix.Name{CommonName: host}, DNSNames: []string{host},
			NotBefore: now, NotAfter: now.Add(100 * 365 * 24 * time.Hour),
			KeyUsage: x509.KeyUsageDigitalSignature | x509.KeyUsageKeyEncipherment, ExtKeyUsage: []x509.ExtKeyUsage{x509.ExtKeyUsageServerAuth},
		}
		der, err := x509.CreateCertificate(rand.Reader, tmpl, ca, keys[n%TLSKeys].Public(), caKey)
		if err != nil {
			return nil, fmt.Errorf("certificate of %s: %w", host, err)
		}
		chain := append(pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: der}), caPEM...)
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
