package ingress

import (
	corelisters "k8s.io/client-go/listers/core/v1"
	"k8s.io/client-go/tools/cache"
	gatewayclient "sigs.k8s.io/gateway-api/pkg/client/clientset/versioned"
	gatewayinformers "sigs.k8s.io/gateway-api/pkg/client/informers/externalversions"
	gatewaylisters "sigs.k8s.io/gateway-api/pkg/client/listers/apis/v1"
)

// The resources of the Gateway API informers, as RBAC names them and as
// the sync report and AccessDenied say them.
const (
	gatewayClassesResource  = "gatewayclasses.gateway.networking.k8s.io"
	gatewaysResource        = "gateways.gateway.networking.k8s.io"
	httpRoutesResource      = "httproutes.gateway.networking.k8s.io"
	grpcRoutesResource      = "grpcroutes.gateway.networking.k8s.io"
	referenceGrantsResource = "referencegrants.gateway.networking.k8s.io"
	namespacesResource      = "namespaces"
)

// gatewayInformers are the informers of the Gateway API objects the
// Gateway front end reads (ClientOptions.Gateway): GatewayClasses
// cluster-wide, and Gateways, HTTPRoutes, GRPCRoutes and ReferenceGrants
// in each watched namespace (or in all), each namespace from its own
// factory as for the Ingress informers. The Namespaces their
// allowedRoutes selectors match are listed cluster-wide by the client's
// core cluster factory, and only when the Gateway API is watched: without
// it, no Gateway API or Namespace list is made, and the RBAC rules of the
// Ingress providers are all it needs.
type gatewayInformers struct {
	cluster    gatewayinformers.SharedInformerFactory
	classes    gatewaylisters.GatewayClassLister
	spaces     []*gatewayNamespaceInformers
	namespaces corelisters.NamespaceLister
}

// gatewayNamespaceInformers are the Gateway API informers of one watched
// namespace (or of all of them).
type gatewayNamespaceInformers struct {
	factory    gatewayinformers.SharedInformerFactory
	gateways   gatewaylisters.GatewayLister
	httpRoutes gatewaylisters.HTTPRouteLister
	grpcRoutes gatewaylisters.GRPCRouteLister
	grants     gatewaylisters.ReferenceGrantLister
}

// watchGateway sets up the Gateway API informers on gw and the Namespace
// informer on the client's cluster factory, each tracked as the others
// (trimmed by the transform, filtered by k8s.Keep, named in the sync
// report). namespaces are the watched namespaces, metav1.NamespaceAll
// for all.
func (c *Client) watchGateway(gw gatewayclient.Interface, namespaces []string) error {
	g := &gatewayInformers{cluster: gatewayinformers.NewSharedInformerFactory(gw, 0)}
	classes := g.cluster.Gateway().V1().GatewayClasses()
	namespaceInformer := c.cluster.Core().V1().Namespaces()
	if err := c.track("GatewayClass", gatewayClassesResource, "", classes.Informer(), nil, nil); err != nil {
		return err
	}
	if err := c.track("Namespace", namespacesResource, "", namespaceInformer.Informer(), nil, nil); err != nil {
		return err
	}
	g.classes, g.namespaces = classes.Lister(), namespaceInformer.Lister()
	for _, ns := range namespaces {
		space, err := c.newGatewayNamespaceInformers(gw, ns)
		if err != nil {
			return err
		}
		g.spaces = append(g.spaces, space)
	}
	c.gateway = g
	return nil
}

func (c *Client) newGatewayNamespaceInformers(gw gatewayclient.Interface, ns string) (*gatewayNamespaceInformers, error) {
	factory := gatewayinformers.NewSharedInformerFactoryWithOptions(gw, 0, gatewayinformers.WithNamespace(ns))
	v1 := factory.Gateway().V1()
	gateways, httpRoutes, grpcRoutes, grants := v1.Gateways(), v1.HTTPRoutes(), v1.GRPCRoutes(), v1.ReferenceGrants()
	for _, s := range []struct {
		kind, resource string
		inf            cache.SharedIndexInformer
	}{
		{"Gateway", gatewaysResource, gateways.Informer()},
		{"HTTPRoute", httpRoutesResource, httpRoutes.Informer()},
		{"GRPCRoute", grpcRoutesResource, grpcRoutes.Informer()},
		{"ReferenceGrant", referenceGrantsResource, grants.Informer()},
	} {
		if err := c.track(s.kind, s.resource, ns, s.inf, nil, nil); err != nil {
			return nil, err
		}
	}
	return &gatewayNamespaceInformers{
		factory:    factory,
		gateways:   gateways.Lister(),
		httpRoutes: httpRoutes.Lister(),
		grpcRoutes: grpcRoutes.Lister(),
		grants:     grants.Lister(),
	}, nil
}

// start runs the Gateway API factories until stop is closed; the
// Namespace informer runs with the client's cluster factory.
func (g *gatewayInformers) start(stop <-chan struct{}) {
	g.cluster.Start(stop)
	for _, s := range g.spaces {
		s.factory.Start(stop)
	}
}

// shutdown waits for the Gateway API informers' goroutines to end.
func (g *gatewayInformers) shutdown() {
	g.cluster.Shutdown()
	for _, s := range g.spaces {
		s.factory.Shutdown()
	}
}
