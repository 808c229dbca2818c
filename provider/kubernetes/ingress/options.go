package ingress

import (
	"errors"
	"fmt"
	"math"
	"net"
	"strings"
	"time"

	gatewayclient "sigs.k8s.io/gateway-api/pkg/client/clientset/versioned"

	"github.com/rs/zerolog"
	ptypes "github.com/traefik/paerser/types"
	"k8s.io/apimachinery/pkg/labels"
	"k8s.io/client-go/kubernetes"

	"github.com/sliceway/sliceway/provider/kubernetes/endpoints"
	"github.com/sliceway/sliceway/provider/kubernetes/internal/translate"
)

// Provider is the Kubernetes Ingress provider. Its exported fields are the
// options, named as Traefik names them, and load from flags, environment
// variables and files through paerser.
type Provider struct {
	Endpoint                  string           `description:"Kubernetes server endpoint (required for an external cluster client)." json:"endpoint,omitempty" toml:"endpoint,omitempty" yaml:"endpoint,omitempty"`
	Token                     string           `description:"Kubernetes bearer token (not needed for the in-cluster client)." json:"token,omitempty" toml:"token,omitempty" yaml:"token,omitempty" loggable:"false"`
	TokenFile                 string           `description:"File holding the Kubernetes bearer token, read again when it rotates (instead of token)." json:"tokenFile,omitempty" toml:"tokenFile,omitempty" yaml:"tokenFile,omitempty"`
	CertAuthFilePath          string           `description:"Kubernetes certificate authority file path (not needed for the in-cluster client)." json:"certAuthFilePath,omitempty" toml:"certAuthFilePath,omitempty" yaml:"certAuthFilePath,omitempty"`
	Namespaces                []string         `description:"Kubernetes namespaces to watch (all when empty)." json:"namespaces,omitempty" toml:"namespaces,omitempty" yaml:"namespaces,omitempty" export:"true"`
	LabelSelector             string           `description:"Kubernetes label selector the Ingresses must match." json:"labelSelector,omitempty" toml:"labelSelector,omitempty" yaml:"labelSelector,omitempty" export:"true"`
	IngressClass              string           `description:"Value of the kubernetes.io/ingress.class annotation or IngressClass name to watch for." json:"ingressClass,omitempty" toml:"ingressClass,omitempty" yaml:"ingressClass,omitempty" export:"true"`
	IngressEndpoint           *EndpointIngress `description:"Where the Ingresses' status.loadBalancer is taken from." json:"ingressEndpoint,omitempty" toml:"ingressEndpoint,omitempty" yaml:"ingressEndpoint,omitempty" export:"true"`
	ThrottleDuration          ptypes.Duration  `description:"Minimum time between two configurations." json:"throttleDuration,omitempty" toml:"throttleDuration,omitempty" yaml:"throttleDuration,omitempty" export:"true"`
	AllowEmptyServices        bool             `description:"Keep services that have no servers (and their routers)." json:"allowEmptyServices,omitempty" toml:"allowEmptyServices,omitempty" yaml:"allowEmptyServices,omitempty" export:"true"`
	AllowExternalNameServices bool             `description:"Allow ExternalName services as backends." json:"allowExternalNameServices,omitempty" toml:"allowExternalNameServices,omitempty" yaml:"allowExternalNameServices,omitempty" export:"true"`
	NativeLBByDefault         bool             `description:"Send traffic to the Services' cluster IPs instead of their endpoints, unless a Service says otherwise." json:"nativeLBByDefault,omitempty" toml:"nativeLBByDefault,omitempty" yaml:"nativeLBByDefault,omitempty" export:"true"`
	StrictPrefixMatching      bool             `description:"Match Prefix paths element by element, as the Ingress specification says (/foo matches /foo and /foo/bar, not /foobar)." json:"strictPrefixMatching,omitempty" toml:"strictPrefixMatching,omitempty" yaml:"strictPrefixMatching,omitempty" export:"true"`
	RouterPriority            string           `description:"How routers without a router.priority annotation are ranked: spec (as the Ingress specification matches requests: the most specific host, then the longest path, then Exact before Prefix before ImplementationSpecific) or ruleLength (Traefik's default: the longer rule first, so that an Exact path can lose to a Prefix one)." json:"routerPriority,omitempty" toml:"routerPriority,omitempty" yaml:"routerPriority,omitempty" export:"true"`
	ClientQPS                 float64          `description:"Requests per second to the API server, on average (the status writes of many Ingresses go at this pace); 0: client-go's 5 for each API group; negative: no client-side limit, leaving it to the server's priority and fairness." json:"clientQPS,omitempty" toml:"clientQPS,omitempty" yaml:"clientQPS,omitempty" export:"true"`
	ClientBurst               int              `description:"Requests to the API server allowed at once above clientQPS; 0: client-go's 10." json:"clientBurst,omitempty" toml:"clientBurst,omitempty" yaml:"clientBurst,omitempty" export:"true"`
	ClientCompression         string           `description:"Whether the API server's responses are gzip-compressed: auto (off in a cluster, where compressing costs the API server and the provider more than the network saves; else what the kubeconfig's disable-compression says, or on), on or off." json:"clientCompression,omitempty" toml:"clientCompression,omitempty" yaml:"clientCompression,omitempty" export:"true"`
	SyncTimeout               ptypes.Duration  `description:"How long to wait for the informer caches before reporting what does not sync (waiting goes on)." json:"syncTimeout,omitempty" toml:"syncTimeout,omitempty" yaml:"syncTimeout,omitempty" export:"true"`
	LeaderElection            *LeaderElection  `description:"Leader election among replicas, so that only one writes Ingress status (on when ingressEndpoint is set)." json:"leaderElection,omitempty" toml:"leaderElection,omitempty" yaml:"leaderElection,omitempty" export:"true"`
	TerminatingEndpoints      string           `description:"Serving-but-terminating endpoints: fallback (fenced while a ready endpoint exists, used when none is), fence (always fenced) or exclude (never used)." json:"terminatingEndpoints,omitempty" toml:"terminatingEndpoints,omitempty" yaml:"terminatingEndpoints,omitempty" export:"true"`

	AllowFQDNEndpoints     bool      `description:"Use EndpointSlices of address type FQDN (off: a hand-made FQDN slice could point the proxy anywhere)." json:"allowFQDNEndpoints,omitempty" toml:"allowFQDNEndpoints,omitempty" yaml:"allowFQDNEndpoints,omitempty" export:"true"`
	AllowLoopbackEndpoints bool      `description:"Allow loopback addresses as servers (local demos and tests whose backends listen on 127.0.0.1)." json:"allowLoopbackEndpoints,omitempty" toml:"allowLoopbackEndpoints,omitempty" yaml:"allowLoopbackEndpoints,omitempty" export:"true"`
	EndpointSliceManagers  []string  `description:"Use only EndpointSlices whose endpointslice.kubernetes.io/managed-by label is one of these (empty: all), e.g. endpointslice-controller.k8s.io,endpointslicemirroring-controller.k8s.io." json:"endpointSliceManagers,omitempty" toml:"endpointSliceManagers,omitempty" yaml:"endpointSliceManagers,omitempty" export:"true"`
	IPFamily               string    `description:"Address family of the servers: primary (the Service's first ipFamilies entry), ipv4, ipv6 or all." json:"ipFamily,omitempty" toml:"ipFamily,omitempty" yaml:"ipFamily,omitempty" export:"true"`
	Topology               *Topology `description:"Where this proxy runs, for topology-aware routing by the EndpointSlices' hints." json:"topology,omitempty" toml:"topology,omitempty" yaml:"topology,omitempty" export:"true"`

	CrossProviderNamespaces []string `description:"Namespaces whose Ingresses and Services may use the router.middlewares, router.tls.options and service.serversTransport annotations, which name other providers' objects. Not given: every namespace may; given empty (this flag with an empty value, [] in a file): none may. Names of the ingress-nginx provider's objects (nginx_...) are refused whatever this says." json:"crossProviderNamespaces,omitempty" toml:"crossProviderNamespaces,omitempty" yaml:"crossProviderNamespaces,omitempty" export:"true"`

	// Traefik's names. Both keep the provider from reading anything
	// cluster-scoped that they name, so that namespaced RBAC is enough.
	DisableIngressClassLookup    bool `description:"Do not read IngressClasses (Traefik's deprecated option; disableClusterScopeResources does it too): an Ingress that names a spec.ingressClassName is then never served, and the kubernetes.io/ingress.class annotation (or no class) selects Ingresses." json:"disableIngressClassLookup,omitempty" toml:"disableIngressClassLookup,omitempty" yaml:"disableIngressClassLookup,omitempty" export:"true"`
	DisableClusterScopeResources bool `description:"Read nothing cluster-scoped, so that RBAC in the watched namespaces is enough: no IngressClasses (as disableIngressClassLookup) and no Nodes (service.nodeportlb is refused, and topology.node without topology.zone uses no zone hints)." json:"disableClusterScopeResources,omitempty" toml:"disableClusterScopeResources,omitempty" yaml:"disableClusterScopeResources,omitempty" export:"true"`

	DefaultRuleSyntax string `description:"The rule syntax of the Traefik that reads the configuration (its core.defaultRuleSyntax): v3, Traefik's default, or v2. sliceway writes its rules in v3's syntax; with v2, every router names it (ruleSyntax: default), so that such a Traefik reads them as written." json:"defaultRuleSyntax,omitempty" toml:"defaultRuleSyntax,omitempty" yaml:"defaultRuleSyntax,omitempty" export:"true"`

	MaxIngressOutput int64 `description:"Most bytes one Ingress's routers may add to the configuration (as compact JSON: estimated before they are built and, with ingress-nginx annotations, counted as they are built); an Ingress over it is skipped with an error. 0: the default, 8 MiB." json:"maxIngressOutput,omitempty" toml:"maxIngressOutput,omitempty" yaml:"maxIngressOutput,omitempty" export:"true"`

	// Set by the embedding program, never loaded from a configuration.
	clientset kubernetes.Interface
	// gatewayClient is the Gateway API clientset of the Gateway provider
	// (GatewayProvider.SetGatewayClientset); nil for the others.
	gatewayClient gatewayclient.Interface
	logger        zerolog.Logger
	hasLogger     bool
	observer      Observer
	nodeName      string  // NODE_NAME, read by Init when topology.node is not set
	dialect       dialect // nil: the Traefik-style translation
}

// EndpointIngress says what the provider writes into the status of the
// Ingresses it serves.
type EndpointIngress struct {
	IP               string `description:"IP written in the Ingresses' status." json:"ip,omitempty" toml:"ip,omitempty" yaml:"ip,omitempty"`
	Hostname         string `description:"Hostname written in the Ingresses' status." json:"hostname,omitempty" toml:"hostname,omitempty" yaml:"hostname,omitempty"`
	PublishedService string `description:"Service (namespace/name) whose load-balancer status is copied into the Ingresses' status." json:"publishedService,omitempty" toml:"publishedService,omitempty" yaml:"publishedService,omitempty"`
}

// Topology says where the proxy runs.
type Topology struct {
	Zone string `description:"Zone of this proxy (default: the topology.kubernetes.io/zone label of its Node)." json:"zone,omitempty" toml:"zone,omitempty" yaml:"zone,omitempty"`
	Node string `description:"Node of this proxy (default: the NODE_NAME environment variable)." json:"node,omitempty" toml:"node,omitempty" yaml:"node,omitempty"`
}

// IP family choices.
const (
	IPFamilyPrimary = translate.IPFamilyPrimary
	IPFamilyIPv4    = translate.IPFamilyIPv4
	IPFamilyIPv6    = translate.IPFamilyIPv6
	IPFamilyAll     = translate.IPFamilyAll
)

// LeaderElection configures the Lease that elects the status writer.
type LeaderElection struct {
	Disabled       bool            `description:"Write status from every replica, without electing a leader." json:"disabled,omitempty" toml:"disabled,omitempty" yaml:"disabled,omitempty"`
	LeaseName      string          `description:"Name of the coordination.k8s.io Lease." json:"leaseName,omitempty" toml:"leaseName,omitempty" yaml:"leaseName,omitempty"`
	LeaseNamespace string          `description:"Namespace of the Lease (default: the POD_NAMESPACE environment variable, else the in-cluster namespace, else default)." json:"leaseNamespace,omitempty" toml:"leaseNamespace,omitempty" yaml:"leaseNamespace,omitempty"`
	LeaseDuration  ptypes.Duration `description:"How long a lease lasts without renewal." json:"leaseDuration,omitempty" toml:"leaseDuration,omitempty" yaml:"leaseDuration,omitempty"`
	RenewDeadline  ptypes.Duration `description:"How long the leader tries to renew before giving up." json:"renewDeadline,omitempty" toml:"renewDeadline,omitempty" yaml:"renewDeadline,omitempty"`
	RetryPeriod    ptypes.Duration `description:"How often candidates try to take the lease." json:"retryPeriod,omitempty" toml:"retryPeriod,omitempty" yaml:"retryPeriod,omitempty"`
}

// SetDefaults sets the default leader election values.
func (l *LeaderElection) SetDefaults() {
	l.LeaseName = "sliceway"
	l.LeaseDuration = ptypes.Duration(15 * time.Second)
	l.RenewDeadline = ptypes.Duration(10 * time.Second)
	l.RetryPeriod = ptypes.Duration(2 * time.Second)
}

// The values of routerPriority. Empty is spec, the default.
const (
	RouterPrioritySpec       = "spec"
	RouterPriorityRuleLength = "ruleLength"
)

// specPriorities says whether routers get the priorities of the Ingress
// specification's order (routerPriority spec, the default).
func (p *Provider) specPriorities() bool {
	return !strings.EqualFold(p.RouterPriority, RouterPriorityRuleLength)
}

// The values of clientCompression.
const (
	CompressionAuto = "auto"
	CompressionOn   = "on"
	CompressionOff  = "off"
)

// SetDefaults sets the default option values.
func (p *Provider) SetDefaults() {
	// kube-controller-manager's defaults: client-go's own (5 and 10) take
	// half an hour to write the status of 10,000 Ingresses.
	p.ClientQPS = 20
	p.ClientBurst = 30
	p.ClientCompression = CompressionAuto
	p.TerminatingEndpoints = string(endpoints.TerminatingFallback)
	p.RouterPriority = RouterPrioritySpec
	p.IPFamily = IPFamilyPrimary
	p.SyncTimeout = ptypes.Duration(60 * time.Second)
	p.LeaderElection = &LeaderElection{}
	p.LeaderElection.SetDefaults()
	p.MaxIngressOutput = DefaultMaxIngressOutput
}

// Validate checks the options that can be wrong on their own.
func (p *Provider) Validate() error {
	if _, err := endpoints.ParseTerminatingPolicy(p.TerminatingEndpoints); err != nil {
		return fmt.Errorf("terminatingEndpoints: %w", err)
	}
	switch strings.ToLower(p.RouterPriority) {
	case "", RouterPrioritySpec, strings.ToLower(RouterPriorityRuleLength):
	default:
		return fmt.Errorf("routerPriority %q: must be spec or ruleLength", p.RouterPriority)
	}
	if _, err := labels.Parse(p.LabelSelector); err != nil {
		return fmt.Errorf("labelSelector %q: %w", p.LabelSelector, err)
	}
	switch strings.ToLower(p.IPFamily) {
	case "", IPFamilyPrimary, IPFamilyIPv4, IPFamilyIPv6, IPFamilyAll:
	default:
		return fmt.Errorf("ipFamily %q: must be primary, ipv4, ipv6 or all", p.IPFamily)
	}
	for _, m := range p.EndpointSliceManagers {
		if strings.TrimSpace(m) == "" {
			return errors.New("endpointSliceManagers: empty entry")
		}
	}
	for _, ns := range p.CrossProviderNamespaces {
		// An empty entry would name no namespace, and one list of "" would
		// read as "none" where its writer may have meant something else.
		if strings.TrimSpace(ns) == "" {
			return errors.New("crossProviderNamespaces: empty entry (an empty list, [], allows no namespace)")
		}
	}
	if p.ThrottleDuration < 0 {
		return fmt.Errorf("throttleDuration %s: must not be negative", p.ThrottleDuration)
	}
	if math.IsNaN(p.ClientQPS) || math.IsInf(p.ClientQPS, 0) {
		return fmt.Errorf("clientQPS %v: must be a number", p.ClientQPS)
	}
	if p.ClientBurst < 0 {
		return fmt.Errorf("clientBurst %d: must not be negative", p.ClientBurst)
	}
	switch strings.ToLower(p.ClientCompression) {
	case "", CompressionAuto, CompressionOn, CompressionOff:
	default:
		return fmt.Errorf("clientCompression %q: must be auto, on or off", p.ClientCompression)
	}
	if p.MaxIngressOutput < 0 {
		return fmt.Errorf("maxIngressOutput %d: must not be negative (0 is the default, %d bytes)", p.MaxIngressOutput, DefaultMaxIngressOutput)
	}
	if p.DefaultRuleSyntax != "" && p.DefaultRuleSyntax != "v2" && p.DefaultRuleSyntax != "v3" {
		return fmt.Errorf("defaultRuleSyntax %q: must be v2 or v3", p.DefaultRuleSyntax)
	}
	if p.SyncTimeout <= 0 {
		return fmt.Errorf("syncTimeout %s: must be positive", p.SyncTimeout)
	}
	if e := p.IngressEndpoint; e != nil {
		if e.IP == "" && e.Hostname == "" && e.PublishedService == "" {
			return errors.New("ingressEndpoint: one of ip, hostname or publishedService is required")
		}
		if e.IP != "" && net.ParseIP(e.IP) == nil {
			return fmt.Errorf("ingressEndpoint.ip %q: not an IP address", e.IP)
		}
		if e.PublishedService != "" {
			if err := checkObjectRef(e.PublishedService); err != nil {
				return fmt.Errorf("ingressEndpoint.publishedService: %w", err)
			}
		}
	}
	if l := p.LeaderElection; l != nil && !l.Disabled {
		if l.LeaseName == "" {
			return errors.New("leaderElection.leaseName: must not be empty")
		}
		if l.LeaseDuration <= l.RenewDeadline || l.RenewDeadline <= l.RetryPeriod || l.RetryPeriod <= 0 {
			return errors.New("leaderElection: leaseDuration must exceed renewDeadline, which must exceed retryPeriod (> 0)")
		}
	}
	return nil
}

// checkObjectRef checks a reference to a namespaced object, namespace/name.
func checkObjectRef(ref string) error {
	if ns, name, ok := strings.Cut(ref, "/"); !ok || ns == "" || name == "" || strings.Contains(name, "/") {
		return fmt.Errorf("%q: must be namespace/name", ref)
	}
	return nil
}

// readsClasses says whether the provider reads IngressClasses.
func (p *Provider) readsClasses() bool {
	return !p.DisableIngressClassLookup && !p.DisableClusterScopeResources && p.readsIngresses()
}

// readsIngresses says whether the provider reads Ingresses: the Gateway
// provider serves none, so its client keeps none in memory.
func (p *Provider) readsIngresses() bool { return !p.IsGateway() }
