package ingress

import (
	"context"
	"fmt"
	"slices"
	"sync"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/labels"
	"k8s.io/client-go/informers"
	"k8s.io/client-go/kubernetes"
	corelisters "k8s.io/client-go/listers/core/v1"
	netlisters "k8s.io/client-go/listers/networking/v1"
	"k8s.io/client-go/tools/cache"
	gatewayclient "sigs.k8s.io/gateway-api/pkg/client/clientset/versioned"

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
	// OnMissing, when set, is told at once of a list of a resource the API
	// server does not serve (a Gateway API CRD not installed), once per
	// informer until it changes; the informer keeps retrying.
	OnMissing func(MissingResource)
	// Gateway, when set, is the client of the Gateway API: the client then
	// also watches GatewayClasses and Namespaces (cluster-wide), and
	// Gateways, HTTPRoutes, GRPCRoutes and ReferenceGrants in the watched
	// namespaces, and its snapshots implement GatewaySnapshot. Nil watches
	// none of them, so that the RBAC rules of the Ingress providers are
	// all the client needs.
	Gateway gatewayclient.Interface
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
	// gateway watches the Gateway API objects and the Namespaces; nil
	// without ClientOptions.Gateway.
	gateway   *gatewayInformers
	onMissing func(MissingResource)

	mu    sync.Mutex
	nodes corelisters.NodeLister // nil until nodes are watched
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
	c := &Client{cs: cs, refs: newSecretRefs(d.secretKeys), keep: d.keep(), selector: selector, spaces: map[string]*namespaceInformers{}, notify: opts.Notify, onChange: opts.OnChange, onDenied: opts.OnDenied, onMissing: opts.OnMissing}
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
		if c.spaces[ns], err = c.newNamespaceInformers(cs, ns, opts.LabelSelector, opts.Provider == nil || opts.Provider.readsIngresses()); err != nil {
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
	if opts.Gateway != nil {
		if err := c.watchGateway(cs, opts.Gateway, namespaces); err != nil {
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

// Start runs the informers until ctx is done.
// The Secret informers start once the Ingress (and Gateway) informers have
// synced, so that the Secrets nothing references are cached without their
// data.
func (c *Client) Start(ctx context.Context) {
	for _, ns := range c.spaces {
		ns.factory.Start(ctx.Done())
	}
	c.cluster.Start(ctx.Done())
	if c.configMaps != nil {
		c.configMaps.factory.Start(ctx.Done())
	}
	if c.gateway != nil {
		c.gateway.start(ctx.Done())
	}
	c.secrets.start(ctx)
	c.started.Add(1)
	go func() {
		defer c.started.Done()
		for _, ns := range c.spaces {
			if ns.ingressInformer != nil && !cache.WaitForCacheSync(ctx.Done(), ns.ingressInformer.HasSynced) {
				return
			}
		}
		if c.gateway != nil && !c.gateway.waitGatewaysSynced(ctx) {
			return
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
	if c.gateway != nil {
		c.gateway.shutdown()
	}
}
