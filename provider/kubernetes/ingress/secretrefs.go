package ingress

import (
	"strconv"
	"sync"

	corev1 "k8s.io/api/core/v1"
	netv1 "k8s.io/api/networking/v1"
	"k8s.io/client-go/tools/cache"

	"github.com/sliceway/sliceway/provider/kubernetes/k8s"
)

// secretRefs counts the references of Ingresses (spec.tls[].secretName) to
// each Secret, so that the Secret cache keeps the data of referenced
// Secrets only. The Secret informers start once the Ingress informers have
// synced, so the counts are complete when Secrets are first listed.
type secretRefs struct {
	mu     sync.RWMutex
	counts map[string]int                // namespace/name
	keys   func(*netv1.Ingress) []string // the Secrets an Ingress names (dialect.secretKeys)
}

func newSecretRefs(keys func(*netv1.Ingress) []string) *secretRefs {
	return &secretRefs{counts: map[string]int{}, keys: keys}
}

func (r *secretRefs) has(namespace, name string) bool {
	r.mu.RLock()
	defer r.mu.RUnlock()
	return r.counts[namespace+"/"+name] > 0
}

// update moves the references of old to those of new (either may be nil)
// and returns the Secrets that just got their first reference.
func (r *secretRefs) update(old, new *netv1.Ingress) []string {
	r.mu.Lock()
	defer r.mu.Unlock()
	for _, key := range r.keys(old) {
		if r.counts[key]--; r.counts[key] <= 0 {
			delete(r.counts, key)
		}
	}
	var first []string
	for _, key := range r.keys(new) {
		r.counts[key]++
		if r.counts[key] == 1 {
			first = append(first, key)
		}
	}
	return first
}

func tlsSecretKeys(ing *netv1.Ingress) []string {
	if ing == nil {
		return nil
	}
	var keys []string
	for _, t := range ing.Spec.TLS {
		if t.SecretName != "" {
			keys = append(keys, ing.Namespace+"/"+t.SecretName)
		}
	}
	return keys
}

// ingressHandler keeps the Secret references up to date and queues the
// Secrets that just got referenced for their data (secretFetcher), then
// tells notify. The handler never waits on the API server: a render that
// comes before the data reports the certificate as pending, and the
// fetch's arrival renders again.
func (c *Client) ingressHandler() cache.ResourceEventHandler {
	return c.handler("Ingress", func(old, new any) {
		if c.plans != nil {
			c.plans.update(old, new)
		}
		c.secrets.add(c.refs.update(eventObject[*netv1.Ingress](old), eventObject[*netv1.Ingress](new)))
	})
}

// secretHandler catches the race where a Secret was transformed just
// before an Ingress first referred to it: its data is fetched then.
func (c *Client) secretHandler() cache.ResourceEventHandler {
	return c.handler("Secret", func(_, new any) {
		if s, ok := new.(*corev1.Secret); ok && k8s.DataDropped(s) && c.refs.has(s.Namespace, s.Name) {
			c.secrets.add([]string{s.Namespace + "/" + s.Name})
		}
	})
}

// newerVersion says whether resource version a is newer than b, when both
// are numbers (as the API server makes them); otherwise false.
func newerVersion(a, b string) bool {
	x, err1 := strconv.ParseUint(a, 10, 64)
	y, err2 := strconv.ParseUint(b, 10, 64)
	return err1 == nil && err2 == nil && x > y
}
