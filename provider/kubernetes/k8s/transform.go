package k8s

import (
	"strings"

	corev1 "k8s.io/api/core/v1"
	discoveryv1 "k8s.io/api/discovery/v1"
	netv1 "k8s.io/api/networking/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/tools/cache"
	gatewayv1 "sigs.k8s.io/gateway-api/apis/v1"
)

// LastAppliedAnnotation is kubectl's copy of the applied object: often the
// largest part of an object, and never read.
const LastAppliedAnnotation = corev1.LastAppliedConfigAnnotation

// Keep says what a front end reads of the objects that have parts it does
// not: the annotations of Ingresses and Services, and the data keys of
// Secrets. Each front end declares its own; the informer transform keeps
// what it says (Transform) and the change filter compares what it says
// (Changed), so the two cannot disagree. A nil function reads nothing.
type Keep struct {
	// IngressAnnotation says whether an Ingress annotation is read
	// (kubernetes.io/ingress.class always is).
	IngressAnnotation func(key string) bool
	// ServiceAnnotation says whether a Service annotation is read.
	ServiceAnnotation func(key string) bool
	// SecretData says whether a data key of a referenced Secret is read.
	SecretData func(secret *corev1.Secret, key string) bool
}

// Transform drops from each object what the front end never reads, before
// it enters an informer cache, to keep memory down at scale:
//   - managedFields and the last-applied-configuration annotation, everywhere;
//   - the annotations of other tools (Helm, Argo CD, cert-manager, ...):
//     Ingresses keep kubernetes.io/ingress.class and those k says,
//     Services those k says, IngressClasses
//     ingressclass.kubernetes.io/is-default-class, Secrets none;
//   - the labels of Services, IngressClasses and Secrets (an Ingress keeps
//     its labels, which the label selector is checked against);
//   - of a Service's spec, all but what translation reads: type, ports,
//     clusterIP, externalName, ipFamilies and publishNotReadyAddresses
//     (the selector, the other cluster IPs, the traffic and affinity
//     policies, the load-balancer settings go); its status is kept;
//   - the annotations of EndpointSlices (the controller's trigger time changes
//     on every update), their owner references, their labels but the
//     Service's name and the manager, and of their endpoints what no
//     translation reads: targetRef, hostname, nodeName, zone and
//     deprecatedTopology (zone hints are kept); the conditions point to
//     shared values and the addresses of a slice share one array and one
//     text, so that an endpoint costs no object of its own to keep and to
//     mark;
//   - of Secrets, every data key but those k says, and their string data
//     (TransformSecret drops the data of Secrets no Ingress references too);
//   - of Nodes, everything but the name, labels and addresses;
//   - of the Gateway API kinds the Gateway front end reads (GatewayClass,
//     Gateway, HTTPRoute, GRPCRoute, ReferenceGrant, BackendTLSPolicy),
//     managedFields and the last-applied annotation only: spec, status,
//     labels and other annotations stay (gateway.go says why);
//   - of Namespaces, everything but the name and labels.
//
// Objects of other kinds pass unchanged.
//
// It also moves the rule of an Ingress with one rule of one path, that
// path, its Service backend and its path type into one allocation
// (packRules).
//
// It is a cache.TransformFunc: it may modify the object it is given, which
// the informer owns.
func (k Keep) Transform(obj any) (any, error) {
	switch o := obj.(type) {
	case *discoveryv1.EndpointSlice:
		trimMeta(&o.ObjectMeta)
		o.Annotations, o.OwnerReferences = nil, nil
		o.Labels = sliceLabels(o.Labels)
		for i := range o.Endpoints {
			ep := &o.Endpoints[i]
			ep.TargetRef, ep.Hostname, ep.NodeName, ep.Zone, ep.DeprecatedTopology = nil, nil, nil, nil, nil
			ep.Conditions.Ready = sharedBool(ep.Conditions.Ready)
			ep.Conditions.Serving = sharedBool(ep.Conditions.Serving)
			ep.Conditions.Terminating = sharedBool(ep.Conditions.Terminating)
		}
		packAddresses(o.Endpoints)
	case *corev1.Service:
		trimMeta(&o.ObjectMeta)
		o.Labels = nil
		o.Annotations = keepAnnotations(o.Annotations, k.ServiceAnnotation)
		o.Spec = corev1.ServiceSpec{
			Type:                     o.Spec.Type,
			Ports:                    o.Spec.Ports,
			ClusterIP:                o.Spec.ClusterIP,
			ExternalName:             o.Spec.ExternalName,
			IPFamilies:               o.Spec.IPFamilies,
			PublishNotReadyAddresses: o.Spec.PublishNotReadyAddresses,
		}
	case *netv1.Ingress:
		trimMeta(&o.ObjectMeta)
		o.Annotations = keepAnnotations(o.Annotations, func(key string) bool {
			return key == IngressClassAnnotation || (k.IngressAnnotation != nil && k.IngressAnnotation(key))
		})
		packRules(&o.Spec)
	case *netv1.IngressClass:
		trimMeta(&o.ObjectMeta)
		o.Labels = nil
		o.Annotations = keepAnnotations(o.Annotations, func(k string) bool { return k == DefaultClassAnnotation })
	case *corev1.Secret:
		trimMeta(&o.ObjectMeta)
		o.Labels, o.Annotations = nil, nil
		o.StringData = nil
		for key := range o.Data {
			if k.SecretData == nil || !k.SecretData(o, key) {
				delete(o.Data, key)
			}
		}
		if len(o.Data) == 0 {
			o.Data = nil
		}
	case *corev1.ConfigMap:
		// The controller's ConfigMap: its data only.
		trimMeta(&o.ObjectMeta)
		o.Labels, o.Annotations, o.BinaryData = nil, nil, nil
	case *corev1.Node:
		return &corev1.Node{
			TypeMeta: o.TypeMeta,
			ObjectMeta: metav1.ObjectMeta{
				Name:            o.Name,
				UID:             o.UID,
				ResourceVersion: o.ResourceVersion,
				Labels:          topologyLabels(o.Labels),
			},
			Status: corev1.NodeStatus{Addresses: o.Status.Addresses},
		}, nil
	case *gatewayv1.GatewayClass, *gatewayv1.Gateway, *gatewayv1.HTTPRoute, *gatewayv1.GRPCRoute, *gatewayv1.ReferenceGrant, *gatewayv1.BackendTLSPolicy:
		trimMeta(gatewayMeta(o))
	case *corev1.Namespace:
		return namespaceLabelsOnly(o), nil
	case cache.DeletedFinalStateUnknown:
		// A tombstone keeps the last known object; leave it as it is.
	}
	return obj, nil
}

// keepAnnotations returns the annotations for which keep is true: the map
// itself when it is all of them, nil when none.
func keepAnnotations(annotations map[string]string, keep func(key string) bool) map[string]string {
	if keep == nil {
		return nil
	}
	kept := 0
	for k := range annotations {
		if keep(k) {
			kept++
		}
	}
	switch kept {
	case len(annotations):
		return annotations
	case 0:
		return nil
	}
	out := make(map[string]string, kept)
	for k, v := range annotations {
		if keep(k) {
			out[k] = v
		}
	}
	return out
}

// sliceLabels keeps the labels of an EndpointSlice that are read: its
// Service's name and its manager. The EndpointSlice controller copies all
// the labels of the Service onto each of its slices.
func sliceLabels(labels map[string]string) map[string]string {
	kept := 0
	for _, k := range sliceLabelKeys {
		if _, ok := labels[k]; ok {
			kept++
		}
	}
	if len(labels) == kept {
		return labels // nothing to drop
	}
	out := make(map[string]string, kept)
	for _, k := range sliceLabelKeys {
		if v, ok := labels[k]; ok {
			out[k] = v
		}
	}
	return out
}

var sliceLabelKeys = []string{discoveryv1.LabelServiceName, discoveryv1.LabelManagedBy}

// packAddresses puts the addresses of all endpoints in one array of
// strings whose texts share one string: two objects per slice where there
// were two per endpoint, for the garbage collector to mark in every cycle.
func packAddresses(eps []discoveryv1.Endpoint) {
	n, size := 0, 0
	for i := range eps {
		n += len(eps[i].Addresses)
		for _, a := range eps[i].Addresses {
			size += len(a)
		}
	}
	if n == 0 {
		return
	}
	var text strings.Builder
	text.Grow(size)
	for i := range eps {
		for _, a := range eps[i].Addresses {
			text.WriteString(a)
		}
	}
	all, addrs, off := text.String(), make([]string, 0, n), 0
	for i := range eps {
		start := len(addrs)
		for _, a := range eps[i].Addresses {
			addrs = append(addrs, all[off:off+len(a)])
			off += len(a)
		}
		if len(addrs) > start {
			eps[i].Addresses = addrs[start:len(addrs):len(addrs)]
		}
	}
}

// onePathRule is the rules of an Ingress with one rule of one path to a
// Service, with what they point to, in one allocation.
type onePathRule struct {
	rules    [1]netv1.IngressRule
	http     netv1.HTTPIngressRuleValue
	paths    [1]netv1.HTTPIngressPath
	service  netv1.IngressServiceBackend
	pathType netv1.PathType
}

// packRules moves the rules of an Ingress of one rule with one path (the
// most common shape) into one allocation: a render reads them one after the
// other, and they were five objects far apart in memory (each of its own
// size), for the render to miss in the processor's cache and for the
// garbage collector to mark.
func packRules(spec *netv1.IngressSpec) {
	if len(spec.Rules) != 1 || spec.Rules[0].HTTP == nil || len(spec.Rules[0].HTTP.Paths) != 1 {
		return
	}
	path := spec.Rules[0].HTTP.Paths[0]
	if path.Backend.Service == nil || path.PathType == nil {
		return
	}
	b := &onePathRule{rules: [1]netv1.IngressRule{spec.Rules[0]}, paths: [1]netv1.HTTPIngressPath{path},
		service: *path.Backend.Service, pathType: *path.PathType}
	b.http.Paths = b.paths[:]
	b.rules[0].HTTP = &b.http
	b.paths[0].Backend.Service = &b.service
	b.paths[0].PathType = &b.pathType
	spec.Rules = b.rules[:]
}

// The values the conditions of cached endpoints point to. Cached objects
// are never modified (informers replace them), so they can share these.
var sharedTrue, sharedFalse = true, false

func sharedBool(p *bool) *bool {
	switch {
	case p == nil:
		return nil
	case *p:
		return &sharedTrue
	default:
		return &sharedFalse
	}
}

// DataDroppedAnnotation marks a cached Secret whose data TransformSecret
// dropped because no Ingress referenced it; it is never written back.
const DataDroppedAnnotation = "sliceway.io/data-dropped"

// TransformSecret is Transform for Secrets, which also drops all data of a
// Secret that referenced(namespace, name) says no Ingress uses, and marks
// it with DataDroppedAnnotation so that its data can be fetched once an
// Ingress refers to it.
func (k Keep) TransformSecret(referenced func(namespace, name string) bool) cache.TransformFunc {
	return func(obj any) (any, error) {
		out, err := k.Transform(obj)
		if err != nil {
			return out, err
		}
		secret, ok := out.(*corev1.Secret)
		if !ok || referenced(secret.Namespace, secret.Name) {
			return out, nil
		}
		secret.Data = nil
		if secret.Annotations == nil {
			secret.Annotations = map[string]string{}
		}
		secret.Annotations[DataDroppedAnnotation] = "true"
		return secret, nil
	}
}

// DataDropped says whether TransformSecret dropped the data of a Secret.
func DataDropped(secret *corev1.Secret) bool {
	return secret != nil && secret.Annotations[DataDroppedAnnotation] == "true"
}

func trimMeta(m *metav1.ObjectMeta) {
	m.ManagedFields = nil
	delete(m.Annotations, LastAppliedAnnotation)
}

func topologyLabels(labels map[string]string) map[string]string {
	var out map[string]string
	for k, v := range labels {
		if k == ZoneLabel || k == RegionLabel || strings.HasPrefix(k, "topology.kubernetes.io/") || k == corev1.LabelHostname {
			if out == nil {
				out = map[string]string{}
			}
			out[k] = v
		}
	}
	return out
}
