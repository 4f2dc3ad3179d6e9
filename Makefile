# The README's commands. CI (.ci/run) calls `make test`.
GO ?= go

.PHONY: build test check bench
build:
	$(GO) build -o bin/agentls ./cmd/agentls

# test: vet, then every test with the race detector.
test:
	$(GO) vet ./...
	$(GO) test -race -count=1 -timeout 30m ./...

bench:
	$(GO) test -run '^$$' -bench . -benchmem ./...
