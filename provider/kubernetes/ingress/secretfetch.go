package ingress

import (
	"context"
	"fmt"
	"strconv"
	"sync"
	"sync/atomic"
	"time"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/tools/cache"
	"k8s.io/client-go/util/workqueue"

	"github.com/sliceway/sliceway/provider/kubernetes/k8s"
)

// secretFetcher fetches the data of Secrets whose data the cache dropped
// (no Ingress named them when they were listed) once an Ingress names
// them: the informer lists a Secret again only on its next change, which
// for a cert-manager certificate may be two months away. Fetches run on
// their own goroutine from a rate-limited queue, so that no event handler
// waits on the API server, and a failed fetch is retried, with a growing
// delay, until it succeeds or the Secret is no longer needed: a
// certificate is never given up on. Until its data is there, the Ingress
// that names the Secret reports it as pending (translate.CheckSecretData);
// the fetch's arrival is recorded as a change of the Secret (OnChange) and
// told to OnSecretFetch, on which the provider renders.
type secretFetcher struct {
	c       *Client
	queue   workqueue.TypedRateLimitingInterface[string]
	timeout time.Duration // of one GET
	// observe, when set, is told of each attempt: its Secret
	// (namespace/name), its error (nil: done), and how many Secrets wait
	// for their data.
	observe func(key string, err error, pending int)

	failures atomic.Uint64
	started  sync.Once

	mu      sync.Mutex
	waiting map[string]struct{} // queued or retrying, until fetched or no longer needed
}

// Retry delays of a Secret whose fetch failed: from secretRetryMin,
// doubling, up to secretRetryMax.
const (
	secretRetryMin   = 250 * time.Millisecond
	secretRetryMax   = 30 * time.Second
	secretGetTimeout = 10 * time.Second
)

func newSecretFetcher(c *Client, observe func(key string, err error, pending int)) *secretFetcher {
	limiter := workqueue.NewTypedItemExponentialFailureRateLimiter[string](secretRetryMin, secretRetryMax)
	return &secretFetcher{c: c, timeout: secretGetTimeout, observe: observe, waiting: map[string]struct{}{},
		queue: workqueue.NewTypedRateLimitingQueueWithConfig(limiter, workqueue.TypedRateLimitingQueueConfig[string]{Name: "secret-data"})}
}

// add queues the Secrets (namespace/name) whose data may be missing.
func (f *secretFetcher) add(keys []string) {
	for _, key := range keys {
		f.mu.Lock()
		f.waiting[key] = struct{}{}
		f.mu.Unlock()
		f.queue.Add(key)
	}
}

// pending is how many Secrets wait for their data.
func (f *secretFetcher) pending() int {
	f.mu.Lock()
	defer f.mu.Unlock()
	return len(f.waiting)
}

// start runs the worker until ctx is done; the queue then shuts down.
func (f *secretFetcher) start(ctx context.Context) {
	f.started.Do(func() {
		f.c.started.Add(2) // Shutdown waits for both
		go func() {
			defer f.c.started.Done()
			<-ctx.Done()
			f.queue.ShutDown()
		}()
		go func() {
			defer f.c.started.Done()
			for f.next(ctx) {
			}
		}()
	})
}

// next fetches one queued Secret; false once the queue is shut down.
func (f *secretFetcher) next(ctx context.Context) bool {
	key, quit := f.queue.Get()
	if quit {
		return false
	}
	defer f.queue.Done(key)
	err := f.fetch(ctx, key)
	if ctx.Err() != nil {
		f.queue.Forget(key)
		return true
	}
	if err != nil {
		f.failures.Add(1)
		f.queue.AddRateLimited(key)
	} else {
		f.queue.Forget(key)
		f.mu.Lock()
		delete(f.waiting, key)
		f.mu.Unlock()
	}
	if f.observe != nil {
		f.observe(key, err, f.pending())
	}
	return true
}

// fetch gets one Secret and puts it, trimmed, into the cache, telling
// the listeners as an update of the cached one. A Secret that no Ingress
// names any longer, that is gone, or whose cached copy has its data
// (listed again meanwhile) needs nothing.
func (f *secretFetcher) fetch(ctx context.Context, key string) error {
	c := f.c
	ns, name, _ := cache.SplitMetaNamespaceKey(key)
	space := listerSnapshot{c}.space(ns)
	if space == nil || space.secretStore == nil || !c.refs.has(ns, name) {
		return nil
	}
	cached, exists, err := space.secretStore.GetByKey(key)
	if err != nil || !exists || !k8s.DataDropped(cached.(*corev1.Secret)) {
		return nil // not listed yet (its data is kept when it comes) or whole
	}
	getCtx, cancel := context.WithTimeout(ctx, f.timeout)
	fresh, err := c.cs.CoreV1().Secrets(ns).Get(getCtx, name, metav1.GetOptions{})
	cancel()
	switch {
	case apierrors.IsNotFound(err):
		return nil // deleted: the informer tells
	case err != nil:
		return fmt.Errorf("secret %s: %w", key, err)
	}
	trimmed, err := c.keep.TransformSecret(c.refs.has)(fresh)
	if err != nil {
		return fmt.Errorf("secret %s: %w", key, err)
	}
	current, ok, _ := space.secretStore.GetByKey(key)
	if ok && newerVersion(current.(*corev1.Secret).ResourceVersion, fresh.ResourceVersion) {
		return nil // the informer already holds a newer version
	}
	if err := space.secretStore.Update(trimmed); err != nil {
		return fmt.Errorf("secret %s: %w", key, err)
	}
	// A change for the renders (the fetched copy has the cached one's
	// resourceVersion, which the change filter would take for a resync);
	// not an informer event: the observer is told (next), and the
	// provider renders then.
	if c.onChange != nil {
		c.onChange("Secret", cached, trimmed)
	}
	return nil
}

// SecretFetches says how many Secrets wait for their data, and how many
// fetches have failed so far (each is retried).
func (c *Client) SecretFetches() (pending int, failed uint64) {
	return c.secrets.pending(), c.secrets.failures.Load()
}

// newerVersion says whether resource version a is newer than b, when both
// are numbers (as the API server makes them); otherwise false.
func newerVersion(a, b string) bool {
	x, err1 := strconv.ParseUint(a, 10, 64)
	y, err2 := strconv.ParseUint(b, 10, 64)
	return err1 == nil && err2 == nil && x > y
}
