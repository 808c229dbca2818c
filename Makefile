GO ?= go

.PHONY: run test build fixtures-update bench

# Render the configuration of the bundled demo cluster (no cluster needed).
run:
	$(GO) run ./cmd/sliceway render --demo

# Every test, with the race detector, after the static checks.
test:
	@unformatted=$$(gofmt -l $$(git ls-files '*.go' 2>/dev/null || find . -name '*.go')); \
	  if [ -n "$$unformatted" ]; then echo "gofmt needed:"; echo "$$unformatted"; exit 1; fi
	$(GO) vet ./...
	$(GO) test -race -count=1 ./...

build:
	$(GO) build -o bin/sliceway ./cmd/sliceway

# Rewrite fixtures/*/expected.yaml and errors.txt after a deliberate change.
fixtures-update:
	$(GO) test ./provider/kubernetes/ingress/ -run TestFixtures -count=1 -update

bench:
	$(GO) test -run '^$$' -bench . -benchmem ./...
