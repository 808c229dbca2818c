package translate

import "sync"

// SetMemo remembers what sets of annotations under one prefix decoded
// into, for a dialect whose decoding depends on its options too (package
// nginx): one SetMemo belongs to one set of options, and other options
// take a new one. As the Traefik-style annotationMemo, it keeps the sets
// seen last, two generations of maxAnnotationSets, and a value it gives
// out is shared by every object with the same set: it must never be
// modified. Safe for concurrent use.
type SetMemo[V any] struct {
	prefix  string
	mu      sync.Mutex
	sets    generations[string, V]
	decoded int // sets decoded so far, for tests
}

// NewSetMemo is an empty memo of the annotations under prefix.
func NewSetMemo[V any](prefix string) *SetMemo[V] { return &SetMemo[V]{prefix: prefix} }

// Get is decode()'s value for the set of annotations (those under the
// memo's prefix), decoded once for each set.
func (m *SetMemo[V]) Get(annotations map[string]string, decode func() V) V {
	// The key is built on the stack and looked up as it is: a string of
	// it is made only to remember a set.
	var buf [512]byte
	key := appendAnnotationSet(buf[:0], annotations, m.prefix)
	m.mu.Lock()
	v, ok := m.sets.current[string(key)]
	if !ok {
		if v, ok = m.sets.older[string(key)]; ok {
			m.sets.put(string(key), v, maxAnnotationSets)
		}
	}
	m.mu.Unlock()
	if ok {
		return v
	}
	v = decode()
	m.mu.Lock()
	m.decoded++
	m.sets.put(string(key), v, maxAnnotationSets)
	m.mu.Unlock()
	return v
}

// Decoded is how many sets m has decoded so far.
func (m *SetMemo[V]) Decoded() int {
	m.mu.Lock()
	defer m.mu.Unlock()
	return m.decoded
}
