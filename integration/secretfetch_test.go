package integration_test

import (
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/rest"

	"github.com/sliceway/sliceway/config/dynamic"
)

// An Ingress that newly names a large TLS Secret while the API server
// refuses to get Secrets (the Role is being edited): the provider keeps
// rendering the other Ingress events at once, retries the Secret's
// fetch, and the certificate reaches the configuration within seconds of
// the Role's repair, without any change of the Secret.
func TestSecretFetchedAfterAnOutage(t *testing.T) {
	cp := startControlPlane(t)
	applyFile(t, cp, rbacManifest)
	createNodes(t, cp)
	createIngressClass(t, cp)
	app := createWebApp(t, cp, "shop")
	// The large Secret: a chain of 1,200 certificates (about 700 KB), which
	// no Ingress names yet, so the cache drops its data.
	bigCert, bigKey := createTLSSecret(t, cp, "shop", "big-source", "big.example.com")
	_, err := cp.Client().CoreV1().Secrets("shop").Create(ctx, &corev1.Secret{
		ObjectMeta: metav1.ObjectMeta{Namespace: "shop", Name: "big-tls"},
		Type:       corev1.SecretTypeTLS,
		Data:       map[string][]byte{corev1.TLSCertKey: []byte(strings.Repeat(bigCert, 1200)), corev1.TLSPrivateKeyKey: []byte(bigKey)},
	}, metav1.CreateOptions{})
	require.NoError(t, err)

	run := runProvider(t, newProvider(t, cp))
	run.waitFor(t, "the web app", time.Minute, webServers("shop"))

	// The outage: ServiceAccount sliceway may list and watch Secrets, not
	// get them.
	roles := cp.Client().RbacV1().ClusterRoles()
	role, err := roles.Get(ctx, "sliceway", metav1.GetOptions{})
	require.NoError(t, err)
	whole := role.DeepCopy()
	for i, rule := range role.Rules {
		if len(rule.Resources) == 2 && rule.Resources[1] == "secrets" {
			role.Rules[i].Resources = []string{"services"}
			role.Rules = append(role.Rules, rule)
			role.Rules[len(role.Rules)-1].Resources = []string{"secrets"}
			role.Rules[len(role.Rules)-1].Verbs = []string{"list", "watch"}
		}
	}
	_, err = roles.Update(ctx, role, metav1.UpdateOptions{})
	require.NoError(t, err)
	sa, err := kubernetes.NewForConfig(&rest.Config{Host: cp.URL, BearerToken: saToken(t, cp, "sliceway", "sliceway"),
		TLSClientConfig: rest.TLSClientConfig{CAFile: cp.CAFile}})
	require.NoError(t, err)
	eventually(t, "the Secret reads refused", 30*time.Second, func() bool {
		_, err := sa.CoreV1().Secrets("shop").Get(ctx, "big-tls", metav1.GetOptions{})
		return apierrors.IsForbidden(err)
	})

	createIngress(t, cp, ingressSpec{namespace: "shop", name: "big", host: "big.example.com", service: "web", tlsSecret: "big-tls"})
	createIngress(t, cp, ingressSpec{namespace: "shop", name: "during", host: "during.example.com", service: "web"})
	cfg := run.waitFor(t, "both new Ingresses routed during the outage", 10*time.Second, func(c *dynamic.Configuration) bool {
		return c.HTTP.Routers["shop-during-during-example-com"] != nil && c.HTTP.Routers["shop-big-big-example-com"] != nil
	})
	require.Len(t, cfg.TLS.Certificates, 1, "the big certificate is pending")
	eventually(t, "a failed fetch logged", 10*time.Second, func() bool {
		return strings.Contains(run.logs.String(), "cannot fetch the data of a Secret")
	})

	role, err = roles.Get(ctx, "sliceway", metav1.GetOptions{})
	require.NoError(t, err)
	role.Rules = whole.Rules
	_, err = roles.Update(ctx, role, metav1.UpdateOptions{})
	require.NoError(t, err)
	repaired := time.Now()
	cfg = run.waitFor(t, "the big certificate after the repair", 30*time.Second, func(c *dynamic.Configuration) bool {
		return c.TLS != nil && len(c.TLS.Certificates) == 2
	})
	t.Logf("the certificate arrived %s after the Role's repair", time.Since(repaired).Round(time.Millisecond))
	var certs []string
	for _, c := range cfg.TLS.Certificates {
		certs = append(certs, c.CertFile)
	}
	assert.Contains(t, certs, app.certPEM)
	assert.Contains(t, certs, strings.Repeat(bigCert, 1200))
}
