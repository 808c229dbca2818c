package ingress

import (
	"context"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	corev1 "k8s.io/api/core/v1"
	netv1 "k8s.io/api/networking/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/sliceway/sliceway/provider/kubernetes/k8s"
)

// cachedSecret returns the Secret as the client's cache holds it.
func cachedSecret(t *testing.T, c *Client, namespace, name string) *corev1.Secret {
	t.Helper()
	obj, exists, err := listerSnapshot{c}.space(namespace).secretStore.GetByKey(namespace + "/" + name)
	require.NoError(t, err)
	if !exists {
		return nil
	}
	return obj.(*corev1.Secret)
}

func TestSecretCacheKeepsOnlyReferencedData(t *testing.T) {
	objs := liveCluster()
	unused := liveSecret("unused-tls", "unused.example")
	unused.Data["other"] = []byte("x")
	objs["Secret/unused-tls"] = unused
	opaque := &corev1.Secret{ObjectMeta: liveMeta("app-config", liveNS, 0), Data: map[string][]byte{"password": []byte("hunter2")}}
	objs["Secret/app-config"] = opaque
	cs := newLiveFakeCluster(objs)

	client, err := NewClient(cs, ClientOptions{})
	require.NoError(t, err)
	ctx, cancel := context.WithCancel(context.Background())
	defer func() { cancel(); client.Shutdown() }()
	client.Start(ctx)
	require.NoError(t, client.WaitForSync(ctx, 10*time.Second))

	used := cachedSecret(t, client, liveNS, "web-tls")
	require.NotNil(t, used)
	assert.False(t, k8s.DataDropped(used))
	assert.ElementsMatch(t, []string{corev1.TLSCertKey, corev1.TLSPrivateKeyKey}, keys(used.Data))

	for _, name := range []string{"unused-tls", "app-config"} {
		s := cachedSecret(t, client, liveNS, name)
		require.NotNil(t, s, name)
		assert.True(t, k8s.DataDropped(s), name)
		assert.Empty(t, s.Data, name)
	}

	// An Ingress that starts using the Secret gets its certificate: the
	// data is loaded before the change is announced.
	ing := liveIngress("late", "", "late.example", "web", livePortHTTP, 5)
	ing.Spec.TLS = []netv1.IngressTLS{{SecretName: "unused-tls"}}
	_, err = cs.NetworkingV1().Ingresses(liveNS).Create(ctx, ing, metav1.CreateOptions{})
	require.NoError(t, err)
	require.Eventually(t, func() bool {
		s := cachedSecret(t, client, liveNS, "unused-tls")
		return s != nil && !k8s.DataDropped(s) && len(s.Data[corev1.TLSCertKey]) > 0
	}, 10*time.Second, 20*time.Millisecond)
	s := cachedSecret(t, client, liveNS, "unused-tls")
	assert.ElementsMatch(t, []string{corev1.TLSCertKey, corev1.TLSPrivateKeyKey}, keys(s.Data), "only the TLS keys are kept")

	res := Translate(client.Snapshot(), liveOptions())
	assert.Empty(t, res.Errors)
	require.NotNil(t, res.Configuration.TLS)
	assert.Len(t, res.Configuration.TLS.Certificates, 2)
}

func TestProvideCertificateOfALateReference(t *testing.T) {
	objs := liveCluster()
	objs["Secret/spare-tls"] = liveSecret("spare-tls", "spare.example")
	cs := newLiveFakeCluster(objs)
	lp := startLive(t, cs, nil)
	first := lp.next()
	require.NotNil(t, first.TLS)
	require.Len(t, first.TLS.Certificates, 1)

	ing := liveIngress("spare", "", "spare.example", "web", livePortHTTP, 5)
	ing.Spec.TLS = []netv1.IngressTLS{{SecretName: "spare-tls"}}
	_, err := cs.NetworkingV1().Ingresses(liveNS).Create(context.Background(), ing, metav1.CreateOptions{})
	require.NoError(t, err)
	next := lp.next()
	require.NotNil(t, next.TLS)
	assert.Len(t, next.TLS.Certificates, 2, "the first configuration with the new Ingress already has its certificate")
}

func liveOptions() *Provider {
	p := &Provider{}
	p.SetDefaults()
	return p
}

func keys(m map[string][]byte) []string {
	out := make([]string, 0, len(m))
	for k := range m {
		out = append(out, k)
	}
	return out
}
