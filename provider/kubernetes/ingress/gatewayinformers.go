package ingress

import (
	"context"

	"k8s.io/client-go/informers"
	"k8s.io/client-go/kubernetes"
	corelisters "k8s.io/client-go/listers/core/v1"
	"k8s.io/client-go/tools/cache"
	gatewayv1 "sigs.k8s.io/gateway-api/apis/v1"
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
	backendTLSResource      = "backendtlspolicies.gateway.networking.k8s.io"
	configMapsResource      = "configmaps"
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
	namespace        string // metav1.NamespaceAll for all
	factory          gatewayinformers.SharedInformerFactory
	gatewaysInformer cache.SharedIndexInformer
	gateways         gatewaylisters.GatewayLister
	httpRoutes       gatewaylisters.HTTPRouteLister
	grpcRoutes       gatewaylisters.GRPCRouteLister
	grants           gatewaylisters.ReferenceGrantLister
	backendTLS       gatewaylisters.BackendTLSPolicyLister
	// core runs the ConfigMap informer (gatewaybackendtls.go).
	core       informers.SharedInformerFactory
	configMaps corelisters.ConfigMapLister
}

// watchGateway sets up the Gateway API informers on gw and the Namespace
// informer on the client's cluster factory, each tracked as the others
// (trimmed by the transform, filtered by k8s.Keep, named in the sync
// report). namespaces are the watched namespaces, metav1.NamespaceAll
// for all.
func (c *Client) watchGateway(cs kubernetes.Interface, gw gatewayclient.Interface, namespaces []string) error {
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
		space, err := c.newGatewayNamespaceInformers(cs, gw, ns)
		if err != nil {
			return err
		}
		g.spaces = append(g.spaces, space)
	}
	c.gateway = g
	return nil
}

func (c *Client) newGatewayNamespaceInformers(cs kubernetes.Interface, gw gatewayclient.Interface, ns string) (*gatewayNamespaceInformers, error) {
	factory := gatewayinformers.NewSharedInformerFactoryWithOptions(gw, 0, gatewayinformers.WithNamespace(ns))
	v1 := factory.Gateway().V1()
	gateways, httpRoutes, grpcRoutes, grants := v1.Gateways(), v1.HTTPRoutes(), v1.GRPCRoutes(), v1.ReferenceGrants()
	policies := v1.BackendTLSPolicies()
	for _, s := range []struct {
		kind, resource string
		inf            cache.SharedIndexInformer
		handler        cache.ResourceEventHandler
	}{
		{"Gateway", gatewaysResource, gateways.Informer(), c.gatewayHandler()},
		{"HTTPRoute", httpRoutesResource, httpRoutes.Informer(), nil},
		{"GRPCRoute", grpcRoutesResource, grpcRoutes.Informer(), nil},
		{"ReferenceGrant", referenceGrantsResource, grants.Informer(), nil},
		{"BackendTLSPolicy", backendTLSResource, policies.Informer(), nil},
	} {
		if err := c.track(s.kind, s.resource, ns, s.inf, nil, s.handler); err != nil {
			return nil, err
		}
	}
	space := &gatewayNamespaceInformers{
		namespace:        ns,
		factory:          factory,
		gatewaysInformer: gateways.Informer(),
		gateways:         gateways.Lister(),
		httpRoutes:       httpRoutes.Lister(),
		grpcRoutes:       grpcRoutes.Lister(),
		grants:           grants.Lister(),
		backendTLS:       policies.Lister(),
	}
	if err := c.watchCAConfigMaps(cs, ns, space); err != nil {
		return nil, err
	}
	return space, nil
}

// gatewayHandler keeps the Secret references of the Gateways' listeners
// (their certificateRefs), so that those Secrets keep their data in the
// cache, as the Secrets Ingresses name do.
func (c *Client) gatewayHandler() cache.ResourceEventHandler {
	return c.handler("Gateway", func(old, new any) {
		c.secrets.add(c.refs.move(gatewayCertificateKeys(eventObject[*gatewayv1.Gateway](old)), gatewayCertificateKeys(eventObject[*gatewayv1.Gateway](new))))
	})
}

// gatewayCertificateKeys are the Secrets (namespace/name) gw names as
// certificates, its listeners' and the one it presents to backends
// (spec.tls.backend): core Secrets, in gw's namespace unless the
// reference says another (which a ReferenceGrant must allow: the render
// checks that, this only keeps the data at hand).
func gatewayCertificateKeys(gw *gatewayv1.Gateway) []string {
	if gw == nil {
		return nil
	}
	var refs []gatewayv1.SecretObjectReference
	for _, l := range gw.Spec.Listeners {
		if l.TLS != nil {
			refs = append(refs, l.TLS.CertificateRefs...)
		}
	}
	if gw.Spec.TLS != nil && gw.Spec.TLS.Backend != nil && gw.Spec.TLS.Backend.ClientCertificateRef != nil {
		refs = append(refs, *gw.Spec.TLS.Backend.ClientCertificateRef)
	}
	var keys []string
	for _, ref := range refs {
		if (ref.Group != nil && *ref.Group != "") || (ref.Kind != nil && *ref.Kind != "Secret") {
			continue
		}
		ns := gw.Namespace
		if ref.Namespace != nil && *ref.Namespace != "" {
			ns = string(*ref.Namespace)
		}
		keys = append(keys, ns+"/"+string(ref.Name))
	}
	return keys
}

// start runs the Gateway API factories until stop is closed; the
// Namespace informer runs with the client's cluster factory.
func (g *gatewayInformers) start(stop <-chan struct{}) {
	g.cluster.Start(stop)
	for _, s := range g.spaces {
		s.factory.Start(stop)
		s.core.Start(stop)
	}
}

// waitGatewaysSynced waits for the Gateway informers, whose listeners name
// the certificate Secrets; false when ctx is done first.
func (g *gatewayInformers) waitGatewaysSynced(ctx context.Context) bool {
	for _, s := range g.spaces {
		if !cache.WaitForCacheSync(ctx.Done(), s.gatewaysInformer.HasSynced) {
			return false
		}
	}
	return true
}

// shutdown waits for the Gateway API informers' goroutines to end.
func (g *gatewayInformers) shutdown() {
	g.cluster.Shutdown()
	for _, s := range g.spaces {
		s.factory.Shutdown()
		s.core.Shutdown()
	}
}
