package ingress

import (
	"slices"

	netv1 "k8s.io/api/networking/v1"

	"github.com/sliceway/sliceway/provider/kubernetes/ingress/internal/translate"
)

// hostIndex holds the served Ingresses by the hosts their parts read
// (dialect.hosts), for a dialect whose part of an Ingress depends on the
// other Ingresses of its hosts (ingress-nginx's: a regular expression on
// one path of a host makes every path of it one; a canary joins the
// Ingress of its host and path). It is empty for the Traefik-style
// dialect. An incremental render translates again every part that shares
// a host with an Ingress that changed (hostIndex.peers), so that a part
// never reads a stale neighbour.
type hostIndex map[string]map[translate.Key]*netv1.Ingress

// add records ing under hosts (again: the latest object wins).
func (x *hostIndex) add(ing *netv1.Ingress, hosts []string) {
	if len(hosts) == 0 {
		return
	}
	if *x == nil {
		*x = hostIndex{}
	}
	key := translate.Key{Namespace: ing.Namespace, Name: ing.Name}
	for _, h := range hosts {
		m := (*x)[h]
		if m == nil {
			m = map[translate.Key]*netv1.Ingress{}
			(*x)[h] = m
		}
		m[key] = ing
	}
}

// remove forgets the Ingress key under hosts.
func (x hostIndex) remove(key translate.Key, hosts []string) {
	for _, h := range hosts {
		if m := x[h]; m != nil {
			delete(m, key)
			if len(m) == 0 {
				delete(x, h)
			}
		}
	}
}

// peers adds to dirty the Ingresses recorded under hosts.
func (x hostIndex) peers(hosts []string, dirty map[translate.Key]struct{}) {
	for _, h := range hosts {
		for key := range x[h] {
			dirty[key] = struct{}{}
		}
	}
}

// lookup is what translation reads of the index (IngressEnv.Hosts): the
// Ingresses of a host, the oldest first (then by key), each list sorted
// once per pass. The index must not change while a pass translates.
func (x *hostIndex) lookup() func(host string) []*netv1.Ingress {
	sorted := map[string][]*netv1.Ingress{}
	return func(host string) []*netv1.Ingress {
		if list, ok := sorted[host]; ok {
			return list
		}
		m := (*x)[host]
		list := make([]*netv1.Ingress, 0, len(m))
		for _, ing := range m {
			list = append(list, ing)
		}
		slices.SortFunc(list, compareIngressAge)
		sorted[host] = list
		return list
	}
}

// compareIngressAge orders Ingresses as parts are ordered: the oldest
// first, then by key.
func compareIngressAge(a, b *netv1.Ingress) int {
	if c := a.CreationTimestamp.Compare(b.CreationTimestamp.Time); c != 0 {
		return c
	}
	return compareIngressKeys(a, b)
}

// compareIngressKeys orders Ingresses by their keys (namespace, then name).
func compareIngressKeys(a, b *netv1.Ingress) int {
	return translate.CompareKeys(translate.Key{Namespace: a.Namespace, Name: a.Name}, translate.Key{Namespace: b.Namespace, Name: b.Name})
}
