package dynamic

// TCPConfiguration holds TCP routers and services: here, the routers that
// pass TLS connections through to a backend by their SNI host
// (ingress-nginx's ssl-passthrough).
type TCPConfiguration struct {
	Routers  map[string]*TCPRouter  `json:"routers,omitempty" toml:"routers,omitempty" yaml:"routers,omitempty"`
	Services map[string]*TCPService `json:"services,omitempty" toml:"services,omitempty" yaml:"services,omitempty"`
}

// empty says whether t holds nothing to write (nil included).
func (t *TCPConfiguration) empty() bool {
	return t == nil || len(t.Routers) == 0 && len(t.Services) == 0
}

// TCPRouter matches connections by its rule (HostSNI) and sends them to
// its service.
type TCPRouter struct {
	EntryPoints []string            `json:"entryPoints,omitempty" toml:"entryPoints,omitempty" yaml:"entryPoints,omitempty"`
	Service     string              `json:"service,omitempty" toml:"service,omitempty" yaml:"service,omitempty"`
	Rule        string              `json:"rule,omitempty" toml:"rule,omitempty" yaml:"rule,omitempty"`
	Priority    int                 `json:"priority,omitempty" toml:"priority,omitempty,omitzero" yaml:"priority,omitempty"`
	TLS         *RouterTCPTLSConfig `json:"tls,omitempty" toml:"tls,omitempty" yaml:"tls,omitempty" label:"allowEmpty"`
}

// RouterTCPTLSConfig is the TLS of a TCP router; Passthrough hands the
// connection on without ending its TLS.
type RouterTCPTLSConfig struct {
	Passthrough bool `json:"passthrough,omitempty" toml:"passthrough,omitempty" yaml:"passthrough,omitempty"`
}

// TCPService is a TCP load balancer.
type TCPService struct {
	LoadBalancer *TCPServersLoadBalancer `json:"loadBalancer,omitempty" toml:"loadBalancer,omitempty" yaml:"loadBalancer,omitempty"`
}

// TCPServersLoadBalancer spreads connections over its servers.
type TCPServersLoadBalancer struct {
	Servers []TCPServer `json:"servers,omitempty" toml:"servers,omitempty" yaml:"servers,omitempty"`
}

// TCPServer is a server of a TCP load balancer: host:port.
type TCPServer struct {
	Address string `json:"address,omitempty" toml:"address,omitempty" yaml:"address,omitempty"`
}
