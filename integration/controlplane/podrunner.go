package controlplane

import (
	"context"
	"errors"
	"fmt"
	"net"
	"net/http"
	"net/netip"
	"os/exec"
	"strconv"
	"sync"
	"time"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/informers"
	"k8s.io/client-go/tools/cache"
	"k8s.io/client-go/util/workqueue"
)

// PodRunner does for the pods of a control plane what the scheduler and a
// kubelet do, with echo servers (echo.go, grpcecho.go) in place of each
// pod's containers: it binds each pod to its Node, gives it an address of
// its own, starts the servers its containers would run (podservers.go),
// and reports the pod running and ready, so that kube-controller-manager's EndpointSlice
// controller writes slices of addresses a proxy can reach. It serves the
// pods' logs as their Node's kubelet would (podlogs.go). A pod being
// deleted stops its servers, gives its address back and is removed, as
// its kubelet would confirm.
//
// The addresses are added to the loopback device of the network namespace
// the process runs in: run a PodRunner only in a namespace of its own
// (unshare --net, as root), which nothing outside reaches and from which
// no traffic leaves. Start the control plane with PodControllers for the
// pods of Deployments.
type PodRunner struct {
	c      *ControlPlane
	opts   PodRunnerOptions
	cancel context.CancelFunc
	done   chan struct{}
	queue  workqueue.TypedRateLimitingInterface[string]
	pods   cache.Indexer

	logs *http.Server // podlogs.go

	mu      sync.Mutex
	running map[string]*runningPod // by namespace/name
	next    netip.Addr             // the next address to give
	free    []netip.Addr           // addresses given back
}

// PodRunnerOptions say where pods run.
type PodRunnerOptions struct {
	// Node is the Node every pod is bound to (CreateNode registers one;
	// the EndpointSlice controller skips pods of a Node it does not know).
	// Pods bound to another Node are left alone. Required.
	Node string
	// Subnet is where pod addresses come from, from its tenth address on
	// (default 10.244.0.0/16). The API server refuses loopback addresses
	// in EndpointSlices: these are private addresses of the namespace.
	Subnet netip.Prefix
	// Logf, when set, is told of each pod started and stopped.
	Logf func(format string, args ...any)
}

// runningPod is a pod the runner started: its address and servers.
type runningPod struct {
	addr    netip.Addr
	servers []echoServer
	log     *podLog
}

// RunPods starts a PodRunner; Stop ends it.
func (c *ControlPlane) RunPods(ctx context.Context, opts PodRunnerOptions) (*PodRunner, error) {
	if opts.Node == "" {
		return nil, errors.New("controlplane: RunPods needs a Node")
	}
	if !opts.Subnet.IsValid() {
		opts.Subnet = netip.MustParsePrefix("10.244.0.0/16")
	}
	if opts.Logf == nil {
		opts.Logf = func(string, ...any) {}
	}
	first := opts.Subnet.Masked().Addr()
	for range 10 {
		first = first.Next()
	}
	ctx, cancel := context.WithCancel(ctx)
	r := &PodRunner{c: c, opts: opts, cancel: cancel, done: make(chan struct{}), running: map[string]*runningPod{}, next: first,
		// A pod waiting for a volume's object is tried again soon, as a
		// kubelet does.
		queue: workqueue.NewTypedRateLimitingQueue(workqueue.NewTypedItemExponentialFailureRateLimiter[string](50*time.Millisecond, 2*time.Second))}
	factory := informers.NewSharedInformerFactory(c.client, 0)
	inf := factory.Core().V1().Pods().Informer()
	enqueue := func(obj any) {
		if key, err := cache.DeletionHandlingMetaNamespaceKeyFunc(obj); err == nil {
			r.queue.Add(key)
		}
	}
	if _, err := inf.AddEventHandler(cache.ResourceEventHandlerFuncs{
		AddFunc: enqueue, UpdateFunc: func(_, n any) { enqueue(n) }, DeleteFunc: enqueue,
	}); err != nil {
		cancel()
		return nil, err
	}
	r.pods = inf.GetIndexer()
	logs, err := r.serveLogs(ctx)
	if err != nil {
		cancel()
		return nil, err
	}
	r.logs = logs
	factory.Start(ctx.Done())
	if !cache.WaitForCacheSync(ctx.Done(), inf.HasSynced) {
		cancel()
		factory.Shutdown()
		_ = logs.Close()
		return nil, errors.New("controlplane: the pod informer did not sync")
	}
	go func() {
		defer close(r.done)
		defer factory.Shutdown()
		go func() { <-ctx.Done(); r.queue.ShutDown() }()
		for r.work(ctx) {
		}
	}()
	return r, nil
}

// Stop ends the runner: its pods' servers stop and their addresses go;
// the pods stay as they are in the API.
func (r *PodRunner) Stop() {
	r.cancel()
	<-r.done
	_ = r.logs.Close()
	r.mu.Lock()
	defer r.mu.Unlock()
	for key, p := range r.running {
		r.release(key, p)
	}
}

// Address is the address of a running pod, invalid when the runner does
// not run it.
func (r *PodRunner) Address(namespace, name string) netip.Addr {
	r.mu.Lock()
	defer r.mu.Unlock()
	if p := r.running[namespace+"/"+name]; p != nil {
		return p.addr
	}
	return netip.Addr{}
}

// work syncs one pod from the queue; false once the queue shut down.
func (r *PodRunner) work(ctx context.Context) bool {
	key, quit := r.queue.Get()
	if quit {
		return false
	}
	defer r.queue.Done(key)
	if err := r.sync(ctx, key); err != nil && ctx.Err() == nil {
		r.opts.Logf("pod %s: %v (retrying)", key, err)
		r.queue.AddRateLimited(key)
		return true
	}
	r.queue.Forget(key)
	return true
}

// sync brings one pod where it should be: bound, running and ready, or
// stopped and removed.
func (r *PodRunner) sync(ctx context.Context, key string) error {
	obj, exists, err := r.pods.GetByKey(key)
	if err != nil {
		return err
	}
	if !exists {
		r.stop(key)
		return nil
	}
	pod := obj.(*corev1.Pod)
	switch {
	case pod.DeletionTimestamp != nil:
		r.stop(key)
		return r.c.FinishPod(ctx, pod.Namespace, pod.Name)
	case pod.Spec.NodeName == "":
		return r.bind(ctx, pod)
	case pod.Spec.NodeName != r.opts.Node:
		return nil
	}
	r.mu.Lock()
	p := r.running[key]
	r.mu.Unlock()
	if p == nil {
		if p, err = r.start(ctx, pod); err != nil {
			return err
		}
	}
	if ip := p.addr.String(); pod.Status.PodIP != ip || !podReady(pod) {
		return r.c.SetPodReady(ctx, pod.Namespace, pod.Name, ip, true)
	}
	return nil
}

// bind binds pod to the runner's Node, as the scheduler does.
func (r *PodRunner) bind(ctx context.Context, pod *corev1.Pod) error {
	b := &corev1.Binding{ObjectMeta: metav1.ObjectMeta{Namespace: pod.Namespace, Name: pod.Name, UID: pod.UID},
		Target: corev1.ObjectReference{Kind: "Node", Name: r.opts.Node}}
	err := r.c.client.CoreV1().Pods(pod.Namespace).Bind(ctx, b, metav1.CreateOptions{})
	if apierrors.IsConflict(err) {
		return nil // bound already: the update brings it back
	}
	return err
}

// start gives pod an address and its servers.
func (r *PodRunner) start(ctx context.Context, pod *corev1.Pod) (*runningPod, error) {
	key := pod.Namespace + "/" + pod.Name
	specs, err := r.podServers(ctx, pod)
	if err != nil {
		return nil, err
	}
	r.mu.Lock()
	addr := r.take()
	r.mu.Unlock()
	if addr == (netip.Addr{}) {
		return nil, fmt.Errorf("no address left in %s", r.opts.Subnet)
	}
	if out, err := exec.Command("ip", "addr", "add", netip.PrefixFrom(addr, addr.BitLen()).String(), "dev", "lo").CombinedOutput(); err != nil {
		r.mu.Lock()
		r.free = append(r.free, addr)
		r.mu.Unlock()
		return nil, fmt.Errorf("adding %s to lo: %v: %s", addr, err, out)
	}
	p := &runningPod{addr: addr, log: &podLog{}}
	who := echoPod{namespace: pod.Namespace, name: pod.Name, log: p.log}
	var ports []int32
	for _, spec := range specs {
		l, err := net.Listen("tcp", net.JoinHostPort(addr.String(), strconv.Itoa(int(spec.port))))
		if err != nil {
			r.mu.Lock()
			r.release(key, p)
			r.mu.Unlock()
			return nil, err
		}
		if spec.kind == grpcServer {
			p.servers = append(p.servers, startGRPCEcho(l, who, spec.tls))
		} else {
			p.servers = append(p.servers, startHTTPEcho(l, who, spec.kind == h2cServer, spec.tls))
		}
		ports = append(ports, spec.port)
	}
	r.mu.Lock()
	r.running[key] = p
	r.mu.Unlock()
	r.opts.Logf("pod %s runs at %s, ports %v", key, addr, ports)
	return p, nil
}

// stop stops the pod of key, if the runner runs it.
func (r *PodRunner) stop(key string) {
	r.mu.Lock()
	defer r.mu.Unlock()
	if p := r.running[key]; p != nil {
		r.release(key, p)
		r.opts.Logf("pod %s stopped, %s given back", key, p.addr)
	}
}

// release stops p's servers and gives its address back. r.mu is held.
func (r *PodRunner) release(key string, p *runningPod) {
	for _, s := range p.servers {
		s.close()
	}
	_ = exec.Command("ip", "addr", "del", netip.PrefixFrom(p.addr, p.addr.BitLen()).String(), "dev", "lo").Run()
	r.free = append(r.free, p.addr)
	delete(r.running, key)
}

// take is an address for a new pod, the zero address when the subnet is
// used up. r.mu is held.
func (r *PodRunner) take() netip.Addr {
	if n := len(r.free); n > 0 {
		a := r.free[n-1]
		r.free = r.free[:n-1]
		return a
	}
	a := r.next
	if !r.opts.Subnet.Contains(a) {
		return netip.Addr{}
	}
	r.next = a.Next()
	return a
}

// podReady says whether the pod's Ready condition is true.
func podReady(pod *corev1.Pod) bool {
	for _, c := range pod.Status.Conditions {
		if c.Type == corev1.PodReady {
			return c.Status == corev1.ConditionTrue
		}
	}
	return false
}

// WaitForReadyPods waits until n pods of namespace matching the label
// selector are running and ready, and returns them.
func (c *ControlPlane) WaitForReadyPods(ctx context.Context, namespace, selector string, n int, timeout time.Duration) ([]corev1.Pod, error) {
	ctx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()
	for {
		list, err := c.client.CoreV1().Pods(namespace).List(ctx, metav1.ListOptions{LabelSelector: selector})
		if err == nil {
			var ready []corev1.Pod
			for _, p := range list.Items {
				if p.DeletionTimestamp == nil && podReady(&p) {
					ready = append(ready, p)
				}
			}
			if len(ready) == n {
				return ready, nil
			}
		}
		select {
		case <-ctx.Done():
			return nil, fmt.Errorf("waiting for %d ready pods of %s (%s): %w", n, namespace, selector, ctx.Err())
		case <-time.After(100 * time.Millisecond):
		}
	}
}
