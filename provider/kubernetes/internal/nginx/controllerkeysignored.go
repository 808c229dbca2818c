package nginx

// ignored is the parser of a key that has no effect here, why saying
// what does its job with Traefik, or why none is needed.
func ignored(why string) func(string, *Controller) error {
	return func(string, *Controller) error { return ignoredKey(why) }
}

// The reasons several keys share.
const (
	whyNginxTuning   = "nginx's worker tuning; Traefik's Go runtime has none"
	whyNginxTables   = "sizes nginx's internal hash tables; Traefik has none to size"
	whyAccessLog     = "Traefik's accessLog (static configuration)"
	whyTraefikLog    = "Traefik's log (static configuration)"
	whySyslog        = "Traefik logs to its output or a file (static configuration): the cluster's log collector ships them"
	whyTracing       = "Traefik's tracing, OpenTelemetry only (static configuration)"
	whyTLSVersions   = "Traefik's TLS options (minVersion, cipherSuites) of its default TLS option, in its dynamic configuration"
	whyTLSSessions   = "Go's TLS resumes sessions with tickets whose keys it rotates itself"
	whyHeaderSize    = "Traefik's entryPoints http.maxHeaderBytes (static configuration)"
	whyClientTimeout = "Traefik's entryPoints transport.respondingTimeouts.readTimeout (static configuration)"
	whyProxyProtocol = "Traefik's entryPoints proxyProtocol.trustedIPs (static configuration)"
	whyForwarded     = "Traefik's entryPoints forwardedHeaders.trustedIPs decide which X-Forwarded-* headers are trusted (static configuration)"
	whyCompression   = "Traefik's compress middleware, which sliceway does not add (on every router: entryPoints http.middlewares)"
	whyBuffers       = "nginx's buffers; Traefik streams bodies (proxy-body-size gives a buffering middleware)"
	whyKeepalive     = "Traefik's serversTransport maxIdleConnsPerHost and forwardingTimeouts.idleConnTimeout (static configuration)"
	whyRetries       = "a failed request is not retried on another server: sliceway adds no retry middleware"
	whyStream        = "ingress-nginx's TCP and UDP services, which sliceway does not serve: use Traefik's TCP and UDP routers"
	whyOtherConfig   = "names another ConfigMap, which sliceway may not read (its RBAC grants one ConfigMap): use a headers middleware (on every router: entryPoints http.middlewares)"
	whyGeoIP         = "Traefik has no GeoIP database; nginx used it only in variables of log formats and snippets"
	whyStatusPage    = "guards nginx's status page; Traefik's API and metrics have entry points of their own (static configuration)"
	whyAuthCache     = "Traefik caches no answer of the auth service: every request asks it"
)

// ignoredKeys are the ConfigMap keys that have no effect here: nginx's
// own tuning, or what Traefik's static configuration decides.
func ignoredKeys() []controllerKey {
	return []controllerKey{
		// Which annotations Ingresses may use.
		{name: "allow-snippet-annotations", parse: ignored("snippet annotations are always refused by sliceway: their Ingress is closed, or served without them with dropSnippets")},
		{name: "annotations-risk-level", parse: ignored("sliceway has no risk levels: it translates the annotations it knows, checks each value, and refuses the others (snippets close their Ingress)")},
		{name: "annotation-value-word-blocklist", parse: ignored("it keeps nginx directives out of annotation values; sliceway writes no nginx configuration and refuses values it cannot translate, nginx variables among them")},
		{name: "allow-cross-namespace-resources", parse: ignored("sliceway's allowCrossNamespaceSecrets option decides whether an annotation may name a Secret of another namespace")},
		{name: "global-allowed-response-headers", parse: ignored("it limits the custom-headers annotation, which sliceway refuses")},

		// Logs.
		{name: "access-log-params", parse: ignored(whyAccessLog)},
		{name: "access-log-path", parse: ignored(whyAccessLog)},
		{name: "http-access-log-path", parse: ignored(whyAccessLog)},
		{name: "stream-access-log-path", parse: ignored(whyAccessLog)},
		{name: "enable-access-log-for-default-backend", parse: ignored(whyAccessLog)},
		{name: "disable-access-log", parse: ignored(whyAccessLog)},
		{name: "skip-access-log-urls", parse: ignored(whyAccessLog)},
		{name: "log-format-escape-none", parse: ignored(whyAccessLog)},
		{name: "log-format-escape-json", parse: ignored(whyAccessLog)},
		{name: "log-format-upstream", parse: ignored(whyAccessLog)},
		{name: "log-format-stream", parse: ignored(whyAccessLog)},
		{name: "error-log-path", parse: ignored(whyTraefikLog)},
		{name: "error-log-level", parse: ignored(whyTraefikLog)},
		{name: "debug-connections", parse: ignored(whyTraefikLog)},
		{name: "enable-syslog", parse: ignored(whySyslog)},
		{name: "syslog-host", parse: ignored(whySyslog)},
		{name: "syslog-port", parse: ignored(whySyslog)},

		// Tracing.
		{name: "enable-opentelemetry", parse: ignored(whyTracing)},
		{name: "opentelemetry-trust-incoming-span", parse: ignored(whyTracing)},
		{name: "opentelemetry-operation-name", parse: ignored(whyTracing)},
		{name: "opentelemetry-config", parse: ignored(whyTracing)},
		{name: "otlp-collector-host", parse: ignored(whyTracing)},
		{name: "otlp-collector-port", parse: ignored(whyTracing)},
		{name: "otel-max-queuesize", parse: ignored(whyTracing)},
		{name: "otel-schedule-delay-millis", parse: ignored(whyTracing)},
		{name: "otel-max-export-batch-size", parse: ignored(whyTracing)},
		{name: "otel-service-name", parse: ignored(whyTracing)},
		{name: "otel-sampler", parse: ignored(whyTracing)},
		{name: "otel-sampler-parent-based", parse: ignored(whyTracing)},
		{name: "otel-sampler-ratio", parse: ignored(whyTracing)},
		{name: "jaeger-collector-host", parse: ignored(whyTracing)},
		{name: "jaeger-collector-port", parse: ignored(whyTracing)},
		{name: "jaeger-endpoint", parse: ignored(whyTracing)},
		{name: "jaeger-service-name", parse: ignored(whyTracing)},
		{name: "jaeger-propagation-format", parse: ignored(whyTracing)},
		{name: "jaeger-sampler-type", parse: ignored(whyTracing)},
		{name: "jaeger-sampler-param", parse: ignored(whyTracing)},
		{name: "jaeger-sampler-host", parse: ignored(whyTracing)},
		{name: "jaeger-sampler-port", parse: ignored(whyTracing)},
		{name: "jaeger-trace-context-header-name", parse: ignored(whyTracing)},
		{name: "jaeger-debug-header", parse: ignored(whyTracing)},
		{name: "jaeger-baggage-header", parse: ignored(whyTracing)},
		{name: "jaeger-trace-baggage-header-prefix", parse: ignored(whyTracing)},

		// nginx's processes, tables and reloads.
		{name: "worker-processes", parse: ignored(whyNginxTuning)},
		{name: "worker-cpu-affinity", parse: ignored(whyNginxTuning)},
		{name: "enable-multi-accept", parse: ignored(whyNginxTuning)},
		{name: "max-worker-connections", parse: ignored(whyNginxTuning)},
		{name: "max-worker-open-files", parse: ignored(whyNginxTuning)},
		{name: "enable-aio-write", parse: ignored(whyNginxTuning)},
		{name: "lua-shared-dicts", parse: ignored("sizes the memory of ingress-nginx's Lua code; Traefik runs none")},
		{name: "map-hash-bucket-size", parse: ignored(whyNginxTables)},
		{name: "server-name-hash-max-size", parse: ignored(whyNginxTables)},
		{name: "server-name-hash-bucket-size", parse: ignored(whyNginxTables)},
		{name: "proxy-headers-hash-max-size", parse: ignored(whyNginxTables)},
		{name: "proxy-headers-hash-bucket-size", parse: ignored(whyNginxTables)},
		{name: "variables-hash-bucket-size", parse: ignored(whyNginxTables)},
		{name: "variables-hash-max-size", parse: ignored(whyNginxTables)},
		{name: "enable-serial-reloads", parse: ignored("Traefik takes new configuration without reloading a process")},
		{name: "worker-shutdown-timeout", parse: ignored("Traefik's entryPoints transport.lifeCycle.graceTimeOut (static configuration)")},
		{name: "default-type", parse: ignored("the Content-Type of what nginx serves itself; Traefik passes the backend's")},

		// Listening: Traefik's entry points.
		{name: "bind-address", parse: ignored("Traefik's entryPoints address (static configuration)")},
		{name: "disable-ipv6", parse: ignored("Traefik's entryPoints address (static configuration)")},
		{name: "disable-ipv6-dns", parse: ignored("nginx's own resolver; Traefik asks the pod's resolver")},
		{name: "reuse-port", parse: ignored("Traefik's entryPoints reusePort (static configuration)")},
		{name: "use-http2", parse: ignored("Traefik offers HTTP/2 over TLS; a TLS option's alpnProtocols can leave it out (dynamic configuration)")},
		{name: "http2-max-concurrent-streams", parse: ignored("Traefik's entryPoints http2.maxConcurrentStreams (static configuration)")},
		{name: "http2-max-field-size", parse: ignored(whyHeaderSize)},
		{name: "http2-max-header-size", parse: ignored(whyHeaderSize)},
		{name: "client-header-buffer-size", parse: ignored(whyHeaderSize)},
		{name: "large-client-header-buffers", parse: ignored(whyHeaderSize)},
		{name: "http2-max-requests", parse: ignored("Traefik's entryPoints transport.keepAliveMaxRequests (static configuration)")},
		{name: "keep-alive-requests", parse: ignored("Traefik's entryPoints transport.keepAliveMaxRequests (static configuration)")},
		{name: "keep-alive", parse: ignored("Traefik's entryPoints transport.respondingTimeouts.idleTimeout (static configuration)")},
		{name: "client-header-timeout", parse: ignored(whyClientTimeout)},
		{name: "client-body-timeout", parse: ignored(whyClientTimeout)},
		{name: "enable-underscores-in-headers", parse: ignored("Traefik's entryPoints http.aliasHeadersStrategy (static configuration); Traefik keeps such headers unless told to delete them")},
		{name: "ignore-invalid-headers", parse: ignored("Go's HTTP server refuses requests with malformed header names itself")},

		// The client's address, and forwarded headers.
		{name: "use-forwarded-headers", parse: ignored(whyForwarded)},
		{name: "enable-real-ip", parse: ignored(whyForwarded)},
		{name: "proxy-real-ip-cidr", parse: ignored(whyForwarded)},
		{name: "forwarded-for-header", parse: ignored(whyForwarded)},
		{name: "compute-full-forwarded-for", parse: ignored(whyForwarded)},
		{name: "use-proxy-protocol", parse: ignored(whyProxyProtocol)},
		{name: "proxy-protocol-header-timeout", parse: ignored(whyProxyProtocol)},
		{name: "forwarded-for-proxy-protocol-header", parse: ignored(whyProxyProtocol)},
		{name: "proxy-add-original-uri-header", parse: ignored("Traefik sends no X-Original-Uri header, and no middleware adds one")},
		{name: "generate-request-id", parse: ignored("Traefik sends no X-Request-ID header, and no middleware generates one")},

		// TLS.
		{name: "ssl-protocols", parse: ignored(whyTLSVersions)},
		{name: "ssl-ciphers", parse: ignored(whyTLSVersions)},
		{name: "ssl-ecdh-curve", parse: ignored("Traefik's TLS options (curvePreferences) of its default TLS option, in its dynamic configuration")},
		{name: "ssl-dh-param", parse: ignored("Go's TLS has no finite-field Diffie-Hellman suites, so needs no parameters")},
		{name: "ssl-session-cache", parse: ignored(whyTLSSessions)},
		{name: "ssl-session-cache-size", parse: ignored(whyTLSSessions)},
		{name: "ssl-session-tickets", parse: ignored(whyTLSSessions)},
		{name: "ssl-session-ticket-key", parse: ignored(whyTLSSessions)},
		{name: "ssl-session-timeout", parse: ignored(whyTLSSessions)},
		{name: "ssl-buffer-size", parse: ignored("Go's TLS sizes its records itself")},
		{name: "ssl-early-data", parse: ignored("Go's TLS accepts no 0-RTT early data")},
		{name: "enable-ocsp", parse: ignored("Traefik's ocsp option (static configuration) staples OCSP answers")},
		{name: "ssl-reject-handshake", parse: ignored("Traefik's TLS option sniStrict refuses handshakes for names without a certificate (dynamic configuration)")},
		{name: "proxy-ssl-location-only", parse: ignored("sliceway's proxy-ssl-* annotations give each Ingress a servers transport: there is nothing server-wide")},

		// Redirects.
		{name: "http-redirect-code", parse: ignored("Traefik's redirectScheme answers 301 to GET and 308 to other methods")},
		{name: "no-tls-redirect-locations", parse: ignored("no path is left out of the https redirect: an Ingress that must answer plain http says ssl-redirect \"false\" (ACME's HTTP-01 check follows the redirect)")},
		{name: "relative-redirects", parse: ignored("Traefik's redirect middlewares write absolute URLs")},

		// Headers added or removed.
		{name: "add-headers", parse: ignored(whyOtherConfig)},
		{name: "proxy-set-headers", parse: ignored(whyOtherConfig)},
		{name: "hide-headers", parse: ignored("Traefik passes the backend's headers; a headers middleware removes one (an empty customResponseHeaders value; on every router: entryPoints http.middlewares)")},
		{name: "allow-backend-server-header", parse: ignored("Traefik passes the backend's Server header (nginx drops it unless this is true)")},
		{name: "server-tokens", parse: ignored("Traefik adds no Server header of its own")},

		// Compression.
		{name: "use-gzip", parse: ignored(whyCompression)},
		{name: "gzip-disable", parse: ignored(whyCompression)},
		{name: "gzip-level", parse: ignored(whyCompression)},
		{name: "gzip-min-length", parse: ignored(whyCompression)},
		{name: "gzip-types", parse: ignored(whyCompression)},
		{name: "enable-brotli", parse: ignored(whyCompression)},
		{name: "brotli-level", parse: ignored(whyCompression)},
		{name: "brotli-min-length", parse: ignored(whyCompression)},
		{name: "brotli-types", parse: ignored(whyCompression)},

		// Buffering of bodies.
		{name: "client-body-buffer-size", parse: ignored(whyBuffers)},
		{name: "proxy-buffers-number", parse: ignored(whyBuffers)},
		{name: "proxy-buffer-size", parse: ignored(whyBuffers)},
		{name: "proxy-busy-buffers-size", parse: ignored(whyBuffers)},
		{name: "proxy-buffering", parse: ignored(whyBuffers)},
		{name: "proxy-request-buffering", parse: ignored(whyBuffers)},
		{name: "grpc-buffer-size-kb", parse: ignored(whyBuffers)},

		// Backends.
		{name: "upstream-keepalive-connections", parse: ignored(whyKeepalive)},
		{name: "upstream-keepalive-time", parse: ignored(whyKeepalive)},
		{name: "upstream-keepalive-timeout", parse: ignored(whyKeepalive)},
		{name: "upstream-keepalive-requests", parse: ignored(whyKeepalive)},
		{name: "load-balance", parse: ignored("Traefik's load balancer is weighted round robin")},
		{name: "service-upstream", parse: ignored("paths reach the Service's endpoints unless their Ingress says service-upstream \"true\": set the annotation")},
		{name: "proxy-next-upstream", parse: ignored(whyRetries)},
		{name: "proxy-next-upstream-timeout", parse: ignored(whyRetries)},
		{name: "proxy-next-upstream-tries", parse: ignored(whyRetries)},
		{name: "retry-non-idempotent", parse: ignored(whyRetries)},
		{name: "proxy-cookie-path", parse: ignored("Traefik rewrites no cookie of the backend's answer")},
		{name: "proxy-cookie-domain", parse: ignored("Traefik rewrites no cookie of the backend's answer")},
		{name: "proxy-redirect-from", parse: ignored("Traefik rewrites no Location header of the backend's answer")},

		// Limits.
		{name: "limit-rate", parse: ignored("Traefik has no bandwidth limit among its public middlewares")},
		{name: "limit-rate-after", parse: ignored("Traefik has no bandwidth limit among its public middlewares")},
		{name: "limit-req-status-code", parse: ignored("Traefik's rateLimit answers 429")},
		{name: "limit-conn-status-code", parse: ignored("Traefik's inFlightReq answers 429")},
		{name: "limit-conn-zone-variable", parse: ignored("limit-connections counts per client address (inFlightReq's sourceCriterion)")},

		// TCP and UDP services.
		{name: "proxy-stream-timeout", parse: ignored(whyStream)},
		{name: "proxy-stream-next-upstream", parse: ignored(whyStream)},
		{name: "proxy-stream-next-upstream-timeout", parse: ignored(whyStream)},
		{name: "proxy-stream-next-upstream-tries", parse: ignored(whyStream)},
		{name: "proxy-stream-responses", parse: ignored(whyStream)},

		// nginx's status page, GeoIP.
		{name: "nginx-status-ipv4-whitelist", parse: ignored(whyStatusPage)},
		{name: "nginx-status-ipv6-whitelist", parse: ignored(whyStatusPage)},
		{name: "use-geoip", parse: ignored(whyGeoIP)},
		{name: "use-geoip2", parse: ignored(whyGeoIP)},
		{name: "geoip2-autoreload-in-minutes", parse: ignored(whyGeoIP)},

		// The global authentication's tuning (global-auth-url is applied).
		{name: "global-auth-signin-redirect-param", parse: ignored("Traefik redirects to global-auth-signin as given, without the original URL, so there is no parameter to name")},
		{name: "global-auth-cache-key", parse: ignored(whyAuthCache)},
		{name: "global-auth-cache-duration", parse: ignored(whyAuthCache)},
		{name: "global-auth-always-set-cookie", parse: ignored("no cookie of the auth service's answer reaches the client: Traefik's forwardAuth passes only the cookies it is told to name")},
	}
}
