package ingress

import (
	"bytes"
	"encoding/json"
	"errors"
	"slices"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/rs/zerolog"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	ptypes "github.com/traefik/paerser/types"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	k8sruntime "k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	k8stesting "k8s.io/client-go/testing"
)

// liveLogBuffer is a buffer the provider logs to while the test reads it.
type liveLogBuffer struct {
	mu  sync.Mutex
	buf bytes.Buffer
}

func (b *liveLogBuffer) Write(p []byte) (int, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.Write(p)
}

// errorLogs are the error fields of the log lines with this message.
func (b *liveLogBuffer) errorLogs(t *testing.T, message string) []string {
	b.mu.Lock()
	data := slices.Clone(b.buf.Bytes())
	b.mu.Unlock()
	var out []string
	for _, line := range bytes.Split(data, []byte("\n")) {
		if len(line) == 0 {
			continue
		}
		var entry map[string]any
		require.NoError(t, json.Unmarshal(line, &entry), string(line))
		if entry["message"] == message {
			e, _ := entry["error"].(string)
			out = append(out, e)
		}
	}
	return out
}

func TestProvideReportsAndOutlivesASyncFailure(t *testing.T) {
	const notSynced = "the informer caches are not synced; still trying"
	for _, tc := range []struct {
		name       string
		namespaces []string
		want       string
	}{
		{"all namespaces", nil, "cannot list endpointslices.discovery.k8s.io in all namespaces: forbidden"},
		{"one namespace", []string{liveNS}, `cannot list endpointslices.discovery.k8s.io in namespace "shop": forbidden`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			cs := newLiveFakeCluster(liveCluster())
			var failing atomic.Bool
			failing.Store(true)
			cs.PrependReactor("list", "endpointslices", func(k8stesting.Action) (bool, k8sruntime.Object, error) {
				if failing.Load() {
					return true, nil, apierrors.NewForbidden(schema.GroupResource{Group: "discovery.k8s.io", Resource: "endpointslices"}, "",
						errors.New(`User "system:serviceaccount:x:sliceway" cannot list resource "endpointslices"`))
				}
				return false, nil, nil
			})
			var logs liveLogBuffer
			lp := startLive(t, cs, func(p *Provider) {
				p.SyncTimeout = ptypes.Duration(300 * time.Millisecond)
				p.Namespaces = tc.namespaces
				p.SetLogger(zerolog.New(&logs))
			})
			liveWaitFor(t, "the sync failure to be logged", func() bool { return len(logs.errorLogs(t, notSynced)) > 0 })
			errs := logs.errorLogs(t, notSynced)
			assert.Contains(t, errs[0], tc.want)
			for _, resource := range []string{"services", "secrets", "ingresses", "ingressclasses"} {
				assert.NotContains(t, errs[0], "cannot list "+resource, "only what does not sync is named")
			}
			select {
			case <-lp.done:
				t.Fatalf("Provide returned: %v", lp.err)
			case <-lp.out:
				t.Fatal("a configuration was sent before the caches synced")
			default:
			}

			// The permission is granted: the provider, still trying, syncs
			// and sends the configuration.
			failing.Store(false)
			conf := lp.next()
			assert.Equal(t, []string{"http://10.0.0.1:8080"}, liveServerURLs(conf, liveWebKey))
		})
	}
}
