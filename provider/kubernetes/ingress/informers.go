package ingress

import (
	"context"
	"errors"
	"fmt"
	"time"

	netv1 "k8s.io/api/networking/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/informers"
	netinformers "k8s.io/client-go/informers/networking/v1"
	"k8s.io/client-go/kubernetes"
	corelisters "k8s.io/client-go/listers/core/v1"
	netlisters "k8s.io/client-go/listers/networking/v1"
	"k8s.io/client-go/tools/cache"
)

// namespaceInformers are the informers of one watched namespace (or of
// all of them): Ingresses, Services and EndpointSlices from one factory,
// Secrets from another that starts once the Ingresses have synced, so that
// the Secret transform knows every reference when Secrets are first listed.
type namespaceInformers struct {
	factory         informers.SharedInformerFactory
	secretFactory   informers.SharedInformerFactory // started once the Ingresses are synced
	ingressInformer cache.SharedIndexInformer       // nil, as ingresses, when the provider reads no Ingress
	ingresses       netlisters.IngressLister
	secrets         corelisters.SecretLister
	secretStore     cache.Indexer
}

// track sets up an informer before it starts: the transform that trims
// objects (the dialect's Keep.Transform unless given), the change filter (or the given
// handler), and the record of list and watch errors.
func (c *Client) track(kind, resource, namespace string, inf cache.SharedIndexInformer, transform cache.TransformFunc, handler cache.ResourceEventHandler) error {
	s := &namedSync{resource: resource, namespace: namespace, informer: inf}
	if transform == nil {
		transform = c.keep.Transform
	}
	if err := inf.SetTransform(transform); err != nil {
		return fmt.Errorf("%s: %w", resource, err)
	}
	if err := inf.SetWatchErrorHandlerWithContext(c.watchErrorHandler(s)); err != nil {
		return fmt.Errorf("%s: %w", resource, err)
	}
	if handler == nil && c.listens() {
		handler = c.keep.EventHandler(kind, c.notify, c.onChange)
	}
	if handler != nil {
		reg, err := inf.AddEventHandler(handler)
		if err != nil {
			return fmt.Errorf("%s: %w", resource, err)
		}
		s.handler = reg
	}
	c.mu.Lock()
	c.synced = append(c.synced, s)
	c.mu.Unlock()
	return nil
}

func (c *Client) addNodeInformer() (*namedSync, error) {
	nodeInformer := c.cluster.Core().V1().Nodes()
	if err := c.track("Node", "nodes", "", nodeInformer.Informer(), nil, nil); err != nil {
		return nil, err
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	c.nodes = nodeInformer.Lister()
	return c.synced[len(c.synced)-1], nil
}

// WatchesNodes says whether Nodes are watched.
func (c *Client) WatchesNodes() bool {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.nodes != nil
}

// EnsureNodes starts watching Nodes, if not yet done, and waits for them to
// sync: Nodes are only read when a feature needs them.
func (c *Client) EnsureNodes(ctx context.Context, timeout time.Duration) error {
	if c.WatchesNodes() {
		return nil
	}
	if c.noNodes {
		return errors.New("Nodes are not read: disableClusterScopeResources is set")
	}
	s, err := c.addNodeInformer()
	if err != nil {
		return err
	}
	c.cluster.Start(ctx.Done())
	return waitSynced(ctx, []*namedSync{s}, timeout)
}

// newNamespaceInformers sets up the informers of namespace ns (all of
// them when ns is ""): its Services, EndpointSlices and Secrets, and its
// Ingresses withIngresses (not for the Gateway provider, which serves
// none).
func (c *Client) newNamespaceInformers(cs kubernetes.Interface, ns, selector string, withIngresses bool) (*namespaceInformers, error) {
	factory := informers.NewSharedInformerFactoryWithOptions(cs, 0, informers.WithNamespace(ns))
	services := factory.Core().V1().Services()
	secretFactory := informers.NewSharedInformerFactoryWithOptions(cs, 0, informers.WithNamespace(ns))
	secrets := secretFactory.Core().V1().Secrets()
	slicesInformer := factory.Discovery().V1().EndpointSlices().Informer()
	type informer struct {
		kind, resource string
		inf            cache.SharedIndexInformer
		transform      cache.TransformFunc
		handler        cache.ResourceEventHandler
	}
	var list []informer
	out := &namespaceInformers{factory: factory, secretFactory: secretFactory, secrets: secrets.Lister(), secretStore: secrets.Informer().GetIndexer()}
	if withIngresses {
		out.ingressInformer = factory.InformerFor(&netv1.Ingress{}, func(client kubernetes.Interface, resync time.Duration) cache.SharedIndexInformer {
			return netinformers.NewFilteredIngressInformer(client, ns, resync,
				cache.Indexers{cache.NamespaceIndex: cache.MetaNamespaceIndexFunc},
				func(o *metav1.ListOptions) { o.LabelSelector = selector })
		})
		out.ingresses = netlisters.NewIngressLister(out.ingressInformer.GetIndexer())
		list = append(list, informer{"Ingress", "ingresses.networking.k8s.io", out.ingressInformer, nil, c.ingressHandler()})
	}
	list = append(list,
		informer{"Service", "services", services.Informer(), nil, c.handler("Service", c.index.service)},
		informer{"Secret", "secrets", secrets.Informer(), c.keep.TransformSecret(c.refs.has), c.secretHandler()},
		informer{"EndpointSlice", "endpointslices.discovery.k8s.io", slicesInformer, nil, c.handler("EndpointSlice", c.index.slice)})
	for _, s := range list {
		if err := c.track(s.kind, s.resource, ns, s.inf, s.transform, s.handler); err != nil {
			return nil, err
		}
	}
	return out, nil
}
