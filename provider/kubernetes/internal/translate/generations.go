package translate

// generations remember values by key, in two generations of at most size
// each: a value found in the older one moves to the current one, and the
// current one, once full, becomes the older one (the older one is dropped),
// so that what was used lately stays and the rest goes. The zero value is
// ready; it is not safe for concurrent use.
type generations[K comparable, V any] struct {
	current, older map[K]V
}

// get returns the value of k.
func (g *generations[K, V]) get(k K, size int) (V, bool) {
	if v, ok := g.current[k]; ok {
		return v, true
	}
	v, ok := g.older[k]
	if ok {
		g.put(k, v, size)
	}
	return v, ok
}

// put remembers v as the value of k.
func (g *generations[K, V]) put(k K, v V, size int) {
	if g.current == nil || len(g.current) >= size {
		g.older, g.current = g.current, make(map[K]V)
	}
	g.current[k] = v
}
