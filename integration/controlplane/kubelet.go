package controlplane

import (
	"context"
	"fmt"
	"time"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/wait"
	"k8s.io/client-go/util/retry"
)

// There is no kubelet and no scheduler: these helpers do their part, through
// the API, as the admin.

// CreateNamespace creates a namespace and waits for the serviceaccount
// controller to give it its default ServiceAccount, without which the
// ServiceAccount admission plugin refuses pods.
func (c *ControlPlane) CreateNamespace(ctx context.Context, name string) error {
	ns := &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: name}}
	if _, err := c.client.CoreV1().Namespaces().Create(ctx, ns, metav1.CreateOptions{}); err != nil && !apierrors.IsAlreadyExists(err) {
		return fmt.Errorf("creating namespace %s: %w", name, err)
	}
	return wait.PollUntilContextTimeout(ctx, 100*time.Millisecond, 30*time.Second, true, func(ctx context.Context) (bool, error) {
		_, err := c.client.CoreV1().ServiceAccounts(name).Get(ctx, "default", metav1.GetOptions{})
		if apierrors.IsNotFound(err) {
			return false, nil
		}
		return err == nil, err
	})
}

// CreateNode registers a Node as a kubelet would: zone and hostname labels,
// an InternalIP and a Ready condition. The EndpointSlice controller reads a
// pod's node for its zone and skips pods whose node it does not know.
func (c *ControlPlane) CreateNode(ctx context.Context, name, zone, internalIP string) (*corev1.Node, error) {
	node := &corev1.Node{ObjectMeta: metav1.ObjectMeta{
		Name: name,
		Labels: map[string]string{
			corev1.LabelHostname:     name,
			corev1.LabelTopologyZone: zone,
			corev1.LabelOSStable:     "linux",
			corev1.LabelArchStable:   "amd64",
		},
	}}
	node, err := c.client.CoreV1().Nodes().Create(ctx, node, metav1.CreateOptions{})
	if err != nil {
		return nil, fmt.Errorf("creating node %s: %w", name, err)
	}
	now := metav1.Now()
	node.Status.Addresses = []corev1.NodeAddress{
		{Type: corev1.NodeInternalIP, Address: internalIP},
		{Type: corev1.NodeHostName, Address: name},
	}
	node.Status.Conditions = []corev1.NodeCondition{{
		Type: corev1.NodeReady, Status: corev1.ConditionTrue, Reason: "KubeletReady",
		LastHeartbeatTime: now, LastTransitionTime: now,
	}}
	node.Status.Capacity = corev1.ResourceList{}
	node, err = c.client.CoreV1().Nodes().UpdateStatus(ctx, node, metav1.UpdateOptions{})
	if err != nil {
		return nil, fmt.Errorf("setting status of node %s: %w", name, err)
	}
	return node, nil
}

// NodeHeartbeat updates the Ready condition's heartbeat time of a Node, as a
// kubelet does every few seconds: a status update that changes nothing a
// proxy reads.
func (c *ControlPlane) NodeHeartbeat(ctx context.Context, name string) error {
	return retry.RetryOnConflict(retry.DefaultRetry, func() error {
		node, err := c.client.CoreV1().Nodes().Get(ctx, name, metav1.GetOptions{})
		if err != nil {
			return err
		}
		for i := range node.Status.Conditions {
			// Times are stored to the second: always a later second, so
			// that every heartbeat is an update.
			beat := metav1.NewTime(time.Now().Truncate(time.Second))
			if last := node.Status.Conditions[i].LastHeartbeatTime; !beat.After(last.Time) {
				beat = metav1.NewTime(last.Add(time.Second))
			}
			node.Status.Conditions[i].LastHeartbeatTime = beat
		}
		_, err = c.client.CoreV1().Nodes().UpdateStatus(ctx, node, metav1.UpdateOptions{})
		return err
	})
}

// PodSpec describes a pod to create: what a Deployment's template and the
// scheduler would give it.
type PodSpec struct {
	Namespace, Name string
	Labels          map[string]string
	Node            string
	Ports           []corev1.ContainerPort
}

// CreatePod creates a pod already bound to its node (there is no
// scheduler), without status: not ready, no IP.
func (c *ControlPlane) CreatePod(ctx context.Context, s PodSpec) (*corev1.Pod, error) {
	pod := &corev1.Pod{
		ObjectMeta: metav1.ObjectMeta{Namespace: s.Namespace, Name: s.Name, Labels: s.Labels},
		Spec: corev1.PodSpec{
			NodeName: s.Node,
			Containers: []corev1.Container{{
				Name:  "app",
				Image: "registry.invalid/app:1",
				Ports: s.Ports,
			}},
			AutomountServiceAccountToken: new(false),
		},
	}
	pod, err := c.client.CoreV1().Pods(s.Namespace).Create(ctx, pod, metav1.CreateOptions{})
	if err != nil {
		return nil, fmt.Errorf("creating pod %s/%s: %w", s.Namespace, s.Name, err)
	}
	return pod, nil
}

// SetPodReady sets a pod's status as a kubelet would once its container
// runs: phase Running, the pod IP, and the Ready and ContainersReady
// conditions set to ready.
func (c *ControlPlane) SetPodReady(ctx context.Context, namespace, name, ip string, ready bool) error {
	return retry.RetryOnConflict(retry.DefaultRetry, func() error {
		pod, err := c.client.CoreV1().Pods(namespace).Get(ctx, name, metav1.GetOptions{})
		if err != nil {
			return err
		}
		status := corev1.ConditionFalse
		if ready {
			status = corev1.ConditionTrue
		}
		now := metav1.Now()
		pod.Status.Phase = corev1.PodRunning
		pod.Status.PodIP = ip
		pod.Status.PodIPs = []corev1.PodIP{{IP: ip}}
		pod.Status.HostIP = ""
		if pod.Status.StartTime == nil {
			pod.Status.StartTime = &now
		}
		pod.Status.Conditions = []corev1.PodCondition{
			{Type: corev1.PodScheduled, Status: corev1.ConditionTrue, LastTransitionTime: now},
			{Type: corev1.PodInitialized, Status: corev1.ConditionTrue, LastTransitionTime: now},
			{Type: corev1.ContainersReady, Status: status, LastTransitionTime: now},
			{Type: corev1.PodReady, Status: status, LastTransitionTime: now},
		}
		pod.Status.ContainerStatuses = []corev1.ContainerStatus{{
			Name:    "app",
			Image:   "registry.invalid/app:1",
			ImageID: "registry.invalid/app@sha256:0000000000000000000000000000000000000000000000000000000000000000",
			Ready:   ready,
			Started: new(true),
			State:   corev1.ContainerState{Running: &corev1.ContainerStateRunning{StartedAt: now}},
		}}
		_, err = c.client.CoreV1().Pods(namespace).UpdateStatus(ctx, pod, metav1.UpdateOptions{})
		return err
	})
}

// DeletePod deletes a pod with a grace period. A pod bound to a node and
// running is not removed then: it gets a deletion timestamp and stays,
// terminating, until its kubelet confirms (here: FinishPod).
func (c *ControlPlane) DeletePod(ctx context.Context, namespace, name string, gracePeriodSeconds int64) error {
	return c.client.CoreV1().Pods(namespace).Delete(ctx, name, metav1.DeleteOptions{GracePeriodSeconds: &gracePeriodSeconds})
}

// FinishPod removes a pod at once, as its kubelet does once the containers
// of a terminating pod have stopped.
func (c *ControlPlane) FinishPod(ctx context.Context, namespace, name string) error {
	zero := int64(0)
	err := c.client.CoreV1().Pods(namespace).Delete(ctx, name, metav1.DeleteOptions{GracePeriodSeconds: &zero})
	if apierrors.IsNotFound(err) {
		return nil
	}
	return err
}
