package integration_test

import (
	"context"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	netv1 "k8s.io/api/networking/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/watch"

	"github.com/sliceway/sliceway/integration/controlplane"
	"github.com/sliceway/sliceway/provider/kubernetes/ingress"
)

// statusLog records every load-balancer status the Ingresses of a namespace
// take, from a watch of the admin.
type statusLog struct {
	mu   sync.Mutex
	seen map[string][]string // ingress -> successive status IPs ("" for none)
}

func watchStatus(t *testing.T, cp *controlplane.ControlPlane, ns string) *statusLog {
	t.Helper()
	l := &statusLog{seen: map[string][]string{}}
	wctx, cancel := context.WithCancel(ctx)
	w, err := cp.Client().NetworkingV1().Ingresses(ns).Watch(wctx, metav1.ListOptions{})
	require.NoError(t, err)
	done := make(chan struct{})
	go func() {
		defer close(done)
		for ev := range w.ResultChan() {
			ing, ok := ev.Object.(*netv1.Ingress)
			if !ok || ev.Type == watch.Deleted {
				continue
			}
			var ips []string
			for _, lb := range ing.Status.LoadBalancer.Ingress {
				ips = append(ips, lb.IP)
			}
			ip := strings.Join(ips, ",")
			l.mu.Lock()
			if s := l.seen[ing.Name]; len(s) == 0 || s[len(s)-1] != ip {
				l.seen[ing.Name] = append(s, ip)
			}
			l.mu.Unlock()
		}
	}()
	t.Cleanup(func() {
		cancel()
		w.Stop()
		<-done
	})
	return l
}

func (l *statusLog) history(name string) []string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return append([]string(nil), l.seen[name]...)
}

func (l *statusLog) all() map[string][]string {
	l.mu.Lock()
	defer l.mu.Unlock()
	out := map[string][]string{}
	for k, v := range l.seen {
		out[k] = append([]string(nil), v...)
	}
	return out
}

func statusProvider(t *testing.T, cp *controlplane.ControlPlane, ip string) *ingress.Provider {
	p := newProvider(t, cp)
	p.IngressEndpoint = &ingress.EndpointIngress{IP: ip}
	p.LeaderElection.LeaseNamespace = "sliceway"
	p.LeaderElection.LeaseDuration = pduration(4 * time.Second)
	p.LeaderElection.RenewDeadline = pduration(3 * time.Second)
	p.LeaderElection.RetryPeriod = pduration(500 * time.Millisecond)
	return p
}

func leads(r *providerRun) bool {
	return strings.Contains(r.logs.String(), "leading: writing status")
}

// Test 6: two replicas, each configured with its own address; only the
// elected leader writes Ingress status, so the status never shows the
// follower's address, until the leader goes and the follower takes over.
func TestStatusWrittenByLeaderOnly(t *testing.T) {
	cp := startControlPlane(t)
	applyFile(t, cp, rbacManifest)
	createNodes(t, cp)
	createIngressClass(t, cp)
	createWebApp(t, cp, "apps")
	statuses := watchStatus(t, cp, "apps")

	var runs []*providerRun
	for _, ip := range []string{"192.0.2.1", "192.0.2.2"} {
		r := runProvider(t, statusProvider(t, cp, ip))
		runs = append(runs, r)
	}
	r1, r2 := runs[0], runs[1]
	for _, r := range runs {
		r.waitFor(t, "the apps servers", time.Minute, webServers("apps"))
	}

	eventually(t, "a leader elected", time.Minute, func() bool { return leads(r1) || leads(r2) })
	leader, follower, leaderIP, followerIP := r1, r2, "192.0.2.1", "192.0.2.2"
	if leads(r2) {
		leader, follower, leaderIP, followerIP = r2, r1, "192.0.2.2", "192.0.2.1"
	}
	t.Logf("leader writes %s, follower would write %s", leaderIP, followerIP)
	eventually(t, "the leader's status on web", time.Minute, func() bool {
		h := statuses.history("web")
		return len(h) > 0 && h[len(h)-1] == leaderIP
	})

	t.Log("a second Ingress: written by the leader too")
	createIngress(t, cp, ingressSpec{namespace: "apps", name: "web2", host: "www.example.com", service: "web"})
	eventually(t, "the leader's status on web2", time.Minute, func() bool {
		h := statuses.history("web2")
		return len(h) > 0 && h[len(h)-1] == leaderIP
	})
	// Both replicas render every change; give the follower every chance
	// to write.
	time.Sleep(3 * time.Second)
	assert.False(t, leads(follower), "both replicas lead")
	for name, h := range statuses.all() {
		assert.NotContains(t, h, followerIP, "Ingress %s got the follower's status: %v", name, h)
	}

	t.Log("the leader stops: the follower takes over")
	leader.stop(t)
	eventually(t, "the follower leads", time.Minute, func() bool { return leads(follower) })
	for _, name := range []string{"web", "web2"} {
		eventually(t, "the new leader's status on "+name, time.Minute, func() bool {
			h := statuses.history(name)
			return len(h) > 0 && h[len(h)-1] == followerIP
		})
	}
	for name, h := range statuses.all() {
		// leader's address, then the new leader's: never back and forth.
		first := -1
		for i, ip := range h {
			if ip == followerIP && first < 0 {
				first = i
			}
			if first >= 0 {
				assert.Equal(t, followerIP, ip, "Ingress %s: %v", name, h)
			}
		}
	}
}

// Writing status changes nothing else of the Ingress: not its labels, not
// its annotations, and not the kubectl.kubernetes.io/last-applied-configuration
// annotation that the informers drop from their copies (kubectl apply needs it
// for its three-way merge).
func TestStatusWriteKeepsMetadata(t *testing.T) {
	cp := startControlPlane(t)
	applyFile(t, cp, rbacManifest)
	createNodes(t, cp)
	createIngressClass(t, cp)
	createWebApp(t, cp, "apps")
	// As `kubectl apply` (client-side) leaves it.
	ing, err := cp.Client().NetworkingV1().Ingresses("apps").Get(ctx, "web", metav1.GetOptions{})
	require.NoError(t, err)
	lastApplied := `{"apiVersion":"networking.k8s.io/v1","kind":"Ingress","metadata":{"name":"web","namespace":"apps"}}`
	ing.Annotations["kubectl.kubernetes.io/last-applied-configuration"] = lastApplied
	ing.Annotations["example.com/owner"] = "team-a"
	ing.Labels = map[string]string{"tier": "front"}
	_, err = cp.Client().NetworkingV1().Ingresses("apps").Update(ctx, ing, metav1.UpdateOptions{})
	require.NoError(t, err)
	statuses := watchStatus(t, cp, "apps")

	p := statusProvider(t, cp, "192.0.2.7")
	p.LeaderElection.Disabled = true
	r := runProvider(t, p)
	r.waitFor(t, "the apps servers", time.Minute, webServers("apps"))
	eventually(t, "the status written", time.Minute, func() bool {
		h := statuses.history("web")
		return len(h) > 0 && h[len(h)-1] == "192.0.2.7"
	})

	got, err := cp.Client().NetworkingV1().Ingresses("apps").Get(ctx, "web", metav1.GetOptions{})
	require.NoError(t, err)
	assert.Equal(t, map[string]string{"tier": "front"}, got.Labels)
	assert.Equal(t, "team-a", got.Annotations["example.com/owner"])
	assert.Equal(t, "websecure", got.Annotations["traefik.ingress.kubernetes.io/router.entrypoints"])
	assert.Equal(t, lastApplied, got.Annotations["kubectl.kubernetes.io/last-applied-configuration"],
		"the status write removed kubectl's last-applied-configuration")
}
