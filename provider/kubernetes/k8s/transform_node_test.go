package k8s_test

import (
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

func TestTransformNode(t *testing.T) {
	node := &corev1.Node{
		TypeMeta:   metav1.TypeMeta{APIVersion: "v1", Kind: "Node"},
		ObjectMeta: fatMeta("node-a", ""),
		Spec:       corev1.NodeSpec{PodCIDR: "10.244.1.0/24", ProviderID: "aws:///eu-west-1a/i-1"},
		Status: corev1.NodeStatus{
			Addresses: []corev1.NodeAddress{
				{Type: corev1.NodeInternalIP, Address: "192.168.0.1"},
				{Type: corev1.NodeExternalIP, Address: "203.0.113.1"},
				{Type: corev1.NodeHostName, Address: "node-a"},
			},
			Conditions: []corev1.NodeCondition{{Type: corev1.NodeReady, Status: corev1.ConditionTrue,
				LastHeartbeatTime: metav1.Time{Time: time.Unix(1700000000, 0)}}},
			Allocatable: corev1.ResourceList{corev1.ResourceCPU: resource.MustParse("2")},
			Capacity:    corev1.ResourceList{corev1.ResourceCPU: resource.MustParse("2")},
			Images:      []corev1.ContainerImage{{Names: []string{"nginx:1"}, SizeBytes: 1000}},
			NodeInfo:    corev1.NodeSystemInfo{KubeletVersion: "v1.37.0"},
		},
	}
	node.Labels = map[string]string{
		corev1.LabelTopologyZone:   "zone-a",
		corev1.LabelTopologyRegion: "region-1",
		corev1.LabelHostname:       "node-a",
		"kubernetes.io/os":         "linux",
		"node-role.example/db":     "",
	}
	out := transformed(t, node)
	require.IsType(t, &corev1.Node{}, out)
	assert.Equal(t, &corev1.Node{
		TypeMeta: node.TypeMeta,
		ObjectMeta: metav1.ObjectMeta{
			Name: "node-a", UID: "uid-node-a", ResourceVersion: "42",
			Labels: map[string]string{
				corev1.LabelTopologyZone:   "zone-a",
				corev1.LabelTopologyRegion: "region-1",
				corev1.LabelHostname:       "node-a",
			},
		},
		Status: corev1.NodeStatus{Addresses: node.Status.Addresses},
	}, out)

	// A Node without any label keeps none.
	bare := &corev1.Node{ObjectMeta: metav1.ObjectMeta{Name: "node-b", Labels: map[string]string{"kubernetes.io/os": "linux"}}}
	assert.Empty(t, transformed(t, bare).(*corev1.Node).Labels)
}
