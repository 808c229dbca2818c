package ingress

import (
	"context"
	"fmt"
	"runtime"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	ptypes "github.com/traefik/paerser/types"
	k8sruntime "k8s.io/apimachinery/pkg/runtime"
	"k8s.io/client-go/kubernetes/fake"

	"github.com/sliceway/sliceway/config/dynamic"
)

// liveWaitFor polls cond until it holds, or fails the test after liveWait.
func liveWaitFor(t *testing.T, what string, cond func() bool) {
	t.Helper()
	deadline := time.Now().Add(liveWait)
	for !cond() {
		if time.Now().After(deadline) {
			t.Fatalf("timed out after %s waiting for %s", liveWait, what)
		}
		time.Sleep(5 * time.Millisecond)
	}
}

// liveProvider is a Provide running in a goroutine.
type liveProvider struct {
	t      *testing.T
	cs     *fake.Clientset
	p      *Provider
	name   string // the provider name of its messages
	obs    *liveRecorder
	out    chan dynamic.Message
	cancel context.CancelFunc
	done   chan struct{} // closed when Provide returned
	err    error         // what it returned

	stopOnce sync.Once
}

// startLive runs Provide on cs with the default options, a short sync
// timeout and no throttling, changed by configure. Stopping it and checking
// that no goroutine is left behind are registered as cleanups.
func startLive(t *testing.T, cs *fake.Clientset, configure func(*Provider)) *liveProvider {
	t.Helper()
	p := &Provider{}
	p.SetDefaults()
	p.SyncTimeout = ptypes.Duration(5 * time.Second)
	if configure != nil {
		configure(p)
	}
	return runLive(t, cs, p, ProviderName, p.Init, p.Provide)
}

// runLive runs provide, the Provide of a provider whose options are p
// and whose messages are named name, after its init; for the
// Traefik-style provider (startLive) or the ingress-nginx one.
func runLive(t *testing.T, cs *fake.Clientset, p *Provider, name string, init func() error,
	provide func(context.Context, chan<- dynamic.Message) error,
) *liveProvider {
	t.Helper()
	before := liveGoroutines()
	p.SetClientset(cs)
	obs := newLiveRecorder()
	p.SetObserver(obs)
	require.NoError(t, init())
	ctx, cancel := context.WithCancel(context.Background())
	lp := &liveProvider{t: t, cs: cs, p: p, name: name, obs: obs, out: make(chan dynamic.Message), cancel: cancel, done: make(chan struct{})}
	go func() {
		lp.err = provide(ctx, lp.out)
		close(lp.done)
	}()
	t.Cleanup(func() {
		lp.stop()
		liveCheckNoGoroutineLeft(t, before)
	})
	return lp
}

// stop cancels Provide and checks that it returns nil within a few seconds,
// without anybody reading out.
func (lp *liveProvider) stop() {
	lp.t.Helper()
	lp.stopOnce.Do(func() {
		lp.cancel()
		select {
		case <-lp.done:
			assert.NoError(lp.t, lp.err, "Provide returns nil on cancel")
		case <-time.After(5 * time.Second):
			lp.t.Error("Provide did not return within 5s of its context being cancelled")
		}
	})
}

// next returns the next configuration, failing the test when none comes.
func (lp *liveProvider) next() *dynamic.Configuration {
	lp.t.Helper()
	select {
	case msg := <-lp.out:
		assert.Equal(lp.t, lp.name, msg.ProviderName)
		require.NotNil(lp.t, msg.Configuration)
		return msg.Configuration
	case <-lp.done:
		lp.t.Fatalf("Provide returned early: %v", lp.err)
	case <-time.After(liveWait):
		lp.t.Fatalf("no configuration within %s", liveWait)
	}
	return nil
}

// nextUntil reads configurations until one satisfies cond; it returns it
// and how many were read.
func (lp *liveProvider) nextUntil(what string, cond func(*dynamic.Configuration) bool) (*dynamic.Configuration, int) {
	lp.t.Helper()
	deadline := time.After(liveWait)
	for n := 1; ; n++ {
		select {
		case msg := <-lp.out:
			if cond(msg.Configuration) {
				return msg.Configuration, n
			}
		case <-lp.done:
			lp.t.Fatalf("Provide returned early: %v", lp.err)
		case <-deadline:
			lp.t.Fatalf("no configuration with %s within %s (%d read)", what, liveWait, n-1)
		}
	}
}

// waitInitialEvents waits until the add events of the objects the cluster
// started with have reached the observer: from then on, every event the
// observer sees comes from a change made by the test.
func (lp *liveProvider) waitInitialEvents(objs map[string]k8sruntime.Object) {
	lp.t.Helper()
	want := map[string]int{}
	for key := range objs {
		kind, _, _ := strings.Cut(key, "/")
		want[kind]++
	}
	if _, ok := objs["Service/np"]; !ok {
		// Nodes are watched only when a node-port Service is served.
		delete(want, "Node")
	}
	for kind, n := range want {
		liveWaitFor(lp.t, fmt.Sprintf("%d add events of kind %s", n, kind), func() bool {
			c, _ := lp.obs.counts(kind)
			return c >= n
		})
	}
}

// liveGoroutines returns the stacks of the running goroutines by id.
func liveGoroutines() map[string]string {
	buf := make([]byte, 1<<20)
	for {
		n := runtime.Stack(buf, true)
		if n < len(buf) {
			buf = buf[:n]
			break
		}
		buf = make([]byte, 2*len(buf))
	}
	out := map[string]string{}
	for _, g := range strings.Split(string(buf), "\n\n") {
		header, _, _ := strings.Cut(g, "\n")
		id, ok := strings.CutPrefix(header, "goroutine ")
		if !ok {
			continue
		}
		id, _, _ = strings.Cut(id, " ")
		out[id] = g
	}
	return out
}

// liveCheckNoGoroutineLeft fails when goroutines of client-go or of sliceway
// that were not running before outlive Provide by more than a few seconds.
func liveCheckNoGoroutineLeft(t *testing.T, before map[string]string) {
	t.Helper()
	deadline := time.Now().Add(5 * time.Second)
	for {
		var leaked []string
		for id, stack := range liveGoroutines() {
			if _, old := before[id]; old {
				continue
			}
			if strings.Contains(stack, "k8s.io/") || strings.Contains(stack, "github.com/sliceway/") {
				leaked = append(leaked, stack)
			}
		}
		if len(leaked) == 0 {
			return
		}
		if time.Now().After(deadline) {
			t.Errorf("%d goroutines outlive Provide:\n\n%s", len(leaked), strings.Join(leaked, "\n\n"))
			return
		}
		time.Sleep(20 * time.Millisecond)
	}
}
