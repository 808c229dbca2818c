package ingress

import (
	"cmp"
	"fmt"
	"slices"
	"strings"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/labels"
	"k8s.io/client-go/informers"
	"k8s.io/client-go/kubernetes"
	gatewayv1 "sigs.k8s.io/gateway-api/apis/v1"

	"github.com/sliceway/sliceway/config/dynamic"
	"github.com/sliceway/sliceway/provider/kubernetes/internal/gateway/attach"
)

// BackendTLSSnapshot is what a GatewaySnapshot holds of BackendTLSPolicies
// when the client watches the Gateway API: the policies, and the CA
// certificates of the ConfigMaps they name. An optional interface beside
// GatewaySnapshot: a snapshot without it has no policy.
type BackendTLSSnapshot interface {
	// BackendTLSPolicies returns the BackendTLSPolicies of the watched
	// namespaces.
	BackendTLSPolicies() []*gatewayv1.BackendTLSPolicy
	// CAConfigMap returns the ConfigMap namespace/name as the Gateway
	// front end keeps it (its ca.crt alone), nil when there is none.
	CAConfigMap(namespace, name string) *corev1.ConfigMap
}

var _ BackendTLSSnapshot = gatewayListerSnapshot{}

// caCertificateKey is the ConfigMap key of a BackendTLSPolicy's CA
// certificates.
const caCertificateKey = "ca.crt"

// watchCAConfigMaps sets up the informer of the ConfigMaps of namespace
// ns, which BackendTLSPolicies name for their CA certificates. A
// ConfigMap is kept as its name and ca.crt alone: the others' data, as
// large as it may be, never stays in the cache, and only a change of
// ca.crt counts.
func (c *Client) watchCAConfigMaps(cs kubernetes.Interface, ns string, space *gatewayNamespaceInformers) error {
	space.core = informers.NewSharedInformerFactoryWithOptions(cs, 0, informers.WithNamespace(ns))
	inf := space.core.Core().V1().ConfigMaps()
	if err := c.track("ConfigMap", configMapsResource, ns, inf.Informer(), caCertificateOnly, nil); err != nil {
		return err
	}
	space.configMaps = inf.Lister()
	return nil
}

// caCertificateOnly is the transform of the CA ConfigMaps' informers.
func caCertificateOnly(obj any) (any, error) {
	cm, ok := obj.(*corev1.ConfigMap)
	if !ok {
		return obj, nil
	}
	out := &corev1.ConfigMap{TypeMeta: cm.TypeMeta, ObjectMeta: metav1.ObjectMeta{Namespace: cm.Namespace, Name: cm.Name,
		UID: cm.UID, ResourceVersion: cm.ResourceVersion}}
	if ca, ok := cm.Data[caCertificateKey]; ok {
		out.Data = map[string]string{caCertificateKey: ca}
	}
	return out, nil
}

func (s gatewayListerSnapshot) BackendTLSPolicies() []*gatewayv1.BackendTLSPolicy {
	var out []*gatewayv1.BackendTLSPolicy
	for _, ns := range s.informers().spaces {
		list, _ := ns.backendTLS.List(labels.Everything())
		out = append(out, list...)
	}
	return out
}

func (s gatewayListerSnapshot) CAConfigMap(namespace, name string) *corev1.ConfigMap {
	for _, ns := range s.informers().spaces {
		if cm, err := ns.configMaps.ConfigMaps(namespace).Get(name); err == nil {
			return cm
		}
	}
	return nil
}

// backendTLSPolicies processes the BackendTLSPolicies of snap; none when
// it holds none.
func backendTLSPolicies(snap Snapshot) attach.BackendTLSPolicies {
	objs, ok := snap.(BackendTLSSnapshot)
	if !ok {
		return attach.ProcessBackendTLSPolicies(nil, nil)
	}
	return attach.ProcessBackendTLSPolicies(objs.BackendTLSPolicies(), func(ns, name string) (string, bool, bool) {
		cm := objs.CAConfigMap(ns, name)
		if cm == nil {
			return "", false, false
		}
		data, has := cm.Data[caCertificateKey]
		return data, true, has
	})
}

// policyOutcome is what a render concluded about a BackendTLSPolicy: the
// policy, and the Gateways of ours through which it applies.
type policyOutcome struct {
	policy    *attach.BackendTLS
	ancestors []attach.PolicyAncestor
}

// policyOutcomes are the outcomes of the policies of x that apply through
// a Gateway of ours: a route attached to it (accepted there) reaches a
// Service port the policy targets, as a backendRef or a mirror.
func policyOutcomes(x *attach.BackendTLSPolicies, routes []routeOutcome) []policyOutcome {
	if len(x.Policies) == 0 {
		return nil
	}
	ancestors := make([][]attach.PolicyAncestor, len(x.Policies))
	add := func(i int, a attach.PolicyAncestor) {
		for _, have := range ancestors[i] {
			if have == a {
				return
			}
		}
		ancestors[i] = append(ancestors[i], a)
	}
	for _, r := range routes {
		var backends []attach.Backend
		for _, rb := range r.backends.Rules {
			backends = append(backends, rb.Backends...)
			for _, m := range rb.Mirrors {
				backends = append(backends, m)
			}
		}
		for _, b := range backends {
			if !b.Usable {
				continue
			}
			for _, i := range x.Targeting(b.Namespace, b.Name, b.PortName) {
				for _, p := range r.att.Parents {
					if p.Accepted {
						add(i, attach.PolicyAncestor{Namespace: p.GatewayNamespace, Name: p.GatewayName})
					}
				}
			}
		}
	}
	var out []policyOutcome
	for i := range x.Policies {
		slices.SortFunc(ancestors[i], func(a, b attach.PolicyAncestor) int {
			return cmp.Or(strings.Compare(a.Namespace, b.Namespace), strings.Compare(a.Name, b.Name))
		})
		if len(ancestors[i]) > 0 {
			out = append(out, policyOutcome{policy: &x.Policies[i], ancestors: ancestors[i]})
		}
	}
	return out
}

// clientCertificate is the key pair of Secret ref, which a Gateway
// presents to the backends it reaches over TLS.
func clientCertificate(snap Snapshot, ref attach.SecretRef) (dynamic.Certificate, error) {
	s := snap.Secret(ref.Namespace, ref.Name)
	if s == nil {
		return dynamic.Certificate{}, fmt.Errorf("secret %s/%s not found", ref.Namespace, ref.Name)
	}
	crt, key := s.Data[corev1.TLSCertKey], s.Data[corev1.TLSPrivateKeyKey]
	if len(crt) == 0 || len(key) == 0 {
		return dynamic.Certificate{}, fmt.Errorf("secret %s/%s has no tls.crt and tls.key", ref.Namespace, ref.Name)
	}
	return dynamic.Certificate{CertFile: string(crt), KeyFile: string(key)}, nil
}
