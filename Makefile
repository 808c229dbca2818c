GO ?= go

.PHONY: run test test-unit check-traefik test-integration conformance controlplane demo build image fixtures-update bench bench-traefik lint fuzz

# Render the configuration of the bundled demo cluster (no cluster needed).
# Its stdout is the JSON alone (`make run | jq .`): the recipe is not echoed,
# and what it says about the build goes to stderr. SLICEWAY_BIN is the binary
# it builds and runs (and make build builds, and make demo runs).
SLICEWAY_BIN ?= bin/sliceway

# The version stamped into the binary (`sliceway version`, and the user
# agent of its requests to the API server): the tag, or the commit, as
# git describe says, with -dirty for uncommitted changes; dev outside a
# git checkout.
VERSION ?= $(shell git describe --tags --always --dirty 2>/dev/null || git rev-parse --short HEAD 2>/dev/null || echo dev)
SLICEWAY_LDFLAGS = -X github.com/sliceway/sliceway/provider/kubernetes/ingress.Version=$(VERSION)

run:
	@test -x $(SLICEWAY_BIN) || echo "make run: building $(SLICEWAY_BIN); the first build compiles client-go, which takes a minute or more" >&2
	@$(GO) build -ldflags="$(SLICEWAY_LDFLAGS)" -o $(SLICEWAY_BIN) ./cmd/sliceway
	@$(SLICEWAY_BIN) render --demo

# Every test: the unit tests, Traefik's own code on sliceway's output, then
# the integration suite.
test: test-unit check-traefik test-integration

# The unit tests, with the race detector, after the static checks (the
# provider's package takes minutes under the race detector, more on a
# busy machine: hence a timeout above go test's 10 minutes); then
# those of the Traefik plugin, a module of its own (standard library only),
# and of the image builder, another (it builds the image and runs the
# binary inside: about a minute once the build cache has the binary).
test-unit:
	@unformatted=$$(gofmt -l $$(git ls-files '*.go' 2>/dev/null || find . -name '*.go')); \
	  if [ -n "$$unformatted" ]; then echo "gofmt needed:"; echo "$$unformatted"; exit 1; fi
	$(GO) vet ./...
	$(GO) test -race -count=1 -timeout 30m ./...
	cd traefik-plugin && $(GO) vet ./... && $(GO) test -race -count=1 ./...
	cd tools/image && $(GO) vet ./... && $(GO) test -race -count=1 ./...

build:
	$(GO) build -ldflags="$(SLICEWAY_LDFLAGS)" -o $(SLICEWAY_BIN) ./cmd/sliceway

# sliceway's container image, built with no container engine by
# tools/image (a module of its own, on go-containerregistry): the static
# binary alone on an empty base, entrypoint /sliceway, run as the non-root
# user 65532:65532, labelled with the version and commit, every timestamp
# the commit's (the same commit gives the same digests). It writes
#   bin/sliceway-image.tar  the image of this machine's platform, tagged
#                           sliceway:$(IMAGE_VERSION) and sliceway:latest:
#                             docker load -i bin/sliceway-image.tar
#                             podman load -i bin/sliceway-image.tar
#                             crane push bin/sliceway-image.tar REGISTRY/sliceway:TAG
#   bin/sliceway-image/     an OCI image layout: the index of IMAGE_PLATFORMS,
#                             crane push bin/sliceway-image REGISTRY/sliceway:TAG
#                             skopeo copy --all oci:bin/sliceway-image:$(IMAGE_VERSION) docker://REGISTRY/sliceway:TAG
# Each platform's binary takes minutes to build the first time.
IMAGE_PLATFORMS ?= linux/amd64,linux/arm64
IMAGE_VERSION ?= $(VERSION)
IMAGE_REVISION ?= $(shell git rev-parse HEAD 2>/dev/null || echo unknown)
SOURCE_DATE_EPOCH ?= $(shell git log -1 --format=%ct 2>/dev/null || echo 0)

image:
	@echo "make image: building sliceway $(IMAGE_VERSION) for $(IMAGE_PLATFORMS) into bin/sliceway-image.tar and bin/sliceway-image/; each platform's first build takes minutes" >&2
	cd tools/image && $(GO) run . -go $(GO) -root $(CURDIR) -platforms $(IMAGE_PLATFORMS) \
	  -version $(IMAGE_VERSION) -revision $(IMAGE_REVISION) -created $(SOURCE_DATE_EPOCH) \
	  -tarball $(CURDIR)/bin/sliceway-image.tar -layout $(CURDIR)/bin/sliceway-image

# Rewrite fixtures/*/expected.yaml and errors.txt after a deliberate change.
fixtures-update:
	$(GO) test ./provider/kubernetes/ingress/ -run TestFixtures -count=1 -update

bench:
	$(GO) test -run '^$$' -bench . -benchmem ./...

# sliceway's configurations (the fixtures of both dialects, the demo, a
# generated cluster, the Ingress conformance cases, a running serve) given
# to Traefik's HTTP and file providers, certificate loader and router, and
# built by its server code (routers, middlewares, services, transports,
# TLS options), from its module (fetched and built once; about a minute
# afterwards). Then the end-to-end
# suite (e2e/traefik): requests through the real Traefik binary, polling
# a real `sliceway serve`, to echo backends on 127.0.0.1 (the binary takes
# minutes to build the first time; the suite, seconds).
check-traefik:
	bash tools/traefik-check/run
	bash tools/traefik-e2e/run

# Traefik's Kubernetes Ingress provider and sliceway's renders (cold and
# warm full, after one EndpointSlice change) on the same generated
# clusters, in turn, as a table and an SVG picture of time against cluster
# size; then what Traefik's HTTP and file providers spend reading
# sliceway's configurations (fetches Traefik's module; settings in
# tools/traefik-bench/run; see docs/performance.md).
bench-traefik:
	bash tools/traefik-bench/run

# golangci-lint with the one configuration, .golangci.yml (the linters it
# names, and gofmt), on every module in turn: the library, the Traefik
# plugin, the integration suite, the image builder and the kubectl
# builder. It stops at the first module with findings; their paths are
# from this directory. golangci-lint is built once, from its module at a
# pinned version (about two minutes; the module proxy is all it needs), into
# .cache/, a binary for each version and Go toolchain, and run from there.
# The integration suite and the kubectl builder compile pieces of
# Kubernetes: minutes on a cold build cache, seconds afterwards.
GOLANGCI_LINT_VERSION := v2.15.0
GOLANGCI_LINT = $(CURDIR)/.cache/golangci-lint/$(GOLANGCI_LINT_VERSION)-$(shell $(GO) env GOVERSION)/golangci-lint
LINT_MODULES := . traefik-plugin integration tools/image tools/kubectl
lint:
	@test -x $(GOLANGCI_LINT) || { \
	  echo "make lint: building golangci-lint $(GOLANGCI_LINT_VERSION) into $(GOLANGCI_LINT) (once: about two minutes)" >&2; \
	  GOBIN=$(dir $(GOLANGCI_LINT)) $(GO) install github.com/golangci/golangci-lint/v2/cmd/golangci-lint@$(GOLANGCI_LINT_VERSION); }
	@for m in $(LINT_MODULES); do \
	  echo "make lint: $$m" >&2; \
	  (cd $$m && $(GOLANGCI_LINT) run --config $(CURDIR)/.golangci.yml ./...) || exit 1; \
	done

# Every fuzz target for FUZZTIME each (go test -fuzztime syntax).
FUZZTIME ?= 30s
fuzz:
	bash .ci/fuzz $(FUZZTIME)

# The control-plane launcher of the integration suite (etcd, kube-apiserver,
# kube-controller-manager from k8s.io/kubernetes): minutes on a cold build
# cache, seconds afterwards.
CONTROLPLANE := $(CURDIR)/integration/.cache/bin/controlplane

# The version stamp is the one integration/main_test.go uses too.
CONTROLPLANE_LDFLAGS := -X k8s.io/component-base/version.gitVersion=v1.37.2 -X k8s.io/component-base/version.gitMajor=1 -X k8s.io/component-base/version.gitMinor=37

controlplane:
	cd integration && $(GO) build -ldflags="$(CONTROLPLANE_LDFLAGS)" -o $(CONTROLPLANE) ./cmd/controlplane

# kubectl, for machines without one (make demo's cluster, a real one): built
# from its Go module at the control plane's version, with the same version
# stamp, into bin/kubectl (tools/kubectl, a module of its own; a few minutes
# on a cold build cache).
.PHONY: kubectl
kubectl:
	@echo "make kubectl: building kubectl from its Go module into bin/kubectl; a few minutes on a cold build cache" >&2
	cd tools/kubectl && $(GO) build -ldflags="$(CONTROLPLANE_LDFLAGS)" -o $(CURDIR)/bin/kubectl .

# The integration suite against a real control plane (integration/, its own
# module). The launcher is built first so the build does not eat the timeout;
# the test packages are named, since ./... would also rebuild all of
# Kubernetes with the race detector for the commands, which have no tests.
# The tests that send requests through a real Traefik run the binary
# tools/traefik/binary builds (the one check-traefik's end-to-end suite
# built already; several minutes the first time otherwise).
test-integration: controlplane
	@unformatted=$$(cd integration && gofmt -l .); \
	  if [ -n "$$unformatted" ]; then echo "gofmt needed in integration/:"; echo "$$unformatted"; exit 1; fi
	cd integration && $(GO) vet ./...
	traefik=$$(bash tools/traefik/binary) && cd integration && SLICEWAY_CONTROLPLANE=$(CONTROLPLANE) SLICEWAY_TRAEFIK=$$traefik \
	  $(GO) test -race -count=1 -timeout 40m -v . ./controlplane ./cmd/devcluster

# The Gateway API conformance suite alone (TestGatewayAPIConformance: it
# runs as root, in a network namespace of its own, against real Traefik),
# its report written to docs/conformance/, which holds the committed one.
# make test-integration runs it too, and logs the report.
CONFORMANCE_REPORT ?= $(CURDIR)/docs/conformance/gateway-api-v1.6.3-report.yaml
conformance: controlplane
	traefik=$$(bash tools/traefik/binary) && cd integration && SLICEWAY_CONTROLPLANE=$(CONTROLPLANE) SLICEWAY_TRAEFIK=$$traefik \
	  SLICEWAY_CONFORMANCE_REPORT=$(CONFORMANCE_REPORT) $(GO) test -count=1 -timeout 40m -v -run '^TestGatewayAPIConformance$$' .

# A local control plane with the bundled demo cluster applied (or
# DEMO_MANIFESTS: comma-separated absolute paths of YAML files or
# directories), two echo servers on 127.0.0.1 behind Service echo/echo and
# host echo.demo.example, and `sliceway watch` following it; edit objects
# with KUBECONFIG=integration/.cache/demo/kubeconfig (make kubectl builds a
# kubectl). Ctrl-C stops it all. ARGS are more flags of `sliceway watch`,
# run in this directory: make demo ARGS='--output=/tmp/sliceway-demo.yaml
# --providers.kubernetesingress.terminatingendpoints=fence' (not
# ./sliceway.yaml, which the next start would take for its configuration
# file). The API server refuses loopback addresses in IPv4 and IPv6
# EndpointSlices, so the echo servers are FQDN slices of "127.0.0.1",
# which DEMO_FLAGS let sliceway use.
DEMO_MANIFESTS ?= $(CURDIR)/fixtures/demo/manifests.yaml
DEMO_BACKENDS ?= 2
DEMO_FLAGS ?= --providers.kubernetesingress.allowfqdnendpoints=true --providers.kubernetesingress.allowloopbackendpoints=true
ARGS ?=

# devcluster is built, then exec'd, not run with go run: go run exits 1
# when it sees the Ctrl-C that stops the demo, and a shell between make and
# devcluster dies of it, either of which makes make report an error.
DEVCLUSTER := $(CURDIR)/integration/.cache/bin/devcluster

# demo-notice comes first, so that the line is said before the builds.
demo: demo-notice controlplane build
	cd integration && $(GO) build -o $(DEVCLUSTER) ./cmd/devcluster && exec $(DEVCLUSTER) -controlplane $(CONTROLPLANE) \
	  -dir $(CURDIR)/integration/.cache/demo -manifests $(DEMO_MANIFESTS) \
	  -backends $(DEMO_BACKENDS) -chdir $(CURDIR) \
	  -- $(abspath $(SLICEWAY_BIN)) watch $(DEMO_FLAGS) $(ARGS)

# The same with the ingress-nginx provider beside the Traefik-style one,
# and fixtures/demo/nginx.yaml: an Ingress written for ingress-nginx
# (regular expression path, rewrite-target, CORS, limit-rps) in front of
# the same echo backends, host echo-nginx.demo.example.
DEMO_NGINX_MANIFESTS ?= $(DEMO_MANIFESTS),$(CURDIR)/fixtures/demo/nginx.yaml
DEMO_NGINX_FLAGS ?= $(DEMO_FLAGS) --providers.kubernetesingressnginx=true \
  --providers.kubernetesingressnginx.allowfqdnendpoints=true --providers.kubernetesingressnginx.allowloopbackendpoints=true

.PHONY: demo-nginx
demo-nginx:
	@$(MAKE) --no-print-directory demo DEMO_MANIFESTS='$(DEMO_NGINX_MANIFESTS)' DEMO_FLAGS='$(DEMO_NGINX_FLAGS)'

.PHONY: demo-notice
demo-notice:
	@echo "make demo: building the control plane (etcd, kube-apiserver, kube-controller-manager from k8s.io/kubernetes), sliceway and devcluster, then starting them; the first build takes several minutes" >&2
