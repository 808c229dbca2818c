package main

import (
	"time"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/collectors"
)

// metrics implements ingress.Observer with Prometheus collectors.
type metrics struct {
	registry   *prometheus.Registry
	sent       prometheus.Counter
	renders    prometheus.Histogram
	kinds      *prometheus.CounterVec
	translated prometheus.Counter
	refreshed  prometheus.Counter
	events     *prometheus.CounterVec
	lastSync   prometheus.Gauge
	objectErrs prometheus.Gauge
	encoded    prometheus.Counter
	denied     *prometheus.CounterVec
	evicted    prometheus.Counter
	// secretsPending and secretsFailed count the fetches of the data of
	// Secrets an Ingress newly names (ingress.SecretFetchObserver).
	secretsPending prometheus.Gauge
	secretsFailed  prometheus.Counter
	refused        prometheus.Counter // streams past serve.maxStreams
	stalled        prometheus.Counter // stream clients that took no frame in time
}

func newMetrics() *metrics {
	m := &metrics{
		registry: prometheus.NewRegistry(),
		sent: prometheus.NewCounter(prometheus.CounterOpts{
			Name: "sliceway_configurations_sent_total",
			Help: "Configurations sent because they differed from the previous one.",
		}),
		renders: prometheus.NewHistogram(prometheus.HistogramOpts{
			Name:    "sliceway_render_duration_seconds",
			Help:    "Time to render a configuration from the informer caches.",
			Buckets: prometheus.ExponentialBuckets(0.0005, 2, 16),
		}),
		kinds: prometheus.NewCounterVec(prometheus.CounterOpts{
			Name: "sliceway_renders_total",
			Help: "Renders by kind: full, incremental (only what depends on the changed objects), reassembled (incremental, all router names given again) or recovered (an incremental render failed and was done in full).",
		}, []string{"kind"}),
		translated: prometheus.NewCounter(prometheus.CounterOpts{
			Name: "sliceway_ingresses_translated_total",
			Help: "Ingresses translated by renders: in a full render every served one whose last part cannot be taken again, in an incremental one those that depend on the changed objects.",
		}),
		refreshed: prometheus.NewCounter(prometheus.CounterOpts{
			Name: "sliceway_load_balancers_refreshed_total",
			Help: "Load balancers rebuilt in place after a change of their Service, EndpointSlices or the Nodes, without translating the Ingresses that use them.",
		}),
		events: prometheus.NewCounterVec(prometheus.CounterOpts{
			Name: "sliceway_events_total",
			Help: "Informer events by kind; result is changed (rendered) or filtered (dropped by the change filter).",
		}, []string{"kind", "result"}),
		lastSync: prometheus.NewGauge(prometheus.GaugeOpts{
			Name: "sliceway_last_sync_timestamp_seconds",
			Help: "Unix time of the last render from synced caches.",
		}),
		objectErrs: prometheus.NewGauge(prometheus.GaugeOpts{
			Name: "sliceway_object_errors",
			Help: "Problems with individual objects found by the last render.",
		}),
		encoded: prometheus.NewCounter(prometheus.CounterOpts{
			Name: "sliceway_configurations_encoded_total",
			Help: "Configurations written as JSON for GET /api/config and its stream: each the first time it is read, once for all readers, so configurations that nobody read are never written.",
		}),
		denied: prometheus.NewCounterVec(prometheus.CounterOpts{
			Name: "sliceway_serve_requests_denied_total",
			Help: "Requests for /api/config and its stream refused for their credentials, by reason: no_certificate, bad_certificate, no_token, bad_token or token_file_unusable (serve.tokenFile is missing, unreadable or empty).",
		}, []string{"reason"}),
		evicted: prometheus.NewCounter(prometheus.CounterOpts{
			Name: "sliceway_serve_connections_evicted_total",
			Help: "Connections closed because serve.maxConnections were open (streams aside): the ones that had waited longest without a request, or the newcomer when all were busy.",
		}),
		refused: prometheus.NewCounter(prometheus.CounterOpts{
			Name: "sliceway_stream_requests_refused_total",
			Help: "Requests for /api/config/stream refused with 503 because serve.maxStreams streams were open.",
		}),
		secretsPending: prometheus.NewGauge(prometheus.GaugeOpts{
			Name: "sliceway_secret_fetches_pending",
			Help: "Secrets an Ingress newly names whose data is still being fetched (their certificates or credentials are pending).",
		}),
		secretsFailed: prometheus.NewCounter(prometheus.CounterOpts{
			Name: "sliceway_secret_fetch_failures_total",
			Help: "Fetches of a Secret's data that failed; each is retried, with a growing delay, until it succeeds.",
		}),
		stalled: prometheus.NewCounter(prometheus.CounterOpts{
			Name: "sliceway_stream_clients_dropped_total",
			Help: "Clients of /api/config/stream dropped because they took no frame within serve.writeTimeout: they stopped reading.",
		}),
	}
	m.registry.MustRegister(m.sent, m.renders, m.kinds, m.translated, m.refreshed, m.events, m.lastSync, m.objectErrs, m.encoded, m.denied, m.evicted,
		m.refused, m.stalled, m.secretsPending, m.secretsFailed,
		collectors.NewGoCollector(), collectors.NewProcessCollector(collectors.ProcessCollectorOpts{}))
	return m
}

func (m *metrics) Event(kind string, changed bool) {
	result := "filtered"
	if changed {
		result = "changed"
	}
	m.events.WithLabelValues(kind, result).Inc()
}

func (m *metrics) Rendered(at time.Time, took time.Duration, objectErrors int) {
	m.renders.Observe(took.Seconds())
	m.lastSync.Set(float64(at.UnixNano()) / 1e9)
	m.objectErrs.Set(float64(objectErrors))
}

// RenderedKind implements ingress.RenderKindObserver.
func (m *metrics) RenderedKind(kind string) { m.kinds.WithLabelValues(kind).Inc() }

// RenderedWork implements ingress.RenderWorkObserver.
func (m *metrics) RenderedWork(translated, refreshed int) {
	m.translated.Add(float64(translated))
	m.refreshed.Add(float64(refreshed))
}

func (m *metrics) Sent() { m.sent.Inc() }

// SecretFetch makes metrics an ingress.SecretFetchObserver.
func (m *metrics) SecretFetch(failed bool, pending int) {
	if failed {
		m.secretsFailed.Inc()
	}
	m.secretsPending.Set(float64(pending))
}

// countStreams exposes how many clients s has: a Traefik fed through the
// plugin is one, and its reconnects show as dips.
func (m *metrics) countStreams(s *streams) {
	m.registry.MustRegister(prometheus.NewGaugeFunc(prometheus.GaugeOpts{
		Name: "sliceway_stream_clients",
		Help: "Clients of /api/config/stream connected now.",
	}, s.clientCount))
}
