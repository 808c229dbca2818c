package ingress

import (
	"context"
	"errors"
	"fmt"
	"os"
	"strings"
	"time"

	"github.com/rs/zerolog"
	netv1 "k8s.io/api/networking/v1"
	"k8s.io/client-go/kubernetes"

	"github.com/sliceway/sliceway/config/dynamic"
	"github.com/sliceway/sliceway/provider"
)

// ProviderName is the name the provider gives its messages.
const ProviderName = "kubernetes"

var _ provider.Provider = (*Provider)(nil)

// Observer is told what the provider does, for metrics. Every method must
// be cheap and safe for concurrent use.
type Observer interface {
	// Event is called for every informer event; changed is false for an
	// update dropped by the change filter.
	Event(kind string, changed bool)
	// Rendered is called after each render from synced caches.
	Rendered(at time.Time, took time.Duration, objectErrors int)
	// Sent is called when a new configuration is handed to the reader.
	Sent()
}

// RenderKindObserver is told how each render went, when the Observer also
// implements it: "full" (everything translated), "incremental" (only what
// depends on the changed objects), "reassembled" (incremental, but all
// router names given again because some depend on order) or "recovered"
// (an incremental render failed, a bug, and was done in full).
type RenderKindObserver interface {
	RenderedKind(kind string)
}

// RenderWorkObserver is told, after each render, how much it did, when
// the Observer also implements it: translated is how many Ingresses it
// translated (all served ones in a full render, only those that depend on
// the changed objects in an incremental one), refreshed how many load
// balancers it rebuilt in place after a change of their Service,
// EndpointSlices or the Nodes, without translating the Ingresses that use
// them. A busy cluster whose renders translate few Ingresses and refresh
// many load balancers is what incremental rendering is for.
type RenderWorkObserver interface {
	RenderedWork(translated, refreshed int)
}

// SecretFetchObserver is told of each fetch of a Secret's data that an
// Ingress newly names (the cache drops the data of Secrets no Ingress
// names), when the Observer also implements it: whether the fetch failed
// (it is retried, with a growing delay, until it succeeds), and how many
// Secrets still wait for their data.
type SecretFetchObserver interface {
	SecretFetch(failed bool, pending int)
}

type nopObserver struct{}

func (nopObserver) Event(string, bool)                     {}
func (nopObserver) Rendered(time.Time, time.Duration, int) {}
func (nopObserver) Sent()                                  {}

// SetClientset makes the provider read this clientset instead of connecting
// to the configured cluster (an in-memory cluster, or a client built by the
// embedding program). Call it before Provide.
func (p *Provider) SetClientset(cs kubernetes.Interface) { p.clientset = cs }

// SetLogger sets the logger; the default logs nothing.
func (p *Provider) SetLogger(l zerolog.Logger) { p.logger = l; p.hasLogger = true }

// SetObserver sets the observer of events and renders (metrics).
func (p *Provider) SetObserver(o Observer) { p.observer = o }

// Init validates the options. It does not connect. Provide calls it too.
func (p *Provider) Init() error {
	if err := p.Validate(); err != nil {
		return err
	}
	if !p.hasLogger {
		p.logger = zerolog.Nop()
	}
	if p.Topology == nil || p.Topology.Node == "" {
		p.nodeName = os.Getenv("NODE_NAME")
	}
	if p.observer == nil {
		p.observer = nopObserver{}
	}
	return nil
}

// Provide watches the cluster and sends a configuration on out once the
// caches are synced, then again each time the configuration changes. Bursts
// of changes are coalesced into one render, and renders are at least
// throttleDuration apart. It keeps retrying (with backoff) while the cluster
// cannot be reached or listed, and returns nil once ctx is done.
func (p *Provider) Provide(ctx context.Context, out chan<- dynamic.Message) error {
	if err := p.Init(); err != nil {
		return err
	}
	cs := p.clientset
	if cs == nil {
		var err error
		if cs, err = p.NewClientset(); err != nil {
			return fmt.Errorf("connecting to the cluster: %w", err)
		}
	}
	name := dialectOf(p).name()
	log := p.logger.With().Str("provider", name).Logger()

	pending := make(chan struct{}, 1)
	changes := &Changes{}
	client, err := NewClient(cs, ClientOptions{
		Namespaces:    p.Namespaces,
		LabelSelector: p.LabelSelector,
		Provider:      p,
		OnChange:      changes.Record,
		OnDenied:      func(d AccessDenied) { LogAccessDenied(log, d) },
		OnMissing:     func(m MissingResource) { LogMissingResource(log, m) },
		Gateway:       p.gatewayClient,
		OnSecretFetch: p.secretFetched(log, func() {
			select {
			case pending <- struct{}{}:
			default:
			}
		}),
		Notify: func(kind string, changed bool) {
			p.observer.Event(kind, changed)
			if changed {
				select {
				case pending <- struct{}{}:
				default:
				}
			}
		},
	})
	if err != nil {
		return err
	}
	ctx, cancel := context.WithCancel(ctx)
	// Cancel first, then wait for the informers, so that no goroutine
	// outlives Provide.
	defer client.Shutdown()
	defer cancel()
	client.Start(ctx)

	if !p.waitForCaches(ctx, client, log) {
		return nil
	}
	log.Info().Msg("caches synced")

	var status *statusWriter
	// The Gateway API provider writes the status of its objects whatever
	// ingressEndpoint says (that is the Gateways' address); the Ingress
	// providers write their Ingresses' with one.
	if p.IsGateway() || p.IngressEndpoint != nil {
		status = newStatusWriter(p, cs, log)
		if p.IsGateway() {
			status.gateway = newGatewayStatus(p, client, log)
			status.gateway.retry = status.poke
		}
		stopped := make(chan struct{})
		go func() {
			defer close(stopped)
			status.run(ctx)
		}()
		defer func() { <-stopped }()
		defer cancel()
	}

	r := liveRender{p: p, client: client, log: log, engine: NewRenderer(p), changes: changes}
	sent := false
	var served []*netv1.Ingress // the list the status writer has
	throttle := time.Duration(p.ThrottleDuration)
	// The initial adds are all in the caches now; a change that arrives
	// during a render is rendered again after it.
	select {
	case <-pending:
	default:
	}
	for {
		res, changed := r.render(ctx)
		if res != nil {
			// The renderer hands out the same list while the served
			// Ingresses do not change: no status pass for a slice change.
			if status != nil && status.gateway != nil {
				status.gateway.update(outcomeOf(res))
				status.poke()
			} else if status != nil && (served == nil || !sameList(served, res.Ingresses)) {
				served = res.Ingresses
				status.update(res.Ingresses)
			}
			if !sent || changed {
				select {
				case out <- dynamic.Message{ProviderName: name, Configuration: res.Configuration, TLSHostOwners: res.TLSHostOwners}:
					sent = true
					p.observer.Sent()
				case <-ctx.Done():
					return nil
				}
			}
		}
		if throttle > 0 && !sleep(ctx, throttle) {
			return nil
		}
		select {
		case <-pending:
		case <-ctx.Done():
			return nil
		}
	}
}

// waitForCaches waits for the informers, logging what does not sync and
// why, with a growing pause between reports, until they sync or ctx is done.
func (p *Provider) waitForCaches(ctx context.Context, client *Client, log zerolog.Logger) bool {
	timeout := time.Duration(p.SyncTimeout)
	for attempt := 0; ; attempt++ {
		err := client.WaitForSync(ctx, timeout)
		if ctx.Err() != nil {
			return false
		}
		if err == nil {
			return true
		}
		log.Error().Err(err).Msg("the informer caches are not synced; still trying")
		if timeout < 5*time.Minute {
			timeout *= 2
		}
	}
}

// LogObjectError logs one translation problem: the object and the field in
// structured fields (ingress, service, namespace, field, ...), and what is
// wrong as the message, which does not repeat them: a line says each once.
func LogObjectError(log zerolog.Logger, e *ObjectError) {
	ev := log.Error()
	if e.Severity == SeverityWarning {
		ev = log.Warn()
	}
	ev = ev.Str(lowerKind(e.Kind), e.Name)
	if e.Namespace != "" {
		ev = ev.Str("namespace", e.Namespace)
	}
	if e.Field != "" {
		ev = ev.Str("field", e.Field)
	}
	var tp *TranslationPanic
	if errors.As(e.Err, &tp) {
		ev = ev.Str("stack", string(tp.Stack))
	}
	if e.Err == nil {
		ev.Msg(e.Error())
		return
	}
	ev.Msg(e.Err.Error())
}

func lowerKind(kind string) string {
	switch kind {
	case "EndpointSlice":
		return "endpointslice"
	case "IngressClass":
		return "ingressclass"
	case "ConfigMap":
		return "configmap"
	}
	b := []byte(kind)
	if len(b) > 0 && b[0] >= 'A' && b[0] <= 'Z' {
		b[0] += 'a' - 'A'
	}
	return string(b)
}

// sameList says whether a and b are the same list (not only equal ones).
func sameList[T any](a, b []T) bool {
	return len(a) == len(b) && (len(a) == 0 || &a[0] == &b[0])
}

// sleep waits d or until ctx is done; it says whether d passed.
func sleep(ctx context.Context, d time.Duration) bool {
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-t.C:
		return true
	case <-ctx.Done():
		return false
	}
}

// secretFetched renders (render) after a fetch of a Secret's data, logs
// a failed one (it is retried, so at most once per retry delay), and
// tells the observer, when it is a SecretFetchObserver.
func (p *Provider) secretFetched(log zerolog.Logger, render func()) func(key string, err error, pending int) {
	o, _ := p.observer.(SecretFetchObserver)
	return func(key string, err error, pending int) {
		if err == nil {
			render()
		} else {
			ns, name, _ := strings.Cut(key, "/")
			log.Warn().Err(err).Str("secret", name).Str("namespace", ns).Int("pending", pending).
				Msg("cannot fetch the data of a Secret an Ingress names; retrying (its certificate or credentials are pending)")
		}
		if o != nil {
			o.SecretFetch(err != nil, pending)
		}
	}
}
