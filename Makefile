# The README's commands. CI (.ci/run) calls `make test`.
GO ?= go

.PHONY: build install test bench bench-scale fuzz
build:
	$(GO) build -o bin/agentls ./cmd/agentls

# install: into $(go env GOBIN), else $(go env GOPATH)/bin.
install:
	$(GO) install ./cmd/agentls

# test: vet, a macOS cross-build, every test with the race detector, then the grep/ripgrep
# parity check, which reads all of GOROOT/src and so runs alone, without -race. Both test runs
# go through internal/testsummary (go test -json): the output is go test's (package results,
# the whole output of every failed test), and it ends with every skipped test and its reason,
# then the failed tests; the exit status is go test's.
test:
	$(GO) vet ./...
	GOOS=darwin $(GO) build ./...   # the README promises macOS builds
	GO=$(GO) $(GO) run ./internal/testsummary -race -count=1 -timeout 30m -skip '^TestGrepVsRipgrep$$' ./... \
		--- -count=1 -run 'TestGrepVsRipgrep' -v ./tools

# bench-scale: issue 30's scale benchmark on N copies of GOROOT/src (5:
# about 57k files, several GB of temporary disk, removed afterwards): the
# run's check path and grep against rg (tools), then `agentls serve`'s
# initialize, RSS and watcher start (lspserver), one package at a time;
# not part of bench or CI.
bench-scale:
	AGENTLS_BENCH_SCALE=$${AGENTLS_BENCH_SCALE:-5} $(GO) test -p 1 -run '^$$' -bench '^BenchmarkScale(Serve)?$$' -benchtime 1x -timeout 30m -v ./tools ./lspserver

bench:
	$(GO) test -run '^$$' -bench . -benchmem ./...

# fuzz: each fuzz target for a bounded number of inputs, starting from its
# committed corpus (testdata/fuzz/<target>); CI runs it after the tests.
# The budgets are counts, not durations: with a duration, Go 1.26's fuzz
# coordinator can report its own deadline as a failure when a loaded
# machine starves a worker at the end (golang/go#75804, fixed in Go 1.27;
# it failed a fresh CI run here). Each count is about 12 s of 2 loaded
# cores, measured per target, so the ten keep CI's fuzzing near 2 minutes.
# FUZZTIME=30s (or 1000x) gives every target the same budget instead.
FUZZTIME ?=
fuzzbudget = $(if $(FUZZTIME),$(FUZZTIME),$(1))
fuzz:
	$(GO) test -run '^$$' -fuzz '^FuzzEditLadder$$' -fuzztime $(call fuzzbudget,100000x) ./tools/editmatch
	$(GO) test -run '^$$' -fuzz '^FuzzLineDFA$$' -fuzztime $(call fuzzbudget,300000x) ./tools/grepengine
	$(GO) test -run '^$$' -fuzz '^FuzzRoundTrip$$' -fuzztime $(call fuzzbudget,60000x) ./internal/text
	$(GO) test -run '^$$' -fuzz '^FuzzDiff$$' -fuzztime $(call fuzzbudget,150000x) ./tools
	$(GO) test -run '^$$' -fuzz '^FuzzStore$$' -fuzztime $(call fuzzbudget,200000x) ./agent/proposal
	$(GO) test -run '^$$' -fuzz '^FuzzServe$$' -fuzztime $(call fuzzbudget,80000x) ./lspserver
	$(GO) test -run '^$$' -fuzz '^FuzzWireFrames$$' -fuzztime $(call fuzzbudget,400000x) ./internal/rpcwire
	$(GO) test -run '^$$' -fuzz '^FuzzParamDecoders$$' -fuzztime $(call fuzzbudget,50000x) ./lspserver
	$(GO) test -run '^$$' -fuzz '^FuzzTextSync$$' -fuzztime $(call fuzzbudget,15000x) ./lspserver
	$(GO) test -run '^$$' -fuzz '^FuzzScan$$' -fuzztime $(call fuzzbudget,250000x) ./agent/aicomment
