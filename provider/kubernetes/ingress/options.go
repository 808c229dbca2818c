package ingress

import (
	"fmt"

	ptypes "github.com/traefik/paerser/types"
	"k8s.io/apimachinery/pkg/labels"

	"github.com/sliceway/sliceway/provider/kubernetes/endpoints"
)

// Provider is the Kubernetes Ingress provider. Its exported fields are the
// options, named as Traefik names them, and load from flags, environment
// variables and files through paerser.
type Provider struct {
	Endpoint                  string           `description:"Kubernetes server endpoint (required for an external cluster client)." json:"endpoint,omitempty" toml:"endpoint,omitempty" yaml:"endpoint,omitempty"`
	Token                     string           `description:"Kubernetes bearer token (not needed for the in-cluster client)." json:"token,omitempty" toml:"token,omitempty" yaml:"token,omitempty" loggable:"false"`
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
	TerminatingEndpoints      string           `description:"Serving-but-terminating endpoints: fallback (fenced while a ready endpoint exists, used when none is), fence (always fenced) or exclude (never used)." json:"terminatingEndpoints,omitempty" toml:"terminatingEndpoints,omitempty" yaml:"terminatingEndpoints,omitempty" export:"true"`
}

// EndpointIngress says what the provider writes into the status of the
// Ingresses it serves.
type EndpointIngress struct {
	IP               string `description:"IP written in the Ingresses' status." json:"ip,omitempty" toml:"ip,omitempty" yaml:"ip,omitempty"`
	Hostname         string `description:"Hostname written in the Ingresses' status." json:"hostname,omitempty" toml:"hostname,omitempty" yaml:"hostname,omitempty"`
	PublishedService string `description:"Service (namespace/name) whose load-balancer status is copied into the Ingresses' status." json:"publishedService,omitempty" toml:"publishedService,omitempty" yaml:"publishedService,omitempty"`
}

// SetDefaults sets the default option values.
func (p *Provider) SetDefaults() {
	p.TerminatingEndpoints = string(endpoints.TerminatingFallback)
}

// Validate checks the options that can be wrong on their own.
func (p *Provider) Validate() error {
	if _, err := endpoints.ParseTerminatingPolicy(p.TerminatingEndpoints); err != nil {
		return fmt.Errorf("terminatingEndpoints: %w", err)
	}
	if _, err := labels.Parse(p.LabelSelector); err != nil {
		return fmt.Errorf("labelSelector %q: %w", p.LabelSelector, err)
	}
	return nil
}
