package testobjects

import (
	"fmt"

	corev1 "k8s.io/api/core/v1"
	discoveryv1 "k8s.io/api/discovery/v1"
	netv1 "k8s.io/api/networking/v1"
)

// Snapshot is the in-memory snapshot of the tests: it has the methods of
// the provider's Snapshot (package translate) over objects held in
// memory. Its getters hand out the stored pointers and slices themselves,
// as listers do, so that a translation that writes to its input is caught.
// The fields are open so that a test can reorder what a lister would list
// in another order.
type Snapshot struct {
	IngressList  []*netv1.Ingress
	ClassList    []*netv1.IngressClass
	ServiceByKey map[string]*corev1.Service              // namespace/name
	SlicesByKey  map[string][]*discoveryv1.EndpointSlice // namespace/service
	SecretByKey  map[string]*corev1.Secret               // namespace/name
	NodeList     []*corev1.Node
}

// NewSnapshot sorts objects by type, keeping their order within a type;
// EndpointSlices are filed under their kubernetes.io/service-name label
// (unlabelled ones are dropped, as the provider's lister never finds
// them). An object of another type is a mistake of the test: it panics.
func NewSnapshot(objs ...any) *Snapshot {
	s := &Snapshot{
		ServiceByKey: map[string]*corev1.Service{},
		SlicesByKey:  map[string][]*discoveryv1.EndpointSlice{},
		SecretByKey:  map[string]*corev1.Secret{},
	}
	for _, o := range objs {
		switch o := o.(type) {
		case *netv1.Ingress:
			s.IngressList = append(s.IngressList, o)
		case *netv1.IngressClass:
			s.ClassList = append(s.ClassList, o)
		case *corev1.Service:
			s.ServiceByKey[o.Namespace+"/"+o.Name] = o
		case *discoveryv1.EndpointSlice:
			if svc := o.Labels[discoveryv1.LabelServiceName]; svc != "" {
				s.SlicesByKey[o.Namespace+"/"+svc] = append(s.SlicesByKey[o.Namespace+"/"+svc], o)
			}
		case *corev1.Secret:
			s.SecretByKey[o.Namespace+"/"+o.Name] = o
		case *corev1.Node:
			s.NodeList = append(s.NodeList, o)
		default:
			panic(fmt.Sprintf("testobjects.NewSnapshot: unsupported %T", o))
		}
	}
	return s
}

func (s *Snapshot) Ingresses() []*netv1.Ingress             { return s.IngressList }
func (s *Snapshot) IngressClasses() []*netv1.IngressClass   { return s.ClassList }
func (s *Snapshot) Service(ns, name string) *corev1.Service { return s.ServiceByKey[ns+"/"+name] }
func (s *Snapshot) EndpointSlices(ns, svc string) []*discoveryv1.EndpointSlice {
	return s.SlicesByKey[ns+"/"+svc]
}
func (s *Snapshot) Secret(ns, name string) *corev1.Secret { return s.SecretByKey[ns+"/"+name] }
func (s *Snapshot) Nodes() []*corev1.Node                 { return s.NodeList }

// DeepCopy returns a snapshot holding deep copies of every object, in the
// same order.
func (s *Snapshot) DeepCopy() *Snapshot {
	c := &Snapshot{
		ServiceByKey: map[string]*corev1.Service{},
		SlicesByKey:  map[string][]*discoveryv1.EndpointSlice{},
		SecretByKey:  map[string]*corev1.Secret{},
	}
	for _, o := range s.IngressList {
		c.IngressList = append(c.IngressList, o.DeepCopy())
	}
	for _, o := range s.ClassList {
		c.ClassList = append(c.ClassList, o.DeepCopy())
	}
	for k, o := range s.ServiceByKey {
		c.ServiceByKey[k] = o.DeepCopy()
	}
	for k, list := range s.SlicesByKey {
		for _, o := range list {
			c.SlicesByKey[k] = append(c.SlicesByKey[k], o.DeepCopy())
		}
	}
	for k, o := range s.SecretByKey {
		c.SecretByKey[k] = o.DeepCopy()
	}
	for _, o := range s.NodeList {
		c.NodeList = append(c.NodeList, o.DeepCopy())
	}
	return c
}
