package ingress

import (
	"slices"
	"strings"

	"github.com/sliceway/sliceway/provider/kubernetes/endpoints"
	"github.com/sliceway/sliceway/provider/kubernetes/internal/translate"
)

// The options of translation, built from the Provider's: translation
// never reads the Provider itself.

// newPlanOptions are the options a plan of an Ingress depends on.
func newPlanOptions(p *Provider) translate.PlanOptions {
	return translate.PlanOptions{StrictPrefix: p.StrictPrefixMatching, SpecPriorities: p.specPriorities(), MaxOutput: p.maxIngressOutput(),
		CrossProvider: translate.NewCrossProviderNamespaces(p.CrossProviderNamespaces), PinRuleSyntax: p.DefaultRuleSyntax == "v2"}
}

// newLBOptions are the options a Service port's load balancer depends on,
// besides where this proxy runs.
func newLBOptions(p *Provider) *translate.LBOptions {
	return &translate.LBOptions{Selection: newSelection(p), AllowExternalName: p.AllowExternalNameServices, BareServices: p.IsNGINX(), ExternalNameTargetPort: p.IsNGINX(),
		CrossProvider: translate.NewCrossProviderNamespaces(p.CrossProviderNamespaces), NoNodes: p.DisableClusterScopeResources}
}

// newSelection is how endpoints are chosen, by the options.
func newSelection(p *Provider) translate.Selection {
	policy, err := endpoints.ParseTerminatingPolicy(p.TerminatingEndpoints)
	if err != nil {
		policy = endpoints.TerminatingFallback // Init refuses it; an embedder's renders get the default
	}
	return translate.Selection{
		Endpoints: endpoints.Options{
			Terminating:   policy,
			AllowFQDN:     p.AllowFQDNEndpoints,
			AllowLoopback: p.AllowLoopbackEndpoints,
			Managers:      slices.Clone(p.EndpointSliceManagers),
		},
		IPFamily: strings.ToLower(p.IPFamily),
		NativeLB: p.NativeLBByDefault,
	}
}

// locate finds where the proxy runs: the node from the options (or
// NODE_NAME, resolved by Init), the zone from the options or else from
// the Node's zone label.
func locate(opts *Provider, snap Snapshot) translate.Location {
	node, zone := opts.nodeName, ""
	if tp := opts.Topology; tp != nil {
		if tp.Node != "" {
			node = tp.Node
		}
		zone = tp.Zone
	}
	if opts.DisableClusterScopeResources && zone == "" {
		// The zone would come from this proxy's Node, which is not read.
		return translate.Location{}
	}
	return translate.Locate(node, zone, snap)
}

// maxIngressOutput is the maxIngressOutput option, its default for 0.
func (p *Provider) maxIngressOutput() int64 {
	if p.MaxIngressOutput > 0 {
		return p.MaxIngressOutput
	}
	return DefaultMaxIngressOutput
}
