# The README's commands. CI (.ci/run) calls `make test`.
GO ?= go

.PHONY: build install test bench fuzz
build:
	$(GO) build -o bin/agentls ./cmd/agentls

# install: into $(go env GOBIN), else $(go env GOPATH)/bin.
install:
	$(GO) install ./cmd/agentls

# test: vet, a macOS cross-build, every test with the race detector, then the grep/ripgrep
# parity check, which reads all of GOROOT/src and so skips itself under -race.
test:
	$(GO) vet ./...
	GOOS=darwin $(GO) build ./...   # the README promises macOS builds
	$(GO) test -race -count=1 -timeout 30m ./...
	$(GO) test -count=1 -run 'TestGrepVsRipgrep' -v ./tools

bench:
	$(GO) test -run '^$$' -bench . -benchmem ./...

# fuzz: each fuzz target for a bounded time, starting from its committed
# corpus (testdata/fuzz/<target>); CI runs it after the tests. Nine targets
# at 15 s keep CI's fuzzing at about 2.5 minutes of 2 cores.
FUZZTIME ?= 15s
fuzz:
	$(GO) test -run '^$$' -fuzz '^FuzzEditLadder$$' -fuzztime $(FUZZTIME) ./tools/editmatch
	$(GO) test -run '^$$' -fuzz '^FuzzLineDFA$$' -fuzztime $(FUZZTIME) ./tools/grepengine
	$(GO) test -run '^$$' -fuzz '^FuzzRoundTrip$$' -fuzztime $(FUZZTIME) ./internal/text
	$(GO) test -run '^$$' -fuzz '^FuzzDiff$$' -fuzztime $(FUZZTIME) ./tools
	$(GO) test -run '^$$' -fuzz '^FuzzStore$$' -fuzztime $(FUZZTIME) ./lspserver/proposal
	$(GO) test -run '^$$' -fuzz '^FuzzServe$$' -fuzztime $(FUZZTIME) ./lspserver
	$(GO) test -run '^$$' -fuzz '^FuzzWireFrames$$' -fuzztime $(FUZZTIME) ./lspserver/core
	$(GO) test -run '^$$' -fuzz '^FuzzParamDecoders$$' -fuzztime $(FUZZTIME) ./lspserver
	$(GO) test -run '^$$' -fuzz '^FuzzTextSync$$' -fuzztime $(FUZZTIME) ./lspserver
