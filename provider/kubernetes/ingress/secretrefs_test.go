package ingress

import (
	"context"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	corev1 "k8s.io/api/core/v1"
	netv1 "k8s.io/api/networking/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	k8stesting "k8s.io/client-go/testing"

	"github.com/sliceway/sliceway/config/dynamic"

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
	// data is fetched, off the event handler, and announced as a change.
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

// An Ingress that starts to name a Secret whose data the cache dropped
// gets its certificate although the API server refuses the first reads of
// it (an outage, a Role being edited): the fetch is retried, and the
// Ingress events that come meanwhile are rendered at once, the new
// Ingress's routes with them (its certificate pending until then).
func TestProvideCertificateOfALateReference(t *testing.T) {
	objs := liveCluster()
	objs["Secret/spare-tls"] = liveSecret("spare-tls", "spare.example")
	cs := newLiveFakeCluster(objs)
	var gets atomic.Int32
	cs.PrependReactor("get", "secrets", func(action k8stesting.Action) (bool, runtime.Object, error) {
		if action.(k8stesting.GetAction).GetName() == "spare-tls" && gets.Add(1) <= 3 {
			return true, nil, apierrors.NewServiceUnavailable("the API server is restarting")
		}
		return false, nil, nil
	})
	lp := startLive(t, cs, nil)
	first := lp.next()
	require.NotNil(t, first.TLS)
	require.Len(t, first.TLS.Certificates, 1)

	ing := liveIngress("spare", "", "spare.example", "web", livePortHTTP, 5)
	ing.Spec.TLS = []netv1.IngressTLS{{SecretName: "spare-tls"}}
	_, err := cs.NetworkingV1().Ingresses(liveNS).Create(context.Background(), ing, metav1.CreateOptions{})
	require.NoError(t, err)
	other := liveIngress("other", "", "other.example", "web", livePortHTTP, 6)
	_, err = cs.NetworkingV1().Ingresses(liveNS).Create(context.Background(), other, metav1.CreateOptions{})
	require.NoError(t, err)

	var routedBeforeCert bool
	for range 10 {
		cfg := lp.next()
		if len(cfg.TLS.Certificates) == 2 {
			require.GreaterOrEqual(t, gets.Load(), int32(4), "three refused reads, then the one that succeeded")
			assert.True(t, routedBeforeCert, "the other Ingress was rendered while the Secret's reads were refused")
			return
		}
		if hasRouterFor(cfg, "other.example") && hasRouterFor(cfg, "spare.example") {
			routedBeforeCert = true
		}
	}
	t.Fatal("the certificate never arrived")
}

// hasRouterFor says whether a router of cfg names host in its rule.
func hasRouterFor(cfg *dynamic.Configuration, host string) bool {
	for _, r := range cfg.HTTP.Routers {
		if strings.Contains(r.Rule, host) {
			return true
		}
	}
	return false
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
