package runs

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"strings"
	"sync"
	"time"

	"go.lsp.dev/protocol"

	"github.com/agentls/agentls/agent/config"
)

// Server-side configuration of agent runs. The editor's settings are kept
// raw by lspserver/core (settings.go); here they are merged with the other sources by
// agent/config.Load. Loading happens
//   - in the background after initialized (to start MCP servers and show
//     configuration warnings early),
//   - in the background after every didChangeConfiguration (MCP servers are
//     restarted when their configuration changed),
//   - and afresh for every agentls.run, so a run always uses the current
//     files and settings (Load is a few small file reads).
//
// Every load checks workspace trust (trust.go): keys of an untrusted
// workspace file that act on the user's behalf are withheld, and the user
// is asked once per file content.
//
// Precedence inside the editor layer: didChangeConfiguration settings
// override initializationOptions key by key (objects merge, mcpServers
// entries replace by name), so a client that sends only changed keys and a
// client that resends everything both work. The merged object is passed to
// Load as its Init source; files and environment keep their places
// around it (agent/config package doc).

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
	defer rs.cfg.mu.Unlock()
	rs.cfg.opts = o
}

// runConfig is the configuration state of agent runs.
type runConfig struct {
	mu   sync.Mutex
	opts Options
	// shown are the warnings and errors already sent to the editor, so a
	// reload only reports what is new.
	shown map[string]bool
	// listening is set once the settings listener is registered.
	listening bool
	// reload serialises reloadConfig.
	reload sync.Mutex
	// trust is the workspace-trust state (trust.go).
	trust     *config.Trust
	trustOnce sync.Once
	// onConfig get every background load's configuration (OnConfig).
	onConfig []func(config.Config)
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

// loadConfig merges every configuration source as it stands now.
func (rs *Runs) loadConfig() (config.Config, []string, error) {
	cfg, warnings, lerr, err := rs.load()
	rs.askTrust(cfg.Untrusted())
	if err != nil {
		if lerr != nil {
			lerr = fmt.Errorf("%w\n%w", err, lerr)
		} else {
			lerr = err
		}
	}
	rs.clientTimeout.Store(int64(time.Duration(cfg.Client.RequestTimeoutSeconds) * time.Second))
	return cfg, warnings, lerr
}

// ClientRequestTimeout is client.requestTimeoutSeconds (core.Client): the
// value of the latest configuration load, or, before the first, a load of
// its own, so the bound never depends on whether the background load after
// initialized has finished.
func (rs *Runs) ClientRequestTimeout() time.Duration {
	if d := time.Duration(rs.clientTimeout.Load()); d > 0 {
		return d
	}
	if _, _, err := rs.loadConfig(); err != nil {
		rs.log.Debug("configuration problems while reading client.requestTimeoutSeconds", "err", err)
	}
	if d := time.Duration(rs.clientTimeout.Load()); d > 0 {
		return d
	}
	return time.Duration(config.Defaults().Client.RequestTimeoutSeconds) * time.Second
}

// reportConfig tells the user about configuration problems once each:
// warnings go to the editor's log (window/logMessage), errors (a broken
// file, an invalid value: the rest of the configuration still works) are
// shown (window/showMessage). It sends notifications only, so any
// goroutine may call it.
func (rs *Runs) reportConfig(ctx context.Context, warnings []string, err error) {
	var fresh []string
	var errs []string
	if err != nil {
		errs = strings.Split(err.Error(), "\n")
	}
	rs.cfg.mu.Lock()
	if rs.cfg.shown == nil {
		rs.cfg.shown = map[string]bool{}
	}
	for _, w := range warnings {
		if !rs.cfg.shown["w:"+w] {
			rs.cfg.shown["w:"+w] = true
			fresh = append(fresh, w)
		}
	}
	var freshErrs []string
	for _, e := range errs {
		if e != "" && !rs.cfg.shown["e:"+e] {
			rs.cfg.shown["e:"+e] = true
			freshErrs = append(freshErrs, e)
		}
	}
	rs.cfg.mu.Unlock()
	for _, w := range fresh {
		rs.log.Warn("configuration warning", "warning", w)
		if e := rs.core.Client().LogMessage(ctx, &protocol.LogMessageParams{Type: protocol.MessageTypeWarning, Message: "agentls configuration: " + w}); e != nil {
			rs.log.Debug("logMessage failed", "err", e)
		}
	}
	for _, e := range freshErrs {
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

// reloadConfig loads the configuration, reports problems and passes the
// MCP servers on to the server's set.
//
// Reloads run one at a time, each reading the settings when it starts, so
// the last one to run has read the latest settings and its MCP servers are
// the ones that stay.
func (rs *Runs) reloadConfig(ctx context.Context, gen uint64) {
	rs.cfg.reload.Lock()
	defer rs.cfg.reload.Unlock()
	cfg, warnings, err := rs.loadConfig()
	rs.reportConfig(ctx, warnings, err)
	rs.applyMCP(ctx, cfg.MCPServers, gen)
	rs.cfg.mu.Lock()
	listeners := rs.cfg.onConfig
	rs.cfg.mu.Unlock()
	for _, fn := range listeners {
		fn(cfg)
	}
}

// OnConfig registers fn to get every configuration the background loads
// read (after initialized, after each didChangeConfiguration, after a
// trust grant). Call it before Serve.
func (rs *Runs) OnConfig(fn func(config.Config)) {
	rs.cfg.mu.Lock()
	defer rs.cfg.mu.Unlock()
	rs.cfg.onConfig = append(rs.cfg.onConfig, fn)
}

// PeekConfig loads the configuration as it stands without asking the
// user anything (no trust prompt): for decisions made while initialize
// is answered, before the editor may be asked questions.
func (rs *Runs) PeekConfig() config.Config {
	cfg, _, _, _ := rs.load()
	return cfg
}

// load merges every configuration source as it stands now, asking
// nothing; settingsErr is why the editor's settings could not be merged.
func (rs *Runs) load() (cfg config.Config, warnings []string, err, settingsErr error) {
	o := rs.cfg.options()
	init, settingsErr := rs.core.MergedSettings()
	cfg, warnings, err = config.Load(config.LoadOptions{
		UserFile: o.UserConfigFile,
		Folders:  rs.docs.Folders(),
		Init:     init,
		Env:      o.Env,
		Trusted:  rs.trust().Trusted,
	})
	return cfg, warnings, err, settingsErr
}
