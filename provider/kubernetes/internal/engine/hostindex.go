package engine

import (
	"slices"

	netv1 "k8s.io/api/networking/v1"

	"github.com/sliceway/sliceway/provider/kubernetes/internal/translate"
)

// hostIndex holds the served Ingresses by the hosts their parts read
// (Dialect.Hosts), for a dialect whose part of an Ingress depends on the
// other Ingresses of its hosts (ingress-nginx's: a regular expression on
// one path of a host makes every path of it one; a canary joins the
// Ingress of its host and path). It is empty for the Traefik-style
// dialect. An incremental render translates again every part that shares
// a host with an Ingress that changed (hostIndex.peers), so that a part
// never reads a stale neighbour; a full render takes a part of the last
// render again only when the lists of its hosts are the lists it read
// (samePeers).
//
// Each list is sorted as parts are (compareIngressAge) and is never
// modified once made: add and remove make a new list, so that a list a
// translation read, or a render state kept, stays what it was.
type hostIndex map[string][]*netv1.Ingress

// newHostIndex indexes the Ingresses ings under their hosts (hosts[i]
// are those of ings[i]; an Ingress without hosts is skipped), sorting
// each list once: what a full render builds before it translates.
func newHostIndex(ings []*netv1.Ingress, hosts [][]string) hostIndex {
	total := 0
	for _, hs := range hosts {
		total += len(hs)
	}
	x := make(hostIndex, total)
	// Most hosts have one Ingress: their lists are one-element windows of
	// one array, capped so that a second Ingress of a host copies its list
	// rather than writing into the next host's.
	one := make([]*netv1.Ingress, 0, total)
	for i, ing := range ings {
		for _, h := range hosts[i] {
			if list := x[h]; len(list) > 0 {
				x[h] = append(list, ing)
				continue
			}
			one = append(one, ing)
			n := len(one)
			x[h] = one[n-1 : n : n]
		}
	}
	for _, list := range x {
		slices.SortFunc(list, compareIngressAge)
	}
	return x
}

// add records ing under hosts, in place of any Ingress of its key there.
func (x *hostIndex) add(ing *netv1.Ingress, hosts []string) {
	if len(hosts) == 0 {
		return
	}
	if *x == nil {
		*x = hostIndex{}
	}
	key := translate.Key{Namespace: ing.Namespace, Name: ing.Name}
	for _, h := range hosts {
		list := without((*x)[h], key)
		i, _ := slices.BinarySearchFunc(list, ing, compareIngressAge)
		(*x)[h] = slices.Insert(list, i, ing)
	}
}

// remove forgets the Ingress key under hosts.
func (x hostIndex) remove(key translate.Key, hosts []string) {
	for _, h := range hosts {
		if list := without(x[h], key); len(list) > 0 {
			x[h] = list
		} else {
			delete(x, h)
		}
	}
}

// without is a new list of the Ingresses of list but the one of key
// (list itself is left as it is).
func without(list []*netv1.Ingress, key translate.Key) []*netv1.Ingress {
	out := make([]*netv1.Ingress, 0, len(list)+1) // room for add's insert
	for _, ing := range list {
		if ing.Namespace != key.Namespace || ing.Name != key.Name {
			out = append(out, ing)
		}
	}
	return out
}

// peers adds to dirty the Ingresses recorded under hosts.
func (x hostIndex) peers(hosts []string, dirty map[translate.ObjectKey]struct{}) {
	for _, h := range hosts {
		for _, ing := range x[h] {
			dirty[translate.IngressKey(ing.Namespace, ing.Name)] = struct{}{}
		}
	}
}

// samePeers says whether y holds under each of hosts the very list of
// Ingresses x does.
func (x hostIndex) samePeers(y hostIndex, hosts []string) bool {
	for _, h := range hosts {
		if !slices.Equal(x[h], y[h]) {
			return false
		}
	}
	return true
}

// lookup is what translation reads of the index (IngressEnv.Hosts): the
// Ingresses of a host, the oldest first (then by key). Translation must
// not modify the lists.
func (x *hostIndex) lookup() func(host string) []*netv1.Ingress {
	return func(host string) []*netv1.Ingress { return (*x)[host] }
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
