package ingress

import (
	"fmt"
	"reflect"
	"testing"

	"github.com/stretchr/testify/assert"
	corev1 "k8s.io/api/core/v1"
	discoveryv1 "k8s.io/api/discovery/v1"
	netv1 "k8s.io/api/networking/v1"

	"github.com/sliceway/sliceway/provider/kubernetes/ingress/internal/testobjects"
)

// memSnapshot is a Snapshot held in memory. Its getters hand out the stored
// pointers and slices themselves, as listers do, so that a translation that
// writes to its input is caught.
type memSnapshot struct {
	ingresses []*netv1.Ingress
	classes   []*netv1.IngressClass
	services  map[string]*corev1.Service              // namespace/name
	slices    map[string][]*discoveryv1.EndpointSlice // namespace/service
	secrets   map[string]*corev1.Secret               // namespace/name
	nodes     []*corev1.Node
}

var _ Snapshot = (*memSnapshot)(nil)

// newMemSnapshot sorts objects by type; EndpointSlices are filed under their
// kubernetes.io/service-name label (unlabelled ones are dropped).
func newMemSnapshot(objs ...any) *memSnapshot {
	s := &memSnapshot{
		services: map[string]*corev1.Service{},
		slices:   map[string][]*discoveryv1.EndpointSlice{},
		secrets:  map[string]*corev1.Secret{},
	}
	for _, o := range objs {
		switch o := o.(type) {
		case *netv1.Ingress:
			s.ingresses = append(s.ingresses, o)
		case *netv1.IngressClass:
			s.classes = append(s.classes, o)
		case *corev1.Service:
			s.services[o.Namespace+"/"+o.Name] = o
		case *discoveryv1.EndpointSlice:
			if svc := o.Labels[discoveryv1.LabelServiceName]; svc != "" {
				s.slices[o.Namespace+"/"+svc] = append(s.slices[o.Namespace+"/"+svc], o)
			}
		case *corev1.Secret:
			s.secrets[o.Namespace+"/"+o.Name] = o
		case *corev1.Node:
			s.nodes = append(s.nodes, o)
		default:
			panic(fmt.Sprintf("memSnapshot: unsupported %T", o))
		}
	}
	return s
}

func (s *memSnapshot) Ingresses() []*netv1.Ingress             { return s.ingresses }
func (s *memSnapshot) IngressClasses() []*netv1.IngressClass   { return s.classes }
func (s *memSnapshot) Service(ns, name string) *corev1.Service { return s.services[ns+"/"+name] }
func (s *memSnapshot) EndpointSlices(ns, svc string) []*discoveryv1.EndpointSlice {
	return s.slices[ns+"/"+svc]
}
func (s *memSnapshot) Secret(ns, name string) *corev1.Secret { return s.secrets[ns+"/"+name] }
func (s *memSnapshot) Nodes() []*corev1.Node                 { return s.nodes }

// deepCopy returns a snapshot holding deep copies of every object, in the same order.
func (s *memSnapshot) deepCopy() *memSnapshot {
	c := &memSnapshot{
		services: map[string]*corev1.Service{},
		slices:   map[string][]*discoveryv1.EndpointSlice{},
		secrets:  map[string]*corev1.Secret{},
	}
	for _, o := range s.ingresses {
		c.ingresses = append(c.ingresses, o.DeepCopy())
	}
	for _, o := range s.classes {
		c.classes = append(c.classes, o.DeepCopy())
	}
	for k, o := range s.services {
		c.services[k] = o.DeepCopy()
	}
	for k, list := range s.slices {
		for _, o := range list {
			c.slices[k] = append(c.slices[k], o.DeepCopy())
		}
	}
	for k, o := range s.secrets {
		c.secrets[k] = o.DeepCopy()
	}
	for _, o := range s.nodes {
		c.nodes = append(c.nodes, o.DeepCopy())
	}
	return c
}

// Keep the helpers honest: the snapshot must hand out what it was given.
func TestMemSnapshot(t *testing.T) {
	svc := testobjects.NewService("ns", "svc", testobjects.ServicePort("", 80))
	sl := testobjects.NewSlice("ns", "svc-1", "svc", "", 80)
	unlabelled := testobjects.NewSlice("ns", "svc-2", "", "", 80)
	snap := newMemSnapshot(svc, sl, unlabelled)
	assert.Same(t, svc, snap.Service("ns", "svc"))
	assert.Nil(t, snap.Service("other", "svc"))
	assert.Equal(t, []*discoveryv1.EndpointSlice{sl}, snap.EndpointSlices("ns", "svc"))
	assert.Nil(t, snap.Secret("ns", "x"))
	c := snap.deepCopy()
	assert.True(t, reflect.DeepEqual(snap, c))
	assert.NotSame(t, svc, c.Service("ns", "svc"))
	c.services["ns/svc"].Spec.Ports[0].Port = 81
	assert.False(t, reflect.DeepEqual(snap, c))
}
