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

# fuzz: each fuzz target for a bounded time, starting from its committed
# corpus (testdata/fuzz/<target>); CI runs it after the tests. Ten targets
# at 15 s keep CI's fuzzing at about 2.5 minutes of 2 cores.
FUZZTIME ?= 15s
fuzz:
	$(GO) test -run '^$$' -fuzz '^FuzzEditLadder$$' -fuzztime $(FUZZTIME) ./tools/editmatch
	$(GO) test -run '^$$' -fuzz '^FuzzLineDFA$$' -fuzztime $(FUZZTIME) ./tools/grepengine
	$(GO) test -run '^$$' -fuzz '^FuzzRoundTrip$$' -fuzztime $(FUZZTIME) ./internal/text
	$(GO) test -run '^$$' -fuzz '^FuzzDiff$$' -fuzztime $(FUZZTIME) ./tools
	$(GO) test -run '^$$' -fuzz '^FuzzStore$$' -fuzztime $(FUZZTIME) ./agent/proposal
	$(GO) test -run '^$$' -fuzz '^FuzzServe$$' -fuzztime $(FUZZTIME) ./lspserver
	$(GO) test -run '^$$' -fuzz '^FuzzWireFrames$$' -fuzztime $(FUZZTIME) ./internal/rpcwire
	$(GO) test -run '^$$' -fuzz '^FuzzParamDecoders$$' -fuzztime $(FUZZTIME) ./lspserver
	$(GO) test -run '^$$' -fuzz '^FuzzTextSync$$' -fuzztime $(FUZZTIME) ./lspserver
	$(GO) test -run '^$$' -fuzz '^FuzzScan$$' -fuzztime $(FUZZTIME) ./agent/aicomment
