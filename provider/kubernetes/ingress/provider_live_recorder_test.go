package ingress

import (
	"maps"
	"slices"
	"sync"
	"sync/atomic"
	"time"
)

// liveRecorder is the Observer of these tests: it counts events by kind and
// result, renders and sends, and keeps them in order.
type liveRecorder struct {
	rendered atomic.Int64
	sent     atomic.Int64

	mu       sync.Mutex
	log      []string // "Kind changed", "Kind filtered", "rendered", "sent"
	changed  map[string]int
	filtered map[string]int
	kinds    map[string]int // renders by kind (RenderKindObserver)
	work     [2]int         // Ingresses translated, load balancers refreshed (RenderWorkObserver)
	onRender func()         // called once, from the next Rendered
}

func newLiveRecorder() *liveRecorder {
	return &liveRecorder{changed: map[string]int{}, filtered: map[string]int{}, kinds: map[string]int{}}
}

func (r *liveRecorder) RenderedKind(kind string) {
	r.mu.Lock()
	r.kinds[kind]++
	r.mu.Unlock()
}

func (r *liveRecorder) RenderedWork(translated, refreshed int) {
	r.mu.Lock()
	r.work[0] += translated
	r.work[1] += refreshed
	r.mu.Unlock()
}

func (r *liveRecorder) renderWork() [2]int {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.work
}

func (r *liveRecorder) renderKinds() map[string]int {
	r.mu.Lock()
	defer r.mu.Unlock()
	return maps.Clone(r.kinds)
}

func (r *liveRecorder) Event(kind string, changed bool) {
	r.mu.Lock()
	defer r.mu.Unlock()
	if changed {
		r.changed[kind]++
		r.log = append(r.log, kind+" changed")
	} else {
		r.filtered[kind]++
		r.log = append(r.log, kind+" filtered")
	}
}

func (r *liveRecorder) Rendered(time.Time, time.Duration, int) {
	r.mu.Lock()
	r.log = append(r.log, "rendered")
	hook := r.onRender
	r.onRender = nil
	r.mu.Unlock()
	r.rendered.Add(1)
	if hook != nil {
		hook()
	}
}

func (r *liveRecorder) Sent() {
	r.mu.Lock()
	r.log = append(r.log, "sent")
	r.mu.Unlock()
	r.sent.Add(1)
}

func (r *liveRecorder) counts(kind string) (changed, filtered int) {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.changed[kind], r.filtered[kind]
}

func (r *liveRecorder) logLen() int {
	r.mu.Lock()
	defer r.mu.Unlock()
	return len(r.log)
}

func (r *liveRecorder) logSince(i int) []string {
	r.mu.Lock()
	defer r.mu.Unlock()
	return slices.Clone(r.log[i:])
}
