// Package dynamic is sliceway's output schema: the part of Traefik v3's dynamic
// configuration that an Ingress provider fills, with Traefik's JSON, YAML and
// TOML field names, so that Traefik's file and HTTP providers accept it as is.
package dynamic

import (
	"bytes"
	"encoding/json"
	"time"

	ptypes "github.com/traefik/paerser/types"
)

// Message is what a provider sends on its channel: a whole configuration and
// the name of the provider that built it.
type Message struct {
	ProviderName  string
	Configuration *Configuration
	// TLSHostOwners gives, for each host of the configuration's TLS
	// routers, the Ingress that chose the host's TLS option: the oldest
	// with a TLS router for it. When two providers' TLS routers of a host
	// name different options, the merge of their configurations keeps
	// the provider whose owner is older. Nil when the provider does not
	// say (the merge then serves neither's TLS routers of such a host).
	// It is not changed once sent.
	TLSHostOwners map[string]HostOwner
}

// HostOwner is an Ingress that decides for a host, with its creation
// time to compare it with another provider's.
type HostOwner struct {
	Namespace, Name string
	Created         time.Time
}

// Older says whether o comes before other: created earlier, then by
// namespace and name, the order in which the providers rank Ingresses.
func (o HostOwner) Older(other HostOwner) bool {
	if !o.Created.Equal(other.Created) {
		return o.Created.Before(other.Created)
	}
	if o.Namespace != other.Namespace {
		return o.Namespace < other.Namespace
	}
	return o.Name < other.Name
}

// Configuration is the root of a dynamic configuration.
type Configuration struct {
	HTTP *HTTPConfiguration `json:"http,omitempty" toml:"http,omitempty" yaml:"http,omitempty"`
	TCP  *TCPConfiguration  `json:"tcp,omitempty" toml:"tcp,omitempty" yaml:"tcp,omitempty"`
	TLS  *TLSConfiguration  `json:"tls,omitempty" toml:"tls,omitempty" yaml:"tls,omitempty"`
}

// MarshalJSON writes c as Traefik's file and HTTP providers read it: a
// section that holds nothing (http without routers, services, middlewares
// or transports; tcp without routers or services; tls without
// certificates) is left out, so a configuration
// with nothing in it is {}. Those providers refuse an empty section ("http
// cannot be a standalone element"), and Traefik's HTTP provider then keeps
// the routes it had: the Ingresses of a cluster all deleted would still be
// served. MarshalYAML, JSONEncoder and YAMLEncoder write the same.
func (c Configuration) MarshalJSON() ([]byte, error) {
	type fields Configuration // without this method
	f := fields(c)
	if f.HTTP.empty() {
		f.HTTP = nil
	}
	if f.TCP.empty() {
		f.TCP = nil
	}
	if f.TLS.empty() {
		f.TLS = nil
	}
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	// encoding/json escapes the text of a Marshaler as its caller asks.
	enc.SetEscapeHTML(false)
	if err := enc.Encode(f); err != nil {
		return nil, err
	}
	return bytes.TrimSuffix(buf.Bytes(), []byte{'\n'}), nil
}

// HTTPConfiguration holds the HTTP routers, services, middlewares and servers transports.
type HTTPConfiguration struct {
	Routers           map[string]*Router           `json:"routers,omitempty" toml:"routers,omitempty" yaml:"routers,omitempty"`
	Services          map[string]*Service          `json:"services,omitempty" toml:"services,omitempty" yaml:"services,omitempty"`
	Middlewares       map[string]*Middleware       `json:"middlewares,omitempty" toml:"middlewares,omitempty" yaml:"middlewares,omitempty"`
	ServersTransports map[string]*ServersTransport `json:"serversTransports,omitempty" toml:"serversTransports,omitempty" yaml:"serversTransports,omitempty"`
}

// empty says whether h holds nothing to write (nil included).
func (h *HTTPConfiguration) empty() bool {
	return h == nil || len(h.Routers) == 0 && len(h.Services) == 0 && len(h.Middlewares) == 0 && len(h.ServersTransports) == 0
}

// Router matches requests by its rule and sends them to its service.
type Router struct {
	EntryPoints   []string                   `json:"entryPoints,omitempty" toml:"entryPoints,omitempty" yaml:"entryPoints,omitempty"`
	Middlewares   []string                   `json:"middlewares,omitempty" toml:"middlewares,omitempty" yaml:"middlewares,omitempty"`
	Service       string                     `json:"service,omitempty" toml:"service,omitempty" yaml:"service,omitempty"`
	Rule          string                     `json:"rule,omitempty" toml:"rule,omitempty" yaml:"rule,omitempty"`
	Priority      int                        `json:"priority,omitempty" toml:"priority,omitempty,omitzero" yaml:"priority,omitempty"`
	TLS           *RouterTLSConfig           `json:"tls,omitempty" toml:"tls,omitempty" yaml:"tls,omitempty" label:"allowEmpty"`
	Observability *RouterObservabilityConfig `json:"observability,omitempty" toml:"observability,omitempty" yaml:"observability,omitempty"`
	// RuleSyntax is Traefik's (deprecated) per-router rule syntax, v2 or
	// v3; empty: Traefik's default.
	RuleSyntax string `json:"ruleSyntax,omitempty" toml:"ruleSyntax,omitempty" yaml:"ruleSyntax,omitempty"`
}

// RouterTLSConfig makes a router serve TLS.
type RouterTLSConfig struct {
	Options      string   `json:"options,omitempty" toml:"options,omitempty" yaml:"options,omitempty"`
	CertResolver string   `json:"certResolver,omitempty" toml:"certResolver,omitempty" yaml:"certResolver,omitempty"`
	Domains      []Domain `json:"domains,omitempty" toml:"domains,omitempty" yaml:"domains,omitempty"`
}

// Domain is a main domain and its subject alternative names.
type Domain struct {
	Main string   `json:"main,omitempty" toml:"main,omitempty" yaml:"main,omitempty"`
	SANs []string `json:"sans,omitempty" toml:"sans,omitempty" yaml:"sans,omitempty"`
}

// RouterObservabilityConfig carries per-router observability settings; the
// provider fills Metadata so that a consumer can tell where a router came from.
type RouterObservabilityConfig struct {
	// AccessLogs, Metrics and Tracing turn the entry point's access log,
	// metrics and tracing off (false) or on for the router; nil: the
	// entry point's setting. TraceVerbosity is minimal or detailed.
	AccessLogs     *bool                  `json:"accessLogs,omitempty" toml:"accessLogs,omitempty" yaml:"accessLogs,omitempty"`
	Metrics        *bool                  `json:"metrics,omitempty" toml:"metrics,omitempty" yaml:"metrics,omitempty"`
	Tracing        *bool                  `json:"tracing,omitempty" toml:"tracing,omitempty" yaml:"tracing,omitempty"`
	TraceVerbosity string                 `json:"traceVerbosity,omitempty" toml:"traceVerbosity,omitempty" yaml:"traceVerbosity,omitempty"`
	Metadata       *ObservabilityMetadata `json:"metadata,omitempty" toml:"metadata,omitempty" yaml:"metadata,omitempty"`
}

// ObservabilityMetadata names the Kubernetes objects behind a router.
type ObservabilityMetadata struct {
	Ingress *IngressMetadata `json:"ingress,omitempty" toml:"ingress,omitempty" yaml:"ingress,omitempty"`
}

// IngressMetadata names the Ingress and backend a router was built from.
type IngressMetadata struct {
	Namespace   string `json:"namespace,omitempty" toml:"namespace,omitempty" yaml:"namespace,omitempty"`
	IngressName string `json:"ingressName,omitempty" toml:"ingressName,omitempty" yaml:"ingressName,omitempty"`
	ServiceName string `json:"serviceName,omitempty" toml:"serviceName,omitempty" yaml:"serviceName,omitempty"`
	ServicePort string `json:"servicePort,omitempty" toml:"servicePort,omitempty" yaml:"servicePort,omitempty"`
}

// Service is where a router sends requests: a load balancer over servers,
// a weighted choice among other services (canaries), or a service whose
// requests are also copied to others (mirroring).
type Service struct {
	// Middlewares run for every request the service gets, whatever the
	// router (Traefik v3.7's service middlewares).
	Middlewares  []string             `json:"middlewares,omitempty" toml:"middlewares,omitempty" yaml:"middlewares,omitempty"`
	LoadBalancer *ServersLoadBalancer `json:"loadBalancer,omitempty" toml:"loadBalancer,omitempty" yaml:"loadBalancer,omitempty"`
	Weighted     *WeightedRoundRobin  `json:"weighted,omitempty" toml:"weighted,omitempty" yaml:"weighted,omitempty"`
	Mirroring    *Mirroring           `json:"mirroring,omitempty" toml:"mirroring,omitempty" yaml:"mirroring,omitempty"`
}

// Mirroring sends the requests to Service, whose answers the clients get,
// and copies of a share of them to each mirror, whose answers are
// dropped (a Gateway API RequestMirror filter). MirrorBody and
// MaxBodySize nil are Traefik's defaults (the body is copied, whatever
// its size), in every delivery.
type Mirroring struct {
	Service     string          `json:"service,omitempty" toml:"service,omitempty" yaml:"service,omitempty"`
	MirrorBody  *bool           `json:"mirrorBody,omitempty" toml:"mirrorBody,omitempty" yaml:"mirrorBody,omitempty"`
	MaxBodySize *int64          `json:"maxBodySize,omitempty" toml:"maxBodySize,omitempty" yaml:"maxBodySize,omitempty"`
	Mirrors     []MirrorService `json:"mirrors,omitempty" toml:"mirrors,omitempty" yaml:"mirrors,omitempty"`
}

// MirrorService is a mirror of a Mirroring service: the service the
// copies go to, and the percentage of requests copied.
type MirrorService struct {
	Name    string `json:"name,omitempty" toml:"name,omitempty" yaml:"name,omitempty"`
	Percent int    `json:"percent,omitempty" toml:"percent,omitempty" yaml:"percent,omitempty"`
}

// WeightedRoundRobin shares requests among services by weight.
type WeightedRoundRobin struct {
	Services []WRRService `json:"services,omitempty" toml:"services,omitempty" yaml:"services,omitempty"`
	Sticky   *Sticky      `json:"sticky,omitempty" toml:"sticky,omitempty" yaml:"sticky,omitempty" label:"allowEmpty"`
}

// WRRService is a service of a weighted service and its weight.
type WRRService struct {
	Name   string `json:"name,omitempty" toml:"name,omitempty" yaml:"name,omitempty"`
	Weight *int   `json:"weight,omitempty" toml:"weight,omitempty" yaml:"weight,omitempty"`
}

// Balancing strategies.
const (
	// BalancerStrategyWRR is weighted round robin, Traefik's default.
	BalancerStrategyWRR = "wrr"
)

// DefaultFlushInterval is Traefik's default response flush interval.
const DefaultFlushInterval = ptypes.Duration(100_000_000) // 100ms

// ServersLoadBalancer balances requests over a set of servers.
type ServersLoadBalancer struct {
	Sticky             *Sticky             `json:"sticky,omitempty" toml:"sticky,omitempty" yaml:"sticky,omitempty" label:"allowEmpty"`
	Servers            []Server            `json:"servers,omitempty" toml:"servers,omitempty" yaml:"servers,omitempty"`
	Strategy           string              `json:"strategy,omitempty" toml:"strategy,omitempty" yaml:"strategy,omitempty"`
	PassHostHeader     *bool               `json:"passHostHeader" toml:"passHostHeader" yaml:"passHostHeader"`
	ResponseForwarding *ResponseForwarding `json:"responseForwarding,omitempty" toml:"responseForwarding,omitempty" yaml:"responseForwarding,omitempty"`
	ServersTransport   string              `json:"serversTransport,omitempty" toml:"serversTransport,omitempty" yaml:"serversTransport,omitempty"`
}

// NewServersLoadBalancer returns a load balancer with Traefik's defaults:
// strategy wrr, passHostHeader true, flushInterval 100ms.
func NewServersLoadBalancer() *ServersLoadBalancer { return new(balancer).init() }

// NewServersService returns a service of a load balancer as
// NewServersLoadBalancer makes it, in one allocation.
func NewServersService() *Service {
	a := &struct {
		svc Service
		b   balancer
	}{}
	a.svc.LoadBalancer = a.b.init()
	return &a.svc
}

// balancer is a load balancer with the values it points to, allocated at
// once.
type balancer struct {
	lb             ServersLoadBalancer
	passHostHeader bool
	forwarding     ResponseForwarding
}

func (a *balancer) init() *ServersLoadBalancer {
	a.passHostHeader = true
	a.forwarding = ResponseForwarding{FlushInterval: DefaultFlushInterval}
	a.lb = ServersLoadBalancer{
		Strategy:           BalancerStrategyWRR,
		PassHostHeader:     &a.passHostHeader,
		ResponseForwarding: &a.forwarding,
	}
	return &a.lb
}

// ResponseForwarding tunes how responses are streamed back to clients.
type ResponseForwarding struct {
	FlushInterval ptypes.Duration `json:"flushInterval,omitempty" toml:"flushInterval,omitempty" yaml:"flushInterval,omitempty"`
}

// Server is one upstream URL.
type Server struct {
	URL          string `json:"url,omitempty" toml:"url,omitempty" yaml:"url,omitempty"`
	Weight       *int   `json:"weight,omitempty" toml:"weight,omitempty" yaml:"weight,omitempty"`
	PreservePath bool   `json:"preservePath,omitempty" toml:"preservePath,omitempty" yaml:"preservePath,omitempty"`
	// Fenced servers are serving but terminating: they keep receiving the
	// requests of existing sticky sessions and never a new one.
	Fenced bool `json:"fenced,omitempty" toml:"fenced,omitempty" yaml:"fenced,omitempty"`
}

// Sticky enables session affinity.
type Sticky struct {
	Cookie *Cookie `json:"cookie,omitempty" toml:"cookie,omitempty" yaml:"cookie,omitempty" label:"allowEmpty"`
}

// Cookie is the session affinity cookie.
type Cookie struct {
	Name     string  `json:"name,omitempty" toml:"name,omitempty" yaml:"name,omitempty"`
	Secure   bool    `json:"secure,omitempty" toml:"secure,omitempty" yaml:"secure,omitempty"`
	HTTPOnly bool    `json:"httpOnly,omitempty" toml:"httpOnly,omitempty" yaml:"httpOnly,omitempty"`
	SameSite string  `json:"sameSite,omitempty" toml:"sameSite,omitempty" yaml:"sameSite,omitempty"`
	MaxAge   int     `json:"maxAge,omitempty" toml:"maxAge,omitempty" yaml:"maxAge,omitempty"`
	Path     *string `json:"path,omitempty" toml:"path,omitempty" yaml:"path,omitempty"`
	Domain   string  `json:"domain,omitempty" toml:"domain,omitempty" yaml:"domain,omitempty"`
}

// SetDefaults sets Traefik's default cookie path, "/". The label parser calls
// it when an annotation creates the cookie.
func (c *Cookie) SetDefaults() {
	path := "/"
	c.Path = &path
}

// Middleware is a middleware definition. An Ingress refers to middlewares by
// name and never defines one, so the content is kept as opaque values.
type Middleware map[string]any

// ServersTransport configures the connections to the servers of a service.
type ServersTransport struct {
	ServerName          string   `json:"serverName,omitempty" toml:"serverName,omitempty" yaml:"serverName,omitempty"`
	InsecureSkipVerify  bool     `json:"insecureSkipVerify,omitempty" toml:"insecureSkipVerify,omitempty" yaml:"insecureSkipVerify,omitempty"`
	RootCAs             []string `json:"rootCAs,omitempty" toml:"rootCAs,omitempty" yaml:"rootCAs,omitempty"`
	MaxIdleConnsPerHost int      `json:"maxIdleConnsPerHost,omitempty" toml:"maxIdleConnsPerHost,omitempty" yaml:"maxIdleConnsPerHost,omitempty"`
	DisableHTTP2        bool     `json:"disableHTTP2,omitempty" toml:"disableHTTP2,omitempty" yaml:"disableHTTP2,omitempty"`
	PeerCertURI         string   `json:"peerCertURI,omitempty" toml:"peerCertURI,omitempty" yaml:"peerCertURI,omitempty"`
	// Certificates are the client certificates given to the servers.
	Certificates       []Certificate       `json:"certificates,omitempty" toml:"certificates,omitempty" yaml:"certificates,omitempty"`
	ForwardingTimeouts *ForwardingTimeouts `json:"forwardingTimeouts,omitempty" toml:"forwardingTimeouts,omitempty" yaml:"forwardingTimeouts,omitempty"`
}

// ForwardingTimeouts bound the connections to the servers.
type ForwardingTimeouts struct {
	DialTimeout           ptypes.Duration `json:"dialTimeout,omitempty" toml:"dialTimeout,omitempty" yaml:"dialTimeout,omitempty"`
	ResponseHeaderTimeout ptypes.Duration `json:"responseHeaderTimeout,omitempty" toml:"responseHeaderTimeout,omitempty" yaml:"responseHeaderTimeout,omitempty"`
	IdleConnTimeout       ptypes.Duration `json:"idleConnTimeout,omitempty" toml:"idleConnTimeout,omitempty" yaml:"idleConnTimeout,omitempty"`
}

// TLSConfiguration holds the certificates and the TLS options routers
// name in tls.options.
type TLSConfiguration struct {
	Certificates []*CertAndStores       `json:"certificates,omitempty" toml:"certificates,omitempty" yaml:"certificates,omitempty"`
	Options      map[string]*TLSOptions `json:"options,omitempty" toml:"options,omitempty" yaml:"options,omitempty"`
}

// empty says whether t holds nothing to write (nil included).
func (t *TLSConfiguration) empty() bool {
	return t == nil || len(t.Certificates) == 0 && len(t.Options) == 0
}

// TLSOptions are the options of TLS connections whose SNI host is that of
// a router naming them; only what a provider here sets.
type TLSOptions struct {
	ClientAuth *ClientAuth `json:"clientAuth,omitempty" toml:"clientAuth,omitempty" yaml:"clientAuth,omitempty"`
}

// ClientAuth is how TLS clients are asked for a certificate, and the CAs
// that must have signed it.
type ClientAuth struct {
	// CAFiles are PEM contents (or paths, which sliceway never writes).
	CAFiles []string `json:"caFiles,omitempty" toml:"caFiles,omitempty" yaml:"caFiles,omitempty"`
	// ClientAuthType is one of Go's tls.ClientAuthType names:
	// NoClientCert, RequestClientCert, RequireAnyClientCert,
	// VerifyClientCertIfGiven, RequireAndVerifyClientCert.
	ClientAuthType string `json:"clientAuthType,omitempty" toml:"clientAuthType,omitempty" yaml:"clientAuthType,omitempty"`
}

// CertAndStores is a certificate and the TLS stores it belongs to.
type CertAndStores struct {
	Certificate `yaml:",inline"`
	Stores      []string `json:"stores,omitempty" toml:"stores,omitempty" yaml:"stores,omitempty"`
}

// Certificate is a PEM certificate chain and its key. Traefik reads each field
// as a file path or as the PEM content itself; sliceway always puts the content.
type Certificate struct {
	CertFile string `json:"certFile,omitempty" toml:"certFile,omitempty" yaml:"certFile,omitempty"`
	KeyFile  string `json:"keyFile,omitempty" toml:"keyFile,omitempty" yaml:"keyFile,omitempty" loggable:"false"`
}
