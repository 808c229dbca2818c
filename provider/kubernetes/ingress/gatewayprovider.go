package ingress

import (
	"context"
	"errors"
	"fmt"
	"maps"
	"net/netip"
	"slices"
	"strings"

	"k8s.io/client-go/rest"
	gatewayv1 "sigs.k8s.io/gateway-api/apis/v1"
	gatewayclient "sigs.k8s.io/gateway-api/pkg/client/clientset/versioned"

	"github.com/sliceway/sliceway/config/dynamic"
	"github.com/sliceway/sliceway/provider/kubernetes/internal/gateway/attach"
	"github.com/sliceway/sliceway/provider/kubernetes/internal/gateway/filter"
)

// GatewayProviderName is the name the Gateway API provider gives its
// messages.
const GatewayProviderName = "kubernetesgateway"

// DefaultGatewayControllerName is the controllerName of the
// GatewayClasses the Gateway API provider serves unless told otherwise.
const DefaultGatewayControllerName = "sliceway.io/gateway-controller"

// GatewayProvider serves the HTTPRoutes attached to the Gateways of the
// GatewayClasses whose controllerName is ControllerName, on the same
// engine as Provider: its options are Provider's (the endpoint, trust,
// family and topology ones, the cluster connection), under its own
// prefix. A Gateway's listeners are served on the proxy's entry points
// of the same port and protocol (EntryPoints).
type GatewayProvider struct {
	Provider
	ControllerName    string                        `description:"The spec.controllerName of the GatewayClasses whose Gateways are served." json:"controllerName,omitempty" toml:"controllerName,omitempty" yaml:"controllerName,omitempty" export:"true"`
	EntryPoints       map[string]*GatewayEntryPoint `description:"The proxy's entry points, by name: a listener is served on the one of its port and a protocol that carries it (an HTTP listener on an HTTP entry point, an HTTPS one on an HTTPS entry point)." json:"entryPoints,omitempty" toml:"entryPoints,omitempty" yaml:"entryPoints,omitempty" export:"true"`
	PluginMiddlewares bool                          `description:"Write header modifiers, redirects and rewrites as Traefik's own Gateway API middlewares, which only a provider plugin delivers (sliceway's traefik-plugin): exact, where the middlewares every delivery takes cannot add to a header nor redirect with 303, 307 or 308 (such filters are then refused)." json:"pluginMiddlewares,omitempty" toml:"pluginMiddlewares,omitempty" yaml:"pluginMiddlewares,omitempty" export:"true"`
}

// GatewayEntryPoint is an entry point of the proxy as Gateway listeners
// see it: the port clients reach it on, what it serves, and, when the
// proxy has several addresses, the one clients reach it at.
type GatewayEntryPoint struct {
	Port     int32  `description:"The port of the listeners it serves (the port clients connect to, which may differ from the one Traefik listens on behind a Service)." json:"port,omitempty" toml:"port,omitempty" yaml:"port,omitempty" export:"true"`
	Protocol string `description:"HTTP or HTTPS (Traefik ends TLS with the listeners' certificates)." json:"protocol,omitempty" toml:"protocol,omitempty" yaml:"protocol,omitempty" export:"true"`
	Address  string `description:"The IP address clients reach it at, when the proxy has several (set on every entry point or on none): each Gateway is given one address, and its listeners are served only on the entry points of that address, apart from the other addresses' Gateways; its status.addresses say which. Without, every Gateway shares the entry points, and its address is ingressEndpoint's." json:"address,omitempty" toml:"address,omitempty" yaml:"address,omitempty" export:"true"`
}

// SetDefaults sets the default option values: Provider's, the default
// controllerName, the entry points web (80, HTTP) and websecure (443,
// HTTPS), as Traefik names them, and a Lease of its own.
func (p *GatewayProvider) SetDefaults() {
	p.Provider.SetDefaults()
	p.ControllerName = DefaultGatewayControllerName
	p.EntryPoints = map[string]*GatewayEntryPoint{
		"web":       {Port: 80, Protocol: string(gatewayv1.HTTPProtocolType)},
		"websecure": {Port: 443, Protocol: string(gatewayv1.HTTPSProtocolType)},
	}
	p.LeaderElection.LeaseName = "sliceway-gateway"
}

// Validate checks the options that can be wrong on their own.
func (p *GatewayProvider) Validate() error {
	if err := p.Provider.Validate(); err != nil {
		return err
	}
	if strings.TrimSpace(p.ControllerName) == "" {
		return errors.New("controllerName: must not be empty")
	}
	if p.DisableClusterScopeResources {
		return errors.New("disableClusterScopeResources: the Gateway provider reads GatewayClasses (which Gateways are its own) and Namespaces (the selectors of listeners' allowedRoutes), which are cluster-scoped")
	}
	if len(p.EntryPoints) == 0 {
		return errors.New("entryPoints: none given, so no listener can be served")
	}
	withAddress := 0
	for _, name := range slices.Sorted(maps.Keys(p.EntryPoints)) {
		ep := p.EntryPoints[name]
		switch {
		case ep == nil || ep.Port < 1 || ep.Port > 65535:
			return fmt.Errorf("entryPoints.%s.port: want a port from 1 to 65535", name)
		case ep.Protocol != string(gatewayv1.HTTPProtocolType) && ep.Protocol != string(gatewayv1.HTTPSProtocolType):
			return fmt.Errorf("entryPoints.%s.protocol: %q: want HTTP or HTTPS", name, ep.Protocol)
		}
		if ep.Address != "" {
			if _, err := netip.ParseAddr(ep.Address); err != nil {
				return fmt.Errorf("entryPoints.%s.address: %q: want an IP address", name, ep.Address)
			}
			withAddress++
		}
	}
	if withAddress > 0 && withAddress < len(p.EntryPoints) {
		return errors.New("entryPoints: an address is set on some entry points and not on others: set it on every one, or on none")
	}
	return nil
}

// Init validates the options and sets the dialect. It does not connect.
func (p *GatewayProvider) Init() error {
	if err := p.Validate(); err != nil {
		return err
	}
	d := &gatewayDialect{controller: gatewayv1.GatewayController(p.ControllerName), target: filter.Portable}
	d.addresses = &gatewayAddresses{pools: p.addressPools(d.controller)}
	if p.PluginMiddlewares {
		d.target = filter.Plugin
	}
	p.dialect = d
	return p.Provider.Init()
}

// addressPools are the options of each address the proxy has, in the
// order of the addresses: its entry points, and itself as the address of
// its Gateways. Entry points without an address make one pool, whose
// addresses are ingressEndpoint's.
func (p *GatewayProvider) addressPools(controller gatewayv1.GatewayController) []*attach.Options {
	byAddress := map[string]*attach.Options{}
	for _, name := range slices.Sorted(maps.Keys(p.EntryPoints)) {
		ep := p.EntryPoints[name]
		opts := byAddress[ep.Address]
		if opts == nil {
			opts = &attach.Options{ControllerName: controller}
			byAddress[ep.Address] = opts
		}
		opts.EntryPoints = append(opts.EntryPoints, attach.EntryPoint{Name: name, Port: ep.Port, Protocol: gatewayv1.ProtocolType(ep.Protocol)})
	}
	ip, host := gatewayv1.IPAddressType, gatewayv1.HostnameAddressType
	pools := make([]*attach.Options, 0, len(byAddress))
	for _, addr := range slices.SortedFunc(maps.Keys(byAddress), compareAddresses) {
		opts := byAddress[addr]
		switch e := p.IngressEndpoint; {
		case addr != "":
			opts.Addresses = []gatewayv1.GatewayStatusAddress{{Type: &ip, Value: netip.MustParseAddr(addr).String()}}
		case e != nil:
			if e.IP != "" {
				opts.Addresses = append(opts.Addresses, gatewayv1.GatewayStatusAddress{Type: &ip, Value: e.IP})
			}
			if e.Hostname != "" {
				opts.Addresses = append(opts.Addresses, gatewayv1.GatewayStatusAddress{Type: &host, Value: e.Hostname})
			}
		}
		pools = append(pools, opts)
	}
	return pools
}

// compareAddresses orders IP addresses by value ("" first).
func compareAddresses(a, b string) int {
	if a == "" || b == "" {
		return strings.Compare(a, b)
	}
	return netip.MustParseAddr(a).Compare(netip.MustParseAddr(b))
}

// Provide is Provider.Provide with the Gateway API dialect: the client
// also watches the Gateway API objects, through the Gateway API clientset
// SetGatewayClientset gave, or one of the provider's connection.
func (p *GatewayProvider) Provide(ctx context.Context, out chan<- dynamic.Message) error {
	if err := p.Init(); err != nil {
		return err
	}
	if p.gatewayClient == nil {
		gw, err := p.NewGatewayClientset()
		if err != nil {
			return fmt.Errorf("connecting to the cluster: %w", err)
		}
		p.gatewayClient = gw
	}
	return p.Provider.Provide(ctx, out)
}

// NewGatewayClientset connects to the cluster the options name, as
// NewClientset does, for the Gateway API objects: in JSON, as custom
// resources have no protobuf form (the API server refuses a write in
// protobuf, which the connection otherwise asks for).
func (p *GatewayProvider) NewGatewayClientset() (gatewayclient.Interface, error) {
	cfg, err := p.RESTConfig()
	if err != nil {
		return nil, err
	}
	cfg = rest.CopyConfig(cfg)
	cfg.ContentType, cfg.AcceptContentTypes = "application/json", "application/json"
	return gatewayclient.NewForConfig(cfg)
}

// SetGatewayClientset makes the provider read the Gateway API objects
// through this clientset instead of connecting (tests, embedders, the
// manifests' in-memory cluster).
func (p *GatewayProvider) SetGatewayClientset(gw gatewayclient.Interface) { p.gatewayClient = gw }

// GatewayClientOptions are opts with the Gateway API clientset the
// provider reads, for a one-shot render (RenderOnce).
func (p *GatewayProvider) GatewayClientOptions(opts ClientOptions) ClientOptions {
	opts.Gateway = p.gatewayClient
	return opts
}

// IsGateway says whether these options are a GatewayProvider's, once its
// Init has run.
func (p *Provider) IsGateway() bool {
	_, ok := p.dialect.(*gatewayDialect)
	return ok
}
