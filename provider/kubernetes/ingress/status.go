package ingress

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/rs/zerolog"
	corev1 "k8s.io/api/core/v1"
	netv1 "k8s.io/api/networking/v1"
	"k8s.io/apimachinery/pkg/api/equality"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/fields"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/apimachinery/pkg/util/uuid"
	"k8s.io/client-go/informers"
	"k8s.io/client-go/kubernetes"
	corelisters "k8s.io/client-go/listers/core/v1"
	"k8s.io/client-go/tools/cache"
	"k8s.io/client-go/tools/leaderelection"
	"k8s.io/client-go/tools/leaderelection/resourcelock"
)

// statusWriter writes status.loadBalancer of the served Ingresses, only
// where it differs from what they have, and only while this replica leads
// (when leader election is on). It runs beside the render loop, so a slow
// API server never delays a configuration.
type statusWriter struct {
	p   *Provider
	cs  kubernetes.Interface
	log zerolog.Logger

	published corelisters.ServiceLister // the publishedService, watched alone
	pubNS     string
	pubName   string

	// gateway writes the Gateway API objects' status instead, for the
	// Gateway API provider; nil for the Ingress providers.
	gateway *gatewayStatus

	mu       sync.Mutex
	wanted   []*netv1.Ingress // the latest served Ingresses
	leading  bool
	wake     chan struct{}
	lastSeen map[types.UID]string // resourceVersion already written to, to skip repeats
}

func newStatusWriter(p *Provider, cs kubernetes.Interface, log zerolog.Logger) *statusWriter {
	w := &statusWriter{
		p:        p,
		cs:       cs,
		log:      log.With().Str("component", "status").Logger(),
		wake:     make(chan struct{}, 1),
		leading:  p.LeaderElection == nil || p.LeaderElection.Disabled,
		lastSeen: map[types.UID]string{},
	}
	if p.IngressEndpoint == nil {
		return w
	}
	if ps := p.IngressEndpoint.PublishedService; ps != "" {
		w.pubNS, w.pubName, _ = strings.Cut(ps, "/")
	}
	return w
}

// update hands the writer the Ingresses of the latest render.
func (w *statusWriter) update(ingresses []*netv1.Ingress) {
	w.mu.Lock()
	w.wanted = ingresses
	w.mu.Unlock()
	w.poke()
}

func (w *statusWriter) poke() {
	select {
	case w.wake <- struct{}{}:
	default:
	}
}

func (w *statusWriter) run(ctx context.Context) {
	if w.pubName != "" {
		// One informer for the one Service whose status is copied, so that a
		// change of its address is written without a full resync.
		factory := informers.NewSharedInformerFactoryWithOptions(w.cs, 0, informers.WithNamespace(w.pubNS),
			informers.WithTweakListOptions(func(o *metav1.ListOptions) {
				o.FieldSelector = fields.OneTermEqualSelector("metadata.name", w.pubName).String()
			}))
		inf := factory.Core().V1().Services()
		w.published = inf.Lister()
		_, _ = inf.Informer().AddEventHandler(cache.ResourceEventHandlerFuncs{
			AddFunc:    func(any) { w.poke() },
			UpdateFunc: func(any, any) { w.poke() },
			DeleteFunc: func(any) { w.poke() },
		})
		factory.Start(ctx.Done())
		defer factory.Shutdown()
		if !cache.WaitForCacheSync(ctx.Done(), inf.Informer().HasSynced) {
			return
		}
	}
	if le := w.p.LeaderElection; le != nil && !le.Disabled {
		elected := make(chan struct{})
		go func() {
			defer close(elected)
			w.elect(ctx)
		}()
		defer func() { <-elected }()
	}
	for {
		select {
		case <-ctx.Done():
			return
		case <-w.wake:
		}
		w.writeAll(ctx)
	}
}

// elect runs leader election until ctx is done, standing again after a loss.
func (w *statusWriter) elect(ctx context.Context) {
	le := w.p.LeaderElection
	ns := le.LeaseNamespace
	if ns == "" {
		ns = leaseNamespace()
	}
	host, _ := os.Hostname()
	identity := host + "_" + string(uuid.NewUUID())
	lock := &resourcelock.LeaseLock{
		LeaseMeta:  metav1.ObjectMeta{Namespace: ns, Name: le.LeaseName},
		Client:     w.cs.CoordinationV1(),
		LockConfig: resourcelock.ResourceLockConfig{Identity: identity},
	}
	for ctx.Err() == nil {
		elector, err := leaderelection.NewLeaderElector(leaderelection.LeaderElectionConfig{
			Lock:            lock,
			LeaseDuration:   time.Duration(le.LeaseDuration),
			RenewDeadline:   time.Duration(le.RenewDeadline),
			RetryPeriod:     time.Duration(le.RetryPeriod),
			ReleaseOnCancel: true,
			Name:            le.LeaseName,
			Callbacks: leaderelection.LeaderCallbacks{
				OnStartedLeading: func(context.Context) {
					w.log.Info().Str("lease", ns+"/"+le.LeaseName).Str("identity", identity).Msg("leading: writing status")
					w.setLeading(true)
				},
				OnStoppedLeading: func() {
					w.log.Info().Str("lease", ns+"/"+le.LeaseName).Msg("not leading: no longer writing status")
					w.setLeading(false)
				},
			},
		})
		if err != nil {
			w.log.Error().Err(err).Msg("leader election cannot start")
			return
		}
		elector.Run(ctx)
	}
}

func (w *statusWriter) setLeading(v bool) {
	w.mu.Lock()
	w.leading = v
	if v {
		clear(w.lastSeen)
	}
	w.mu.Unlock()
	if v {
		w.poke()
	}
}

// leaseNamespace is the namespace this pod runs in, as far as it can tell.
func leaseNamespace() string {
	if ns := os.Getenv("POD_NAMESPACE"); ns != "" {
		return ns
	}
	if data, err := os.ReadFile("/var/run/secrets/kubernetes.io/serviceaccount/namespace"); err == nil {
		if ns := strings.TrimSpace(string(data)); ns != "" {
			return ns
		}
	}
	return metav1.NamespaceDefault
}

// desired is the load-balancer status to publish, and whether it is known
// (a published Service without an address yet publishes nothing).
func (w *statusWriter) desired() ([]netv1.IngressLoadBalancerIngress, bool) {
	e := w.p.IngressEndpoint
	if w.pubName == "" {
		return []netv1.IngressLoadBalancerIngress{{IP: e.IP, Hostname: e.Hostname}}, true
	}
	svc, err := w.published.Services(w.pubNS).Get(w.pubName)
	if err != nil {
		w.log.Warn().Str("service", w.pubName).Str("namespace", w.pubNS).Msg("the published service does not exist; Ingress status is left as it is")
		return nil, false
	}
	if len(svc.Status.LoadBalancer.Ingress) == 0 {
		w.log.Debug().Str("service", w.pubName).Str("namespace", w.pubNS).Msg("the published service has no load-balancer address yet")
		return nil, false
	}
	out := make([]netv1.IngressLoadBalancerIngress, 0, len(svc.Status.LoadBalancer.Ingress))
	for _, lb := range svc.Status.LoadBalancer.Ingress {
		out = append(out, netv1.IngressLoadBalancerIngress{IP: lb.IP, Hostname: lb.Hostname, Ports: ingressPorts(lb.Ports)})
	}
	return out, true
}

func ingressPorts(ports []corev1.PortStatus) []netv1.IngressPortStatus {
	if len(ports) == 0 {
		return nil
	}
	out := make([]netv1.IngressPortStatus, len(ports))
	for i, p := range ports {
		out[i] = netv1.IngressPortStatus{Port: p.Port, Protocol: p.Protocol, Error: p.Error}
	}
	return out
}

func (w *statusWriter) writeAll(ctx context.Context) {
	w.mu.Lock()
	leading, ingresses := w.leading, slices.Clone(w.wanted)
	w.mu.Unlock()
	if !leading {
		return
	}
	if w.gateway != nil {
		w.gateway.writeAll(ctx)
		return
	}
	want, ok := w.desired()
	if !ok {
		return
	}
	for _, ing := range ingresses {
		if ctx.Err() != nil {
			return
		}
		if equality.Semantic.DeepEqual(ing.Status.LoadBalancer.Ingress, want) {
			continue
		}
		w.mu.Lock()
		already := w.lastSeen[ing.UID] == ing.ResourceVersion && ing.ResourceVersion != ""
		w.mu.Unlock()
		if already {
			continue // written from this version already; wait for the cache to catch up
		}
		if err := w.write(ctx, ing, want); err != nil {
			w.log.Error().Err(err).Str("ingress", ing.Name).Str("namespace", ing.Namespace).Msg("cannot update the Ingress status")
			continue
		}
		w.mu.Lock()
		w.lastSeen[ing.UID] = ing.ResourceVersion
		w.mu.Unlock()
	}
}

// write sets status.loadBalancer with a merge patch of the status
// subresource: the cached Ingress is trimmed (no managedFields, no
// last-applied annotation), so it must never be sent back whole.
func (w *statusWriter) write(ctx context.Context, ing *netv1.Ingress, want []netv1.IngressLoadBalancerIngress) error {
	patch, err := json.Marshal(map[string]any{
		"status": map[string]any{"loadBalancer": map[string]any{"ingress": want}},
	})
	if err != nil {
		return err
	}
	ctx, cancel := context.WithTimeout(ctx, 10*time.Second)
	defer cancel()
	_, err = w.cs.NetworkingV1().Ingresses(ing.Namespace).Patch(ctx, ing.Name, types.MergePatchType, patch, metav1.PatchOptions{}, "status")
	if apierrors.IsNotFound(err) {
		// Deleted meanwhile: the next render no longer lists it.
		return nil
	}
	if err != nil {
		return fmt.Errorf("updating status of %s/%s: %w", ing.Namespace, ing.Name, err)
	}
	w.log.Debug().Str("ingress", ing.Name).Str("namespace", ing.Namespace).Msg("status updated")
	return nil
}
