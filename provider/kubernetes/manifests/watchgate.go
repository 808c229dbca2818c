package manifests

import (
	"errors"
	"sync"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/watch"
	k8stesting "k8s.io/client-go/testing"
)

// The fake clientset's tracker was made for tests that change a few
// objects; a Cluster may change thousands at once while informers
// watch it. Two of its limits must be kept:
//
//   - each watcher holds a fixed number of events (watch.DefaultChanSize)
//     and panics when one more comes before its informer read them: a
//     change waits while a watcher is half full;
//   - a watch started from a list's resourceVersion is sent the objects
//     added or updated since the list, but not the deletions: a change
//     waits while a list has not been followed by its watch.
const (
	// listWatchGrace is how long a list is expected to be followed by its
	// watch; a list without one by then was given up (its informer stopped).
	listWatchGrace = 10 * time.Second
	// gateTimeout bounds the wait for the informers to read their events.
	gateTimeout = 60 * time.Second
	gatePoll    = time.Millisecond
)

var errInformersStuck = errors.New("the informers did not read the changes in time; the rest is tried at the next change")

// watchGate records the lists and watches made on fake clientsets, and
// runs changes to their trackers when they are safe.
type watchGate struct {
	mu       sync.Mutex
	lists    map[schema.GroupVersionResource][]time.Time // lists not yet followed by a watch, by when
	watchers []backlogWatcher
}

// backlogWatcher is a watcher of the tracker that says how many events it
// holds.
type backlogWatcher interface {
	watch.Interface
	IsStopped() bool
}

// fakeClientset is a generated fake clientset (client-go's, gateway-api's):
// its tracker, and the reactors it answers with.
type fakeClientset interface {
	Tracker() k8stesting.ObjectTracker
	PrependReactor(verb, resource string, reaction k8stesting.ReactionFunc)
	PrependWatchReactor(resource string, reaction k8stesting.WatchReactionFunc)
}

// newWatchGate guards the given clientsets with one lock: a change to any
// of them waits while a watcher of any is half full. Their resources
// differ (each group is served by one of them), so the lists by resource
// do not mix.
func newWatchGate(clientsets ...fakeClientset) *watchGate {
	g := &watchGate{lists: map[schema.GroupVersionResource][]time.Time{}}
	for _, cs := range clientsets {
		g.follow(cs)
	}
	return g
}

// follow records the lists and watches of cs.
func (g *watchGate) follow(cs fakeClientset) {
	tracker := cs.Tracker()
	cs.PrependReactor("list", "*", func(action k8stesting.Action) (bool, runtime.Object, error) {
		g.mu.Lock()
		g.lists[action.GetResource()] = append(g.lists[action.GetResource()], time.Now())
		g.mu.Unlock()
		return false, nil, nil // the tracker answers
	})
	// As the clientset's own watch reactor, which it replaces: the list
	// options carry the resourceVersion to start from.
	cs.PrependWatchReactor("*", func(action k8stesting.Action) (bool, watch.Interface, error) {
		var opts metav1.ListOptions
		if w, ok := action.(k8stesting.WatchActionImpl); ok {
			opts = w.ListOptions
		}
		g.mu.Lock()
		defer g.mu.Unlock()
		w, err := tracker.Watch(action.GetResource(), action.GetNamespace(), opts)
		if err != nil {
			return true, nil, err
		}
		if pending := g.lists[action.GetResource()]; len(pending) > 0 {
			g.lists[action.GetResource()] = pending[1:]
		}
		if bw, ok := w.(backlogWatcher); ok {
			g.watchers = append(g.watchers, bw)
		}
		return true, w, nil
	})
}

// do runs change once it is safe: no list waits for its watch and no
// watcher is half full. The check and the change are made under the lock
// the list and watch reactors take, so no list falls between them.
func (g *watchGate) do(change func() error) error {
	deadline := time.Now().Add(gateTimeout)
	for {
		g.mu.Lock()
		if g.readyLocked() {
			err := change()
			g.mu.Unlock()
			return err
		}
		g.mu.Unlock()
		if time.Now().After(deadline) {
			return errInformersStuck
		}
		time.Sleep(gatePoll)
	}
}

func (g *watchGate) readyLocked() bool {
	now := time.Now()
	for gvr, pending := range g.lists {
		for len(pending) > 0 && now.Sub(pending[0]) > listWatchGrace {
			pending = pending[1:]
		}
		if len(pending) > 0 {
			g.lists[gvr] = pending
			return false
		}
		delete(g.lists, gvr)
	}
	live := g.watchers[:0]
	ready := true
	for _, w := range g.watchers {
		if w.IsStopped() {
			continue
		}
		live = append(live, w)
		if events := w.ResultChan(); 2*len(events) >= cap(events) {
			ready = false
		}
	}
	clear(g.watchers[len(live):])
	g.watchers = live
	return ready
}
