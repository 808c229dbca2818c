package clustergen

import (
	"crypto/tls"
	"crypto/x509"
	"testing"

	corev1 "k8s.io/api/core/v1"
	netv1 "k8s.io/api/networking/v1"
)

func TestWithTLSGivesEachIngressAValidPair(t *testing.T) {
	objs, err := WithTLS(Cluster(6, 2))
	if err != nil {
		t.Fatal(err)
	}
	secrets := map[string]*corev1.Secret{}
	for _, o := range objs {
		if s, ok := o.(*corev1.Secret); ok {
			secrets[s.Name] = s
		}
	}
	ingresses := 0
	for _, o := range objs {
		ing, ok := o.(*netv1.Ingress)
		if !ok {
			continue
		}
		ingresses++
		if len(ing.Spec.TLS) != 1 || len(ing.Spec.TLS[0].Hosts) != 1 || ing.Spec.TLS[0].Hosts[0] != ing.Spec.Rules[0].Host {
			t.Fatalf("%s: spec.tls %+v", ing.Name, ing.Spec.TLS)
		}
		s := secrets[ing.Spec.TLS[0].SecretName]
		if s == nil || s.Namespace != ing.Namespace || s.Type != corev1.SecretTypeTLS {
			t.Fatalf("%s: no TLS Secret %q", ing.Name, ing.Spec.TLS[0].SecretName)
		}
		pair, err := tls.X509KeyPair(s.Data[corev1.TLSCertKey], s.Data[corev1.TLSPrivateKeyKey])
		if err != nil {
			t.Fatalf("%s: %v", s.Name, err)
		}
		leaf, err := x509.ParseCertificate(pair.Certificate[0])
		if err != nil {
			t.Fatal(err)
		}
		if err := leaf.VerifyHostname(ing.Spec.Rules[0].Host); err != nil {
			t.Errorf("%s: %v", s.Name, err)
		}
		if len(pair.Certificate) != 2 {
			t.Errorf("%s: %d certificates, want the leaf and the CA", s.Name, len(pair.Certificate))
		}
	}
	if ingresses != 6 || len(secrets) != 6 {
		t.Errorf("%d Ingresses, %d Secrets; want 6 of each", ingresses, len(secrets))
	}
}

func TestWithAnnotationsRepeatsAFewSets(t *testing.T) {
	objs := WithAnnotations(Cluster(2*Teams, 1))
	sets := map[string]int{}
	sticky := 0
	for _, o := range objs {
		switch o := o.(type) {
		case *netv1.Ingress:
			if len(o.Annotations) != 3 {
				t.Fatalf("%s: %v", o.Name, o.Annotations)
			}
			sets[o.Annotations["traefik.ingress.kubernetes.io/router.middlewares"]]++
		case *corev1.Service:
			if o.Annotations["traefik.ingress.kubernetes.io/service.sticky.cookie"] == "true" {
				sticky++
			}
		}
	}
	if len(sets) != Teams || sticky != 2*Teams/4 {
		t.Errorf("%d middleware sets, %d sticky Services; want %d and %d", len(sets), sticky, Teams, 2*Teams/4)
	}
}
