package ingress

import (
	"bytes"
	"encoding/json"
	"errors"
	"slices"
	"sync/atomic"
	"testing"
	"time"

	"github.com/rs/zerolog"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	ptypes "github.com/traefik/paerser/types"
	authnv1 "k8s.io/api/authentication/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	k8sruntime "k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/watch"
	k8stesting "k8s.io/client-go/testing"
)

var sliceResource = schema.GroupResource{Group: "discovery.k8s.io", Resource: "endpointslices"}

// deniedLogs are the log lines that name a resource: the denials.
func (b *liveLogBuffer) deniedLogs(t *testing.T) []map[string]any {
	b.mu.Lock()
	data := slices.Clone(b.buf.Bytes())
	b.mu.Unlock()
	var out []map[string]any
	for _, line := range bytes.Split(data, []byte("\n")) {
		if len(line) == 0 {
			continue
		}
		var entry map[string]any
		require.NoError(t, json.Unmarshal(line, &entry), string(line))
		if _, ok := entry["resource"]; ok {
			out = append(out, entry)
		}
	}
	return out
}

// A forbidden list is logged at the first refusal, once however often the
// informer retries, with the resource, the verb and the account the API
// server named; once it is granted the provider syncs.
func TestProvideTellsAForbiddenListAtOnce(t *testing.T) {
	cs := newLiveFakeCluster(liveCluster())
	var failing atomic.Bool
	var lists atomic.Int32
	failing.Store(true)
	cs.PrependReactor("list", "endpointslices", func(k8stesting.Action) (bool, k8sruntime.Object, error) {
		if failing.Load() {
			lists.Add(1)
			return true, nil, apierrors.NewForbidden(sliceResource, "",
				errors.New(`User "system:serviceaccount:x:sliceway" cannot list resource "endpointslices" in API group "discovery.k8s.io" at the cluster scope`))
		}
		return false, nil, nil
	})
	var logs liveLogBuffer
	lp := startLive(t, cs, func(p *Provider) {
		p.SyncTimeout = ptypes.Duration(time.Hour)
		p.SetLogger(zerolog.New(&logs))
	})
	// Three refused lists: the denials of the first two were handled
	// before the third list was made.
	liveWaitFor(t, "three refused lists", func() bool { return lists.Load() >= 3 })
	denied := logs.deniedLogs(t)
	require.Len(t, denied, 1, "told once, whatever the retries")
	d := denied[0]
	assert.Equal(t, "error", d["level"])
	assert.Equal(t, "endpointslices.discovery.k8s.io", d["resource"])
	assert.Equal(t, "list", d["verb"])
	assert.Equal(t, "system:serviceaccount:x:sliceway", d["account"])
	assert.Equal(t, "forbidden", d["reason"])
	assert.NotContains(t, d, "namespace", "all namespaces are listed")
	assert.Equal(t, "system:serviceaccount:x:sliceway may not list endpointslices.discovery.k8s.io in all namespaces: grant it in RBAC (docs/manifests/rbac.yaml has the rules); still trying", d["message"])
	assert.Empty(t, logs.errorLogs(t, "the informer caches are not synced; still trying"))
	select {
	case <-lp.out:
		t.Fatal("a configuration was sent before the caches synced")
	default:
	}

	failing.Store(false)
	conf := lp.next()
	assert.Equal(t, []string{"http://10.0.0.1:8080"}, liveServerURLs(conf, liveWebKey))
	assert.Len(t, logs.deniedLogs(t), 1)
}

// When the refusal does not name the user, a SelfSubjectReview does; the
// namespace watched is a field.
func TestProvideNamesTheAccountOfADenialFromASelfSubjectReview(t *testing.T) {
	cs := newLiveFakeCluster(liveCluster())
	var reviews atomic.Int32
	cs.PrependReactor("create", "selfsubjectreviews", func(k8stesting.Action) (bool, k8sruntime.Object, error) {
		reviews.Add(1)
		return true, &authnv1.SelfSubjectReview{Status: authnv1.SelfSubjectReviewStatus{UserInfo: authnv1.UserInfo{Username: "jane"}}}, nil
	})
	var lists atomic.Int32
	cs.PrependReactor("list", "endpointslices", func(k8stesting.Action) (bool, k8sruntime.Object, error) {
		lists.Add(1)
		return true, nil, apierrors.NewForbidden(sliceResource, "", errors.New("denied by the cluster's policy"))
	})
	var logs liveLogBuffer
	startLive(t, cs, func(p *Provider) {
		p.SyncTimeout = ptypes.Duration(time.Hour)
		p.Namespaces = []string{liveNS}
		p.SetLogger(zerolog.New(&logs))
	})
	liveWaitFor(t, "three refused lists", func() bool { return lists.Load() >= 3 })
	denied := logs.deniedLogs(t)
	require.Len(t, denied, 1)
	assert.Equal(t, "jane", denied[0]["account"])
	assert.Equal(t, liveNS, denied[0]["namespace"])
	assert.Equal(t, `jane may not list endpointslices.discovery.k8s.io in namespace "shop": grant it in RBAC (docs/manifests/rbac.yaml has the rules); still trying`, denied[0]["message"])
	assert.Equal(t, int32(1), reviews.Load(), "asked once")
}

// Credentials the API server does not accept are told at once too, with no
// account: there is none.
func TestProvideTellsAnUnauthorizedListAtOnce(t *testing.T) {
	cs := newLiveFakeCluster(liveCluster())
	var reviews, lists atomic.Int32
	cs.PrependReactor("create", "selfsubjectreviews", func(k8stesting.Action) (bool, k8sruntime.Object, error) {
		reviews.Add(1)
		return true, nil, apierrors.NewUnauthorized("Unauthorized")
	})
	cs.PrependReactor("list", "services", func(k8stesting.Action) (bool, k8sruntime.Object, error) {
		lists.Add(1)
		return true, nil, apierrors.NewUnauthorized("Unauthorized")
	})
	var logs liveLogBuffer
	startLive(t, cs, func(p *Provider) {
		p.SyncTimeout = ptypes.Duration(time.Hour)
		p.SetLogger(zerolog.New(&logs))
	})
	liveWaitFor(t, "three refused lists", func() bool { return lists.Load() >= 3 })
	denied := logs.deniedLogs(t)
	require.Len(t, denied, 1)
	assert.Equal(t, "services", denied[0]["resource"])
	assert.Equal(t, "unauthorized", denied[0]["reason"])
	assert.Equal(t, "unknown", denied[0]["account"])
	assert.Equal(t, "the API server does not accept the credentials to list services in all namespaces: check the token or certificate; still trying", denied[0]["message"])
	assert.Zero(t, reviews.Load(), "an unauthorized client has no account to ask about")
}

// A watch the API server refuses while the list is granted is told as a
// watch, once, although every retry lists again.
func TestProvideTellsAForbiddenWatchOnce(t *testing.T) {
	cs := newLiveFakeCluster(liveCluster())
	var watches atomic.Int32
	cs.PrependWatchReactor("endpointslices", func(k8stesting.Action) (bool, watch.Interface, error) {
		watches.Add(1)
		return true, nil, apierrors.NewForbidden(sliceResource, "",
			errors.New(`User "system:serviceaccount:x:sliceway" cannot watch resource "endpointslices" in API group "discovery.k8s.io" at the cluster scope`))
	})
	var logs liveLogBuffer
	lp := startLive(t, cs, func(p *Provider) {
		p.SyncTimeout = ptypes.Duration(time.Hour)
		p.SetLogger(zerolog.New(&logs))
	})
	// Listed, so synced: the configuration is sent all the same.
	lp.next()
	liveWaitFor(t, "three refused watches", func() bool { return watches.Load() >= 3 })
	denied := logs.deniedLogs(t)
	require.Len(t, denied, 1)
	assert.Equal(t, "watch", denied[0]["verb"])
	assert.Equal(t, "endpointslices.discovery.k8s.io", denied[0]["resource"])
	assert.Equal(t, "system:serviceaccount:x:sliceway", denied[0]["account"])
}

func TestDenialStateTellsNewsOnly(t *testing.T) {
	var d denialState
	assert.True(t, d.news("list", "forbidden A", ""), "the first denial")
	assert.False(t, d.news("list", "forbidden A", ""), "a retry")
	assert.True(t, d.news("list", "forbidden B", ""), "another refusal")
	assert.True(t, d.news("list", "forbidden B", "42"), "refused again after a list succeeded")
	assert.False(t, d.news("list", "forbidden B", "42"))
	assert.True(t, d.news("watch", "forbidden B", "42"), "the watch now")
	assert.False(t, d.news("watch", "forbidden B", "43"), "a list that succeeds before each refused watch is no recovery")
	d.forget()
	assert.True(t, d.news("watch", "forbidden B", "43"), "told again after another error came between")
}
