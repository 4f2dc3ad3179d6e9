package lang

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"go.lsp.dev/jsonrpc2"
	"go.lsp.dev/protocol"
	"go.lsp.dev/uri"

	"github.com/agentls/agentls/internal/childproc"
	"github.com/agentls/agentls/internal/lspcodec"
	"github.com/agentls/agentls/internal/text"
	"github.com/agentls/agentls/tools"
)

// Bounds of one client's life.
const (
	// initTimeout bounds initialize; a server that takes longer is killed
	// and counts as crashed. Callers wait at most their own bound for it.
	initTimeout = 20 * time.Second
	// shutdownTimeout bounds the polite shutdown request before the
	// process group is ended.
	shutdownTimeout = 2 * time.Second
)

// client is one running language server for one root folder: the child
// process, the JSON-RPC connection, what initialize told us, the documents
// the server holds (our overlays) and the diagnostics it published.
//
// The connection's handler runs inline on the read goroutine, so server
// requests and publishDiagnostics are seen in wire order; it answers every
// server request at once and never calls the server from there (which
// would deadlock the reader). protocol.NewClient is not used: it handles
// messages concurrently, out of order (docs/language-servers.md, "The
// client connection").
type client struct {
	cfg  ServerConfig
	root string
	log  *slog.Logger
	proc *childproc.Process
	conn jsonrpc2.Conn
	srv  protocol.Server

	// ready is closed when initialize has ended; then initErr, or enc,
	// caps and info are set and read-only.
	ready   chan struct{}
	initErr error
	enc     text.Encoding
	caps    protocol.ServerCapabilities
	info    string

	dead      chan struct{} // closed when the process or the connection is gone
	deadErr   error         // why; set before dead is closed
	deadOnce  sync.Once
	stopped   atomic.Bool // we ended it on purpose (idle, close): not a crash
	teardownO sync.Once
	watched   chan struct{} // closed when watch has returned

	// use serialises operations (sync documents, then ask or check), so
	// each sees one consistent set of overlays.
	use sync.Mutex

	mu       sync.Mutex
	docs     map[string]*doc // by absolute path
	tick     uint64          // LRU clock for docs
	pubs     map[string]*publication
	pubSeq   uint64
	changed  chan struct{} // closed and replaced on every publication
	regs     map[string]string
	pullSeen bool   // the server offered pull diagnostics at some point
	tsPull   bool   // tsls: diagnostics through tsserver requests (tsserver.go)
	ownVers  bool   // the server publishes versions of its own, not ours
	errMsg   string // the server's latest window/showMessage of type Error
	errSeq   uint64 // how many it sent
	// headerSentAt is when a C or C++ header's text was last sent
	// (clangd; see clangdOnce).
	headerSentAt time.Time
}

// doc is a document the server holds: our overlay.
type doc struct {
	uri     uri.URI
	version int32
	text    string
	used    uint64
	// pulled is the last pull result, for version pulledAt.
	pulled    []diag
	pulledAt  int32
	hasPulled bool
	// stamps are the texts sent within stampGap (clangd headers).
	stamps []sent
	// samePreamble: the last change kept the directive lines (clangd;
	// see clangdOnce).
	samePreamble bool
}

// publication is the last publishDiagnostics for one file.
type publication struct {
	seq     uint64
	version *int32
	items   []diag // at most maxStoredDiags
	total   int
	at      time.Time
}

// Bounds on what a server can make us hold.
const (
	maxStoredDiags = 1000 // per file; a flood keeps the first and counts the rest
	maxPubFiles    = 2000 // files with publications kept besides open documents
	maxOpenDocs    = 200  // documents a client keeps open
	maxMessage     = 400  // bytes of one diagnostic message kept
)

// startClient starts cfg's program for root and begins initialize in the
// background; ready says when it is over.
func startClient(cfg ServerConfig, root string, log *slog.Logger) (*client, error) {
	if len(cfg.Command) == 0 {
		return nil, errors.New("no command configured")
	}
	log = log.With("server", cfg.Name, "root", root)
	proc, err := childproc.Start(childproc.Spec{
		Command: cfg.Command[0], Args: cfg.Command[1:], Env: serverEnv(os.Environ(), cfg.Env), Dir: root,
		Logger: log, Label: "language server stderr",
	})
	if err != nil {
		return nil, err
	}
	c := &client{
		cfg: cfg, root: root, log: log, proc: proc,
		ready: make(chan struct{}), dead: make(chan struct{}), watched: make(chan struct{}),
		docs: map[string]*doc{}, pubs: map[string]*publication{}, changed: make(chan struct{}), regs: map[string]string{},
	}
	c.conn = jsonrpc2.NewConn(jsonrpc2.NewHeaderStream(pipes{proc}), jsonrpc2.WithCodec(lspcodec.Codec{}))
	c.srv = protocol.ServerDispatcher(c.conn)
	c.conn.Go(context.Background(), c.handle)
	go c.watch()
	go c.initialize()
	return c, nil
}

// pipes is the child's stdout and stdin as one stream for jsonrpc2.
type pipes struct{ p *childproc.Process }

func (s pipes) Read(b []byte) (int, error)  { return s.p.Stdout().Read(b) }
func (s pipes) Write(b []byte) (int, error) { return s.p.Stdin().Write(b) }
func (s pipes) Close() error {
	err := s.p.Stdin().Close()
	_ = s.p.Stdout().Close()
	return err
}

// serverEnv is a language server's environment: what every child gets
// (tools.ChildEnv: never the model's API key), plus the toolchain
// variables compilers and their servers read, plus the entry's env.
func serverEnv(environ []string, extra map[string]string) []string {
	env := map[string]string{}
	for _, kv := range environ {
		k, v, _ := strings.Cut(kv, "=")
		if toolchainVar(k) {
			env[k] = v
		}
	}
	for k, v := range extra {
		env[k] = v
	}
	return tools.ChildEnv(environ, env)
}

// toolchainVar reports variables that decide how code builds (module and
// package paths, virtual environments, cross-compilation), which a
// language server must see as the user's own tools do.
func toolchainVar(k string) bool {
	switch k {
	case "GOPATH", "GOROOT", "GOFLAGS", "GOPROXY", "GOPRIVATE", "GONOPROXY", "GONOSUMDB", "GONOSUMCHECK", "GOSUMDB",
		"GOMODCACHE", "GOCACHE", "GOENV", "GOTOOLCHAIN", "GOWORK", "GOOS", "GOARCH", "GOEXPERIMENT", "GOINSECURE",
		"GOTELEMETRY", "CGO_ENABLED", "CC", "CXX", "CPATH", "CARGO_HOME", "RUSTUP_HOME", "RUSTUP_TOOLCHAIN",
		"VIRTUAL_ENV", "PYTHONPATH", "PYTHONHOME", "CONDA_PREFIX", "NODE_PATH", "NODE_OPTIONS":
		return true
	}
	return false
}

// watch notices when the process exits or the connection breaks (a
// malformed frame kills it for good) and tears the client down.
func (c *client) watch() {
	defer close(c.watched)
	var err error
	select {
	case <-c.proc.Exited():
		err = c.proc.ExitError()
	case <-c.conn.Done():
		if cerr := c.conn.Err(); cerr != nil {
			err = fmt.Errorf("sent something that is not LSP (%w)", cerr)
			if t := c.proc.StderrTail(); t != "" {
				err = fmt.Errorf("%w; stderr: %s", err, t)
			}
			break
		}
		// A clean end of output: the process is exiting; its status and
		// stderr say why.
		select {
		case <-c.proc.Exited():
			err = c.proc.ExitError()
		case <-time.After(time.Second):
			err = errors.New("closed its output")
		}
	}
	c.markDead(err)
	c.teardown(false)
}

// markDead records why the client is gone and wakes every waiter.
func (c *client) markDead(err error) {
	c.deadOnce.Do(func() {
		c.deadErr = err
		close(c.dead)
		if !c.stopped.Load() {
			c.log.Warn("language server stopped", "err", err)
		}
	})
}

// teardown ends the process group and the connection, once. polite tries
// shutdown and exit first.
func (c *client) teardown(polite bool) {
	c.teardownO.Do(func() {
		if polite {
			c.proc.Stop()
		} else {
			c.proc.Kill()
		}
		_ = c.conn.Close()
	})
}

// stop ends the server on purpose (idle, agentls closing): shutdown and
// exit when it is healthy, then the process group; it returns when the
// process, its group and every goroutine of the client are gone.
func (c *client) stop() {
	c.stopped.Store(true)
	select {
	case <-c.ready:
		if c.initErr == nil && !c.isDead() {
			ctx, cancel := context.WithTimeout(context.Background(), shutdownTimeout)
			if err := c.srv.Shutdown(ctx); err == nil {
				_ = c.srv.Exit(ctx)
				select {
				case <-c.proc.Exited():
				case <-ctx.Done():
				}
			}
			cancel()
		}
	default:
	}
	c.markDead(errors.New("stopped"))
	c.teardown(true)
	<-c.watched
	<-c.ready
}

func (c *client) isDead() bool {
	select {
	case <-c.dead:
		return true
	default:
		return false
	}
}

// crashed reports whether the client died without being asked to.
func (c *client) crashed() bool { return c.isDead() && !c.stopped.Load() }

// initialize runs the LSP handshake; ready is closed when it is over.
func (c *client) initialize() {
	defer close(c.ready)
	ctx, cancel := context.WithTimeout(context.Background(), initTimeout)
	defer cancel()
	pid := int32(os.Getpid())
	rootURI := uri.File(c.root)
	params := &protocol.InitializeParams{
		ProcessID:  &pid,
		ClientInfo: protocol.ClientInfo{Name: "agentls"},
		//lint:ignore SA1019 deprecated in favour of workspaceFolders, but servers still read it
		RootURI:      &rootURI,
		Capabilities: clientCapabilities(),
	}
	params.WorkspaceFolders = protocol.NewNullable([]protocol.WorkspaceFolder{{URI: rootURI, Name: filepath.Base(c.root)}})
	if len(c.cfg.InitializationOptions) > 0 && json.Valid(c.cfg.InitializationOptions) {
		params.InitializationOptions = protocol.LSPAny(c.cfg.InitializationOptions)
	}
	res, offsetEnc, err := c.callInitialize(ctx, params)
	if err == nil && res == nil {
		err = errors.New("empty initialize result")
	}
	if err != nil {
		if ctx.Err() == nil {
			// When the connection ended under the call, watch says why
			// (exit status, stderr, a broken frame) in a moment.
			select {
			case <-c.dead:
			case <-time.After(300 * time.Millisecond):
			}
		}
		switch {
		case c.isDead():
			c.initErr = fmt.Errorf("exited during start-up: %w", c.deadErr)
		case ctx.Err() != nil:
			c.initErr = fmt.Errorf("did not answer initialize in %s", initTimeout)
		default:
			c.initErr = fmt.Errorf("initialize failed: %w", err)
		}
		c.markDead(c.initErr)
		c.teardown(false)
		return
	}
	c.caps = res.Capabilities
	c.enc = text.UTF16 // absent means utf-16
	if e, ok := text.ParseEncoding(string(res.Capabilities.PositionEncoding)); ok {
		c.enc = e
	} else if e, ok := text.ParseEncoding(offsetEnc); ok {
		c.enc = e
	}
	c.info = res.ServerInfo.Name
	if v, ok := res.ServerInfo.Version.Get(); ok {
		c.info += " " + v
	}
	c.mu.Lock()
	c.pullSeen = res.Capabilities.DiagnosticProvider != nil
	c.tsPull = slices.Contains(res.Capabilities.ExecuteCommandProvider.Commands, tsserverRequest)
	c.mu.Unlock()
	if err := c.srv.Initialized(ctx, &protocol.InitializedParams{}); err != nil {
		c.initErr = fmt.Errorf("initialized: %w", err)
		c.markDead(c.initErr)
		c.teardown(false)
	}
}

// callInitialize sends initialize with params plus clangd's extension
// capability offsetEncoding (clangd before 16 reads only that, not
// general.positionEncodings, and then counts utf-16), and returns the
// result with the offsetEncoding the server chose ("" when it says none).
func (c *client) callInitialize(ctx context.Context, params *protocol.InitializeParams) (*protocol.InitializeResult, string, error) {
	b, err := protocol.Marshal(params)
	if err != nil {
		return nil, "", fmt.Errorf("encode initialize: %w", err)
	}
	var fields map[string]json.RawMessage
	if err := json.Unmarshal(b, &fields); err != nil {
		return nil, "", fmt.Errorf("encode initialize: %w", err)
	}
	var caps map[string]json.RawMessage
	if err := json.Unmarshal(fields["capabilities"], &caps); err != nil {
		return nil, "", fmt.Errorf("encode initialize: %w", err)
	}
	caps["offsetEncoding"] = json.RawMessage(`["utf-8","utf-32","utf-16"]`)
	if fields["capabilities"], err = json.Marshal(caps); err != nil {
		return nil, "", fmt.Errorf("encode initialize: %w", err)
	}
	if b, err = json.Marshal(fields); err != nil {
		return nil, "", fmt.Errorf("encode initialize: %w", err)
	}
	var raw jsonrpc2.RawMessage
	if err := protocol.Call(ctx, c.conn, protocol.MethodInitialize, jsonrpc2.RawMessage(b), &raw); err != nil {
		return nil, "", err
	}
	if len(raw) == 0 || string(raw) == "null" {
		return nil, "", nil
	}
	var res protocol.InitializeResult
	if err := protocol.Unmarshal(raw, &res); err != nil {
		return nil, "", fmt.Errorf("answered initialize with something that is not LSP: %w", err)
	}
	var ext struct {
		OffsetEncoding string `json:"offsetEncoding"`
	}
	_ = json.Unmarshal(raw, &ext)
	return &res, ext.OffsetEncoding, nil
}

// waitReady waits for initialize; the error says in one line why the
// server cannot be used.
// initialized reports whether initialize has ended (well or not).
func (c *client) initialized() bool {
	select {
	case <-c.ready:
		return true
	default:
		return false
	}
}

func (c *client) waitReady(ctx context.Context) error {
	select {
	case <-c.ready:
		if c.initErr != nil {
			return c.initErr
		}
		if c.isDead() {
			return c.deadErr
		}
		return nil
	case <-ctx.Done():
		return ctx.Err()
	}
}

func ptr[T any](v T) *T { return &v }

// clientCapabilities is what agentls tells servers it can do: overlays,
// versioned push and pull diagnostics (with related information, else
// clangd appends its notes, paths and all, to the message), navigation, rename with document
// versions, work-done progress (tsls publishes nothing when that fails),
// configuration and dynamic registration.
func clientCapabilities() protocol.ClientCapabilities {
	return protocol.ClientCapabilities{
		General: &protocol.GeneralClientCapabilities{
			PositionEncodings: []protocol.PositionEncodingKind{protocol.PositionEncodingKindUTF8, protocol.PositionEncodingKindUTF32, protocol.PositionEncodingKindUTF16},
		},
		Workspace: &protocol.WorkspaceClientCapabilities{
			Configuration:          ptr(true),
			WorkspaceFolders:       ptr(true),
			DidChangeConfiguration: &protocol.DidChangeConfigurationClientCapabilities{DynamicRegistration: ptr(true)},
			Symbol:                 &protocol.WorkspaceSymbolClientCapabilities{},
			WorkspaceEdit:          &protocol.WorkspaceEditClientCapabilities{DocumentChanges: ptr(true)},
			Diagnostics:            &protocol.DiagnosticWorkspaceClientCapabilities{RefreshSupport: ptr(true)},
		},
		TextDocument: &protocol.TextDocumentClientCapabilities{
			Synchronization:    &protocol.TextDocumentSyncClientCapabilities{},
			PublishDiagnostics: &protocol.PublishDiagnosticsClientCapabilities{VersionSupport: ptr(true), DiagnosticsCapabilities: protocol.DiagnosticsCapabilities{RelatedInformation: ptr(true)}},
			Diagnostic:         &protocol.DiagnosticClientCapabilities{DynamicRegistration: ptr(true)},
			Definition:         &protocol.DefinitionClientCapabilities{LinkSupport: ptr(true)},
			References:         &protocol.ReferenceClientCapabilities{},
			DocumentSymbol:     &protocol.DocumentSymbolClientCapabilities{HierarchicalDocumentSymbolSupport: ptr(true)},
			Rename:             &protocol.RenameClientCapabilities{PrepareSupport: ptr(true)},
		},
		Window: &protocol.WindowClientCapabilities{WorkDoneProgress: ptr(true)},
	}
}
