package ingress

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"sync"
	"time"

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
	// WatchNodes starts a Node informer from the start; otherwise EnsureNodes
	// starts one when a feature first needs Nodes.
	WatchNodes bool
	// Notify, when set, is told of every event; updates that cannot change
	// the output are passed with changed=false.
	Notify k8s.Notify
	// OnChange, when set, is told of the events that count, with their
	// objects, before Notify.
	OnChange k8s.OnChange
	// Provider, when set, is the options of the renders that will read
	// this client's snapshots. The client then builds the load balancer of
	// each Service port whenever the Service or one of its EndpointSlices
	// changes, and a render with the same endpoint options (the
	// terminatingEndpoints, allowFQDNEndpoints, allowLoopbackEndpoints,
	// endpointSliceManagers, ipFamily, nativeLBByDefault and
	// allowExternalNameServices options) takes it instead of building its
	// own; a render with others builds them itself. Likewise the client
	// plans each Ingress (its annotations decoded, its routers built) when
	// it changes, and a render with the same strictPrefixMatching and
	// maxIngressOutput options takes the plan. Both come from the builders
	// a render runs. Provide sets it; it must not change while the client
	// runs.
	Provider *Provider
	// OnSecretFetch, when set, is told of each fetch of a Secret's data
	// (secretFetcher): the Secret (namespace/name), the error (nil: done;
	// a failed one is retried), and how many Secrets wait for theirs. A
	// fetch that brought data was first recorded with OnChange, as a
	// change of the Secret: a render should follow.
	OnSecretFetch func(key string, err error, pending int)
	// OnDenied, when set, is told at once of a list or watch the API server
	// forbids or does not authorize, once per informer until it changes or
	// a list succeeds; the informer keeps retrying.
	OnDenied func(AccessDenied)
}

// Client watches the objects the provider reads through shared informers and
// gives snapshots of them through listers.
type Client struct {
	cs       kubernetes.Interface
	refs     *secretRefs
	secrets  *secretFetcher // the data of Secrets newly referenced
	keep     k8s.Keep       // what the dialect reads of annotations and Secret data
	index    *serviceIndex  // Services and their EndpointSlices, for renders
	plans    *planIndex     // the plan of each Ingress; nil without ClientOptions.Provider
	started  sync.WaitGroup // the goroutine that starts the Secret informers
	selector labels.Selector
	all      bool
	notify   k8s.Notify
	onChange k8s.OnChange
	spaces   map[string]*namespaceInformers
	cluster  informers.SharedInformerFactory
	classes  netlisters.IngressClassLister // nil: IngressClasses are not read
	noNodes  bool                          // disableClusterScopeResources: Nodes are never read
	synced   []*namedSync
	onDenied func(AccessDenied)
	whoami   sync.Once // the SelfSubjectReview that names user
	user     string
	// configMaps watches the ConfigMap the dialect reads; nil when it
	// reads none.
	configMaps *configMapWatch

	mu    sync.Mutex
	nodes corelisters.NodeLister // nil until nodes are watched
}

type namespaceInformers struct {
	factory         informers.SharedInformerFactory
	secretFactory   informers.SharedInformerFactory // started once the Ingresses are synced
	ingressInformer cache.SharedIndexInformer
	ingresses       netlisters.IngressLister
	secrets         corelisters.SecretLister
	secretStore     cache.Indexer
}

type namedSync struct {
	resource  string
	namespace string
	informer  cache.SharedIndexInformer
	handler   cache.ResourceEventHandlerRegistration // nil without a handler

	mu      sync.Mutex
	lastErr error // the last list or watch error, to say why a sync does not finish
	denial  denialState
}

// synced says whether the informer has listed its resource and its handler
// has been told of every object listed, so that a render after the sync
// does not hear of the initial objects again as changes.
func (s *namedSync) synced() bool {
	return s.informer.HasSynced() && (s.handler == nil || s.handler.HasSynced())
}

// where says where the informer lists, for messages.
func (s *namedSync) where() string {
	switch {
	case s.namespace != "":
		return fmt.Sprintf("in namespace %q", s.namespace)
	case s.resource == "ingressclasses.networking.k8s.io" || s.resource == "nodes":
		return "(cluster-wide)"
	default:
		return "in all namespaces"
	}
}

// NewClient sets up the informers; Start runs them.
func NewClient(cs kubernetes.Interface, opts ClientOptions) (*Client, error) {
	selector, err := labels.Parse(opts.LabelSelector)
	if err != nil {
		return nil, fmt.Errorf("labelSelector %q: %w", opts.LabelSelector, err)
	}
	var d dialect = traefikDialect{}
	if opts.Provider != nil {
		d = dialectOf(opts.Provider)
	}
	c := &Client{cs: cs, refs: newSecretRefs(d.secretKeys), keep: d.keep(), selector: selector, spaces: map[string]*namespaceInformers{}, notify: opts.Notify, onChange: opts.OnChange, onDenied: opts.OnDenied}
	c.secrets = newSecretFetcher(c, opts.OnSecretFetch)
	if opts.Provider != nil {
		c.index = newServiceIndex(newLBOptions(opts.Provider))
		if d.plansByClient() {
			c.plans = newPlanIndex(newPlanOptions(opts.Provider))
		}
	} else {
		c.index = newServiceIndex(nil)
	}
	namespaces := slices.Compact(slices.Sorted(slices.Values(opts.Namespaces)))
	if len(namespaces) == 0 {
		c.all = true
		namespaces = []string{metav1.NamespaceAll}
	}
	for _, ns := range namespaces {
		if c.spaces[ns], err = c.newNamespaceInformers(cs, ns, opts.LabelSelector); err != nil {
			return nil, err
		}
	}
	c.cluster = informers.NewSharedInformerFactory(cs, 0)
	if opts.Provider == nil || opts.Provider.readsClasses() {
		classInformer := c.cluster.Networking().V1().IngressClasses()
		c.classes = classInformer.Lister()
		if err := c.track("IngressClass", "ingressclasses.networking.k8s.io", "", classInformer.Informer(), nil, nil); err != nil {
			return nil, err
		}
	}
	c.noNodes = opts.Provider != nil && opts.Provider.DisableClusterScopeResources
	if ns, name := d.configMap(); name != "" {
		if err := c.watchConfigMap(cs, ns, name); err != nil {
			return nil, err
		}
	}
	if opts.WatchNodes {
		if _, err := c.addNodeInformer(); err != nil {
			return nil, err
		}
	}
	return c, nil
}

// track sets up an informer before it starts: the transform that trims
// objects (k8s.Transform unless given), the change filter (or the given
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
		handler = k8s.EventHandler(kind, c.notify, c.onChange)
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

// handler does first with every event of kind (nil, obj for an add; old,
// new for an update; obj, nil for a delete), then passes it to the change
// filter when anybody listens: the client's own bookkeeping is up to date
// before a render hears of the change.
func (c *Client) handler(kind string, first func(old, new any)) cache.ResourceEventHandler {
	filter := k8s.EventHandler(kind, c.notify, c.onChange)
	notify := c.listens()
	return cache.ResourceEventHandlerFuncs{
		AddFunc: func(obj any) {
			first(nil, obj)
			if notify {
				filter.OnAdd(obj, false)
			}
		},
		UpdateFunc: func(old, new any) {
			first(old, new)
			if notify {
				filter.OnUpdate(old, new)
			}
		},
		DeleteFunc: func(obj any) {
			first(obj, nil)
			if notify {
				filter.OnDelete(obj)
			}
		},
	}
}

// listens says whether anybody is told of events.
func (c *Client) listens() bool { return c.notify != nil || c.onChange != nil }

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

func (c *Client) newNamespaceInformers(cs kubernetes.Interface, ns, selector string) (*namespaceInformers, error) {
	factory := informers.NewSharedInformerFactoryWithOptions(cs, 0, informers.WithNamespace(ns))
	ingressInformer := factory.InformerFor(&netv1.Ingress{}, func(client kubernetes.Interface, resync time.Duration) cache.SharedIndexInformer {
		return netinformers.NewFilteredIngressInformer(client, ns, resync,
			cache.Indexers{cache.NamespaceIndex: cache.MetaNamespaceIndexFunc},
			func(o *metav1.ListOptions) { o.LabelSelector = selector })
	})
	services := factory.Core().V1().Services()
	secretFactory := informers.NewSharedInformerFactoryWithOptions(cs, 0, informers.WithNamespace(ns))
	secrets := secretFactory.Core().V1().Secrets()
	slicesInformer := factory.Discovery().V1().EndpointSlices().Informer()
	for _, s := range []struct {
		kind, resource string
		inf            cache.SharedIndexInformer
		transform      cache.TransformFunc
		handler        cache.ResourceEventHandler
	}{
		{"Ingress", "ingresses.networking.k8s.io", ingressInformer, nil, c.ingressHandler()},
		{"Service", "services", services.Informer(), nil, c.handler("Service", c.index.service)},
		{"Secret", "secrets", secrets.Informer(), c.keep.TransformSecret(c.refs.has), c.secretHandler()},
		{"EndpointSlice", "endpointslices.discovery.k8s.io", slicesInformer, nil, c.handler("EndpointSlice", c.index.slice)},
	} {
		if err := c.track(s.kind, s.resource, ns, s.inf, s.transform, s.handler); err != nil {
			return nil, err
		}
	}
	return &namespaceInformers{
		factory:         factory,
		secretFactory:   secretFactory,
		ingressInformer: ingressInformer,
		ingresses:       netlisters.NewIngressLister(ingressInformer.GetIndexer()),
		secrets:         secrets.Lister(),
		secretStore:     secrets.Informer().GetIndexer(),
	}, nil
}

// Start runs the informers until ctx is done.
// The Secret informers start once the Ingress informers have synced, so
// that the Secrets no Ingress references are cached without their data.
func (c *Client) Start(ctx context.Context) {
	for _, ns := range c.spaces {
		ns.factory.Start(ctx.Done())
	}
	c.cluster.Start(ctx.Done())
	if c.configMaps != nil {
		c.configMaps.factory.Start(ctx.Done())
	}
	c.secrets.start(ctx)
	c.started.Add(1)
	go func() {
		defer c.started.Done()
		for _, ns := range c.spaces {
			if !cache.WaitForCacheSync(ctx.Done(), ns.ingressInformer.HasSynced) {
				return
			}
		}
		for _, ns := range c.spaces {
			ns.secretFactory.Start(ctx.Done())
		}
	}()
}

// Shutdown waits for the informer goroutines to end; call it after the
// context given to Start is done.
func (c *Client) Shutdown() {
	c.started.Wait()
	for _, ns := range c.spaces {
		ns.factory.Shutdown()
		ns.secretFactory.Shutdown()
	}
	c.cluster.Shutdown()
	if c.configMaps != nil {
		c.configMaps.factory.Shutdown()
	}
}

// WaitForSync waits until every informer has listed its resource, or until
// timeout. The error names each resource that did not sync and the last
// error its list or watch got, such as
// `cannot list endpointslices.discovery.k8s.io in namespace "x": forbidden: ...`.
// The informers keep retrying after it returns.
func (c *Client) WaitForSync(ctx context.Context, timeout time.Duration) error {
	c.mu.Lock()
	synced := slices.Clone(c.synced)
	c.mu.Unlock()
	return waitSynced(ctx, synced, timeout)
}

func waitSynced(ctx context.Context, synced []*namedSync, timeout time.Duration) error {
	ctx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()
	var errs []error
	for _, s := range synced {
		if cache.WaitForCacheSync(ctx.Done(), s.synced) {
			continue
		}
		s.mu.Lock()
		last := s.lastErr
		s.mu.Unlock()
		reason := fmt.Sprintf("not synced after %s", timeout)
		if last != nil {
			reason = describeAPIError(last)
		}
		errs = append(errs, fmt.Errorf("cannot list %s %s: %s", s.resource, s.where(), reason))
	}
	return errors.Join(errs...)
}

// RenderOnce starts informers on cs, waits for them to sync and translates
// one snapshot: what `sliceway render` does, against a real cluster or an
// in-memory one. copts.Provider, when not set, is opts.
func RenderOnce(ctx context.Context, cs kubernetes.Interface, opts *Provider, copts ClientOptions, syncTimeout time.Duration) (*Result, error) {
	if copts.Provider == nil {
		copts.Provider = opts
	}
	client, err := NewClient(cs, copts)
	if err != nil {
		return nil, err
	}
	ctx, cancel := context.WithCancel(ctx)
	defer client.Shutdown()
	defer cancel()
	client.Start(ctx)
	if err := client.WaitForSync(ctx, syncTimeout); err != nil {
		return nil, err
	}
	r := NewRenderer(opts)
	res, _ := r.Render(client.Snapshot(), nil)
	if res.NeedsNodes && !client.WatchesNodes() {
		if err := client.EnsureNodes(ctx, syncTimeout); err != nil {
			return nil, err
		}
		res, _ = r.Render(client.Snapshot(), nil) // in full again, without checking the certificates again
	}
	return res, nil
}
