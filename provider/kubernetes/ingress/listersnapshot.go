package ingress

import (
	corev1 "k8s.io/api/core/v1"
	discoveryv1 "k8s.io/api/discovery/v1"
	netv1 "k8s.io/api/networking/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/labels"

	"github.com/sliceway/sliceway/provider/kubernetes/internal/engine"
	"github.com/sliceway/sliceway/provider/kubernetes/internal/translate"
)

// Snapshot returns a read-only view of the informer caches. When the
// client watches the Gateway API (ClientOptions.Gateway), it also
// implements GatewaySnapshot.
func (c *Client) Snapshot() Snapshot {
	if c.gateway != nil {
		return gatewayListerSnapshot{listerSnapshot{c}}
	}
	return listerSnapshot{c}
}

type listerSnapshot struct{ c *Client }

// What the client's handlers built when the objects arrived, which a
// render takes when it was built with the render's options.
var (
	_ engine.PlanReader    = listerSnapshot{}
	_ engine.ServiceReader = listerSnapshot{}
)

func (s listerSnapshot) space(ns string) *namespaceInformers {
	if s.c.all {
		return s.c.spaces[metav1.NamespaceAll]
	}
	return s.c.spaces[ns]
}

// Ingresses lists the watched Ingresses: those the client planned, else
// those of its listers. The server already filtered by the selector; it
// is checked again so a client that ignores selectors cannot widen the
// set.
func (s listerSnapshot) Ingresses() []*netv1.Ingress {
	var out []*netv1.Ingress
	if s.c.plans != nil {
		for _, pl := range s.Plans() {
			out = append(out, pl.Ingress)
		}
		return out
	}
	for _, ns := range s.c.spaces {
		if ns.ingresses == nil {
			continue // not read (the Gateway provider)
		}
		list, _ := ns.ingresses.List(s.c.selector)
		out = append(out, list...)
	}
	return out
}

// Plan is the client's plan of ing, nil when it has none.
func (s listerSnapshot) Plan(ing *netv1.Ingress) *translate.Plan {
	if s.c.plans == nil {
		return nil
	}
	return s.c.plans.plan(ing)
}

// Plans are the client's plans of the Ingresses the selector matches; nil
// when it makes none.
func (s listerSnapshot) Plans() []*translate.Plan {
	if s.c.plans == nil {
		return nil
	}
	everything := s.c.selector.Empty()
	return s.c.plans.list(func(ing *netv1.Ingress) bool { return everything || s.c.selector.Matches(labels.Set(ing.Labels)) })
}

// Ingress returns one watched Ingress (nil when there is none, or when it
// does not match the label selector): what an incremental render reads.
func (s listerSnapshot) Ingress(namespace, name string) *netv1.Ingress {
	ns := s.space(namespace)
	if ns == nil || ns.ingresses == nil {
		return nil
	}
	ing, err := ns.ingresses.Ingresses(namespace).Get(name)
	if err != nil || !s.c.selector.Matches(labels.Set(ing.Labels)) {
		return nil
	}
	return ing
}

func (s listerSnapshot) IngressClasses() []*netv1.IngressClass {
	if s.c.classes == nil {
		return nil // not read (disableIngressClassLookup)
	}
	list, _ := s.c.classes.List(labels.Everything())
	return list
}

func (s listerSnapshot) Service(namespace, name string) *corev1.Service {
	if o := s.c.index.get(translate.Key{Namespace: namespace, Name: name}); o != nil {
		return o.Service
	}
	return nil
}

// EndpointSlices returns the slices of the Service, sorted by name; the
// list is shared and must not be modified.
func (s listerSnapshot) EndpointSlices(namespace, service string) []*discoveryv1.EndpointSlice {
	if o := s.c.index.get(translate.Key{Namespace: namespace, Name: service}); o != nil {
		return o.Slices
	}
	return nil
}

// ServiceObjects are the Service of key and its slices, prepared.
func (s listerSnapshot) ServiceObjects(key translate.Key) *translate.ServiceObjects {
	return s.c.index.get(key)
}

// LBOptions are the options the client's index built load balancers with.
func (s listerSnapshot) LBOptions() *translate.LBOptions { return s.c.index.options() }

func (s listerSnapshot) Secret(namespace, name string) *corev1.Secret {
	ns := s.space(namespace)
	if ns == nil {
		return nil
	}
	secret, err := ns.secrets.Secrets(namespace).Get(name)
	if err != nil {
		return nil
	}
	return secret
}

func (s listerSnapshot) Nodes() []*corev1.Node {
	s.c.mu.Lock()
	nodes := s.c.nodes
	s.c.mu.Unlock()
	if nodes == nil {
		return nil
	}
	list, _ := nodes.List(labels.Everything())
	return list
}
