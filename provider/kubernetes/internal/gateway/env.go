package gateway

import (
	"github.com/sliceway/sliceway/config/dynamic"
	"github.com/sliceway/sliceway/provider/kubernetes/internal/gateway/attach"
	"github.com/sliceway/sliceway/provider/kubernetes/internal/gateway/filter"
	"github.com/sliceway/sliceway/provider/kubernetes/internal/translate"
)

// Env is what translating one route reads besides the route, its
// attachment and its backend check.
type Env struct {
	// LoadBalancer is the load balancer of a Service port, named name in
	// the configuration, built by the render's one builder, which learns
	// from the calls which Service ports the route uses (so that a change
	// of one of them renders the route again).
	LoadBalancer func(key translate.PortKey, name string) *translate.LoadBalancer
	// Gateway is the processed Gateway namespace/name
	// (attach.ProcessGateway), nil when it is not one of ours.
	Gateway func(namespace, name string) *attach.Gateway
	// Target says which Traefik middlewares filters may become:
	// filter.Portable unless Traefik reads the configuration through the
	// provider plugin.
	Target filter.Target
	// BackendTLS is the BackendTLSPolicy of a Service port (its name, ""
	// when it has none), nil when none takes it or when the render reads
	// no policy.
	BackendTLS func(namespace, service, port string) *attach.BackendTLS
	// ClientCertificate is the key pair of a Gateway's
	// spec.tls.backend.clientCertificateRef, which ProcessGateway checked.
	ClientCertificate func(ref attach.SecretRef) (dynamic.Certificate, error)
}

// backendTLS is the policy of backend b, nil when none.
func (e *Env) backendTLS(b attach.Backend) *attach.BackendTLS {
	if e.BackendTLS == nil {
		return nil
	}
	return e.BackendTLS(b.Namespace, b.Name, b.PortName)
}
