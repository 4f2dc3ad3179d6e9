package runs

import (
	"context"
	"encoding/json"
	"os"
	"sync"
	"time"

	"go.lsp.dev/protocol"

	"github.com/agentls/agentls/agent/config"
)

// Server-side configuration of agent runs, held by a config.Live: the
// editor's settings are kept raw by lspserver/core (settings.go) and merged
// with the other sources there. Loading happens
//   - in the background after initialized (to start MCP servers and show
//     configuration warnings early),
//   - in the background after every didChangeConfiguration (MCP servers are
//     restarted when their configuration changed),
//   - and afresh for every agentls.run, so a run always uses the current
//     files and settings (Load is a few small file reads).
//
// Every load checks workspace trust (trust.go): keys of an untrusted
// workspace file that act on the user's behalf are withheld, and the user
// is asked once per file content. Each problem is told once
// (config.Live.Report): warnings in the editor's log, errors shown.

// Options configure how the server loads configuration and records agent
// runs. Set them with SetOptions before Serve; the zero value is what
// `agentls serve` uses.
type Options struct {
	// Env reads environment variables for the configuration (API key,
	// OPENAI_BASE_URL, AGENTLS_MODEL, the user config path) and for ${VAR}
	// in MCP server entries; nil is os.Getenv. Tests pass a closed world.
	Env func(string) string
	// UserConfigFile overrides the user config file (it must then exist);
	// "" is $XDG_CONFIG_HOME/agentls/config.json or ~/.config/agentls/config.json.
	UserConfigFile string
	// TranscriptDir is where run transcripts are written: "" is the
	// default state directory (agent.DefaultTranscriptDir), NoTranscripts
	// disables them.
	TranscriptDir string
	// ApplySettle bounds how long an apply-mode run waits, after the
	// editor answered applied:true, for the document change to reach the
	// server (didChange, or the file on disk) before the run goes on;
	// default 3s. See apply.go.
	ApplySettle time.Duration
	// StateDir is where sessions are saved (under sessions/<workspace>):
	// "" is $XDG_STATE_HOME/agentls (else $HOME/.local/state/agentls) as
	// Env gives them, NoSessionState keeps them in memory.
	StateDir string
	// ViewDir is where runs make their proposal views (scratch copies
	// for commands and checks): "" is $XDG_CACHE_HOME/agentls/views.
	ViewDir string
}

// NoTranscripts as Options.TranscriptDir disables run transcripts.
const NoTranscripts = "-" // agent.NoTranscript

// SetOptions sets the options of agent runs. Call it before Serve.
func (rs *Runs) SetOptions(o Options) {
	rs.cfg.mu.Lock()
	rs.cfg.opts = o
	rs.cfg.mu.Unlock()
	rs.cfg.live.SetSources(o.UserConfigFile, o.Env)
}

// runConfig is the configuration state of agent runs.
type runConfig struct {
	mu   sync.Mutex
	opts Options
	// listening is set once the settings listener is registered.
	listening bool
	// live loads, checks trust, tells each problem once and serialises
	// reloads.
	live config.Live
}

func (c *runConfig) options() Options {
	c.mu.Lock()
	defer c.mu.Unlock()
	o := c.opts
	if o.Env == nil {
		o.Env = os.Getenv
	}
	if o.ApplySettle <= 0 {
		o.ApplySettle = 3 * time.Second
	}
	return o
}

// loadConfig merges every configuration source as it stands now and asks
// about untrusted workspace files.
func (rs *Runs) loadConfig() (config.Config, []string, error) {
	cfg, warnings, err := rs.load()
	rs.askTrust(cfg.Untrusted())
	return cfg, warnings, err
}

// ClientRequestTimeout is client.requestTimeoutSeconds (core.Client): the
// value of the latest configuration load, or, before the first, a load of
// its own.
func (rs *Runs) ClientRequestTimeout() time.Duration {
	return rs.cfg.live.ClientTimeout(func() {
		if _, _, err := rs.loadConfig(); err != nil {
			rs.log.Debug("configuration problems while reading client.requestTimeoutSeconds", "err", err)
		}
	})
}

// reportConfig tells the user about configuration problems once each
// (tellConfig). It sends notifications only, so any goroutine may call it.
func (rs *Runs) reportConfig(ctx context.Context, warnings []string, err error) {
	rs.cfg.live.Report(ctx, warnings, err)
}

// tellConfig is config.Live.Tell: warnings go to the editor's log
// (window/logMessage), errors (a broken file, an invalid value: the rest of
// the configuration still works) are shown (window/showMessage).
func (rs *Runs) tellConfig(ctx context.Context, warnings, errs []string) {
	for _, w := range warnings {
		rs.log.Warn("configuration warning", "warning", w)
		if e := rs.core.Client().LogMessage(ctx, &protocol.LogMessageParams{Type: protocol.MessageTypeWarning, Message: "agentls configuration: " + w}); e != nil {
			rs.log.Debug("logMessage failed", "err", e)
		}
	}
	for _, e := range errs {
		rs.log.Error("configuration error", "err", e)
		if e2 := rs.core.Client().ShowMessage(ctx, &protocol.ShowMessageParams{Type: protocol.MessageTypeWarning, Message: "agentls configuration: " + e}); e2 != nil {
			rs.log.Debug("showMessage failed", "err", e2)
		}
	}
}

// StartServices runs once after initialized: it loads the configuration
// in the background (reporting problems and starting MCP servers) and
// reloads it after every didChangeConfiguration. initialize is never
// delayed by any of it.
func (rs *Runs) StartServices() {
	rs.cfg.mu.Lock()
	first := !rs.cfg.listening
	rs.cfg.listening = true
	rs.cfg.mu.Unlock()
	if !first {
		return
	}
	rs.core.OnSettingsChange(func(json.RawMessage) {
		// On the read loop: only hand the work to a goroutine.
		gen := rs.mcp.Expect()
		rs.core.Go("reload configuration", func(ctx context.Context) { rs.reloadConfig(ctx, gen) })
	})
	gen := rs.mcp.Expect()
	rs.core.Go("load configuration", func(ctx context.Context) { rs.reloadConfig(ctx, gen) })
}

// reloadConfig loads the configuration (config.Live.Reload: one at a time,
// problems told once) and passes the MCP servers on to the server's set.
func (rs *Runs) reloadConfig(ctx context.Context, gen uint64) {
	rs.cfg.live.Reload(ctx, rs.loadConfig, func(cfg config.Config) { rs.applyMCP(ctx, cfg.MCPServers, gen) })
}

// OnConfig registers fn to get every configuration the background loads
// read (after initialized, after each didChangeConfiguration, after a
// trust grant). Call it before Serve.
func (rs *Runs) OnConfig(fn func(config.Config)) { rs.cfg.live.OnLoad(fn) }

// PeekConfig loads the configuration as it stands without asking the
// user anything (no trust prompt): for decisions made while initialize
// is answered, before the editor may be asked questions.
func (rs *Runs) PeekConfig() config.Config {
	cfg, _, _ := rs.load()
	return cfg
}

// load merges every configuration source as it stands now, asking nothing.
func (rs *Runs) load() (config.Config, []string, error) {
	return rs.cfg.live.Load(rs.docs.Folders(), rs.core.InitializationOptions(), rs.core.Settings())
}
