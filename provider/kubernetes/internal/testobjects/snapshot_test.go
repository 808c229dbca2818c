package testobjects

import (
	"reflect"
	"testing"

	"github.com/stretchr/testify/assert"
	discoveryv1 "k8s.io/api/discovery/v1"
)

// Keep the helper honest: the snapshot hands out what it was given, and a
// deep copy shares nothing with it.
func TestSnapshot(t *testing.T) {
	svc := NewService("ns", "svc", ServicePort("", 80))
	sl := NewSlice("ns", "svc-1", "svc", "", 80)
	unlabelled := NewSlice("ns", "svc-2", "", "", 80)
	snap := NewSnapshot(svc, sl, unlabelled)
	assert.Same(t, svc, snap.Service("ns", "svc"))
	assert.Nil(t, snap.Service("other", "svc"))
	assert.Equal(t, []*discoveryv1.EndpointSlice{sl}, snap.EndpointSlices("ns", "svc"))
	assert.Nil(t, snap.Secret("ns", "x"))
	c := snap.DeepCopy()
	assert.True(t, reflect.DeepEqual(snap, c))
	assert.NotSame(t, svc, c.Service("ns", "svc"))
	c.ServiceByKey["ns/svc"].Spec.Ports[0].Port = 81
	assert.False(t, reflect.DeepEqual(snap, c))
	assert.Panics(t, func() { NewSnapshot("a string") })
}
