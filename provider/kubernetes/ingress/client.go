package ingress

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"time"

	corev1 "k8s.io/api/core/v1"
	discoveryv1 "k8s.io/api/discovery/v1"
	netv1 "k8s.io/api/networking/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/labels"
	"k8s.io/client-go/informers"
	netinformers "k8s.io/client-go/informers/networking/v1"
	"k8s.io/client-go/kubernetes"
	corelisters "k8s.io/client-go/listers/core/v1"
	netlisters "k8s.io/client-go/listers/networking/v1"
	"k8s.io/client-go/tools/cache"

	"github.com/sliceway/sliceway/provider/kubernetes/k8s"
)

// ClientOptions say what the informer client watches.
type ClientOptions struct {
	// Namespaces to watch; empty watches all.
	Namespaces []string
	// LabelSelector the Ingresses must match.
	LabelSelector string
	// WatchNodes starts a Node informer (needed by service.nodeportlb).
	WatchNodes bool
}

// Client watches the objects the provider reads through shared informers and
// gives snapshots of them through listers.
type Client struct {
	selector labels.Selector
	all      bool
	spaces   map[string]*namespaceInformers
	cluster  informers.SharedInformerFactory
	classes  netlisters.IngressClassLister
	nodes    corelisters.NodeLister
	synced   []namedSync
}

type namespaceInformers struct {
	factory   informers.SharedInformerFactory
	ingresses netlisters.IngressLister
	services  corelisters.ServiceLister
	secrets   corelisters.SecretLister
	slices    cache.Indexer
}

type namedSync struct {
	resource  string
	namespace string
	informer  cache.SharedIndexInformer
}

// NewClient sets up the informers; Start runs them.
func NewClient(cs kubernetes.Interface, opts ClientOptions) (*Client, error) {
	selector, err := labels.Parse(opts.LabelSelector)
	if err != nil {
		return nil, fmt.Errorf("labelSelector %q: %w", opts.LabelSelector, err)
	}
	c := &Client{selector: selector, spaces: map[string]*namespaceInformers{}}
	namespaces := slices.Compact(slices.Sorted(slices.Values(opts.Namespaces)))
	if len(namespaces) == 0 {
		c.all = true
		namespaces = []string{metav1.NamespaceAll}
	}
	for _, ns := range namespaces {
		c.spaces[ns] = c.newNamespaceInformers(cs, ns, opts.LabelSelector)
	}
	c.cluster = informers.NewSharedInformerFactory(cs, 0)
	classInformer := c.cluster.Networking().V1().IngressClasses()
	c.classes = classInformer.Lister()
	c.synced = append(c.synced, namedSync{"ingressclasses.networking.k8s.io", "", classInformer.Informer()})
	if opts.WatchNodes {
		nodeInformer := c.cluster.Core().V1().Nodes()
		c.nodes = nodeInformer.Lister()
		c.synced = append(c.synced, namedSync{"nodes", "", nodeInformer.Informer()})
	}
	return c, nil
}

func (c *Client) newNamespaceInformers(cs kubernetes.Interface, ns, selector string) *namespaceInformers {
	factory := informers.NewSharedInformerFactoryWithOptions(cs, 0, informers.WithNamespace(ns))
	ingressInformer := factory.InformerFor(&netv1.Ingress{}, func(client kubernetes.Interface, resync time.Duration) cache.SharedIndexInformer {
		return netinformers.NewFilteredIngressInformer(client, ns, resync,
			cache.Indexers{cache.NamespaceIndex: cache.MetaNamespaceIndexFunc},
			func(o *metav1.ListOptions) { o.LabelSelector = selector })
	})
	services := factory.Core().V1().Services()
	secrets := factory.Core().V1().Secrets()
	slicesInformer := factory.Discovery().V1().EndpointSlices().Informer()
	// AddIndexers only fails once the informer has started.
	_ = slicesInformer.AddIndexers(cache.Indexers{k8s.ServiceNameIndex: k8s.IndexByServiceName})
	for _, s := range []namedSync{
		{"ingresses.networking.k8s.io", ns, ingressInformer},
		{"services", ns, services.Informer()},
		{"secrets", ns, secrets.Informer()},
		{"endpointslices.discovery.k8s.io", ns, slicesInformer},
	} {
		c.synced = append(c.synced, s)
	}
	return &namespaceInformers{
		factory:   factory,
		ingresses: netlisters.NewIngressLister(ingressInformer.GetIndexer()),
		services:  services.Lister(),
		secrets:   secrets.Lister(),
		slices:    slicesInformer.GetIndexer(),
	}
}

// Start runs the informers until ctx is done.
func (c *Client) Start(ctx context.Context) {
	for _, ns := range c.spaces {
		ns.factory.Start(ctx.Done())
	}
	c.cluster.Start(ctx.Done())
}

// WaitForSync waits until every informer has listed its resource, or until
// timeout; the error names the resources that did not sync.
func (c *Client) WaitForSync(ctx context.Context, timeout time.Duration) error {
	ctx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()
	var errs []error
	for _, s := range c.synced {
		if !cache.WaitForCacheSync(ctx.Done(), s.informer.HasSynced) {
			where := "cluster-wide"
			if s.namespace != "" {
				where = fmt.Sprintf("in namespace %q", s.namespace)
			} else if s.resource != "ingressclasses.networking.k8s.io" && s.resource != "nodes" {
				where = "in all namespaces"
			}
			errs = append(errs, fmt.Errorf("cannot list %s %s: not synced after %s", s.resource, where, timeout))
		}
	}
	return errors.Join(errs...)
}

// Snapshot returns a read-only view of the informer caches.
func (c *Client) Snapshot() Snapshot { return listerSnapshot{c} }

type listerSnapshot struct{ c *Client }

func (s listerSnapshot) space(ns string) *namespaceInformers {
	if s.c.all {
		return s.c.spaces[metav1.NamespaceAll]
	}
	return s.c.spaces[ns]
}

func (s listerSnapshot) Ingresses() []*netv1.Ingress {
	var out []*netv1.Ingress
	for _, ns := range s.c.spaces {
		list, _ := ns.ingresses.List(labels.Everything())
		for _, ing := range list {
			// The server already filtered by the selector; check again so a
			// client that ignores selectors cannot widen the set.
			if s.c.selector.Matches(labels.Set(ing.Labels)) {
				out = append(out, ing)
			}
		}
	}
	return out
}

func (s listerSnapshot) IngressClasses() []*netv1.IngressClass {
	list, _ := s.c.classes.List(labels.Everything())
	return list
}

func (s listerSnapshot) Service(namespace, name string) *corev1.Service {
	ns := s.space(namespace)
	if ns == nil {
		return nil
	}
	svc, err := ns.services.Services(namespace).Get(name)
	if err != nil {
		return nil
	}
	return svc
}

func (s listerSnapshot) EndpointSlices(namespace, service string) []*discoveryv1.EndpointSlice {
	ns := s.space(namespace)
	if ns == nil {
		return nil
	}
	objs, err := ns.slices.ByIndex(k8s.ServiceNameIndex, k8s.ServiceIndexKey(namespace, service))
	if err != nil || len(objs) == 0 {
		return nil
	}
	out := make([]*discoveryv1.EndpointSlice, 0, len(objs))
	for _, o := range objs {
		if slice, ok := o.(*discoveryv1.EndpointSlice); ok {
			out = append(out, slice)
		}
	}
	return out
}

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
	if s.c.nodes == nil {
		return nil
	}
	list, _ := s.c.nodes.List(labels.Everything())
	return list
}

// RenderOnce starts informers on cs, waits for them to sync and translates
// one snapshot: what `sliceway render` does, against a real cluster or an
// in-memory one.
func RenderOnce(ctx context.Context, cs kubernetes.Interface, opts *Provider, copts ClientOptions, syncTimeout time.Duration) (*Result, error) {
	client, err := NewClient(cs, copts)
	if err != nil {
		return nil, err
	}
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	client.Start(ctx)
	if err := client.WaitForSync(ctx, syncTimeout); err != nil {
		return nil, err
	}
	return Translate(client.Snapshot(), opts), nil
}
