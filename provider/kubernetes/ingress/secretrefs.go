package ingress

import (
	"sync"

	netv1 "k8s.io/api/networking/v1"
)

// secretRefs counts the references of Ingresses (spec.tls[].secretName)
// and Gateways (their listeners' certificateRefs) to each Secret, so that
// the Secret cache keeps the data of referenced Secrets only. The Secret
// informers start once the Ingress and Gateway informers have synced, so
// the counts are complete when Secrets are first listed.
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
	return r.move(r.keys(old), r.keys(new))
}

// move moves references from the Secrets olds to news (namespace/name),
// those an object named before and after a change, and returns the
// Secrets that just got their first reference.
func (r *secretRefs) move(olds, news []string) []string {
	r.mu.Lock()
	defer r.mu.Unlock()
	for _, key := range olds {
		if r.counts[key]--; r.counts[key] <= 0 {
			delete(r.counts, key)
		}
	}
	var first []string
	for _, key := range news {
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
