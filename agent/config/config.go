// Package config is agentls's one configuration schema and the loading of
// it from several sources. Later sources override earlier ones, key by key:
//
//  1. Defaults()
//  2. the user file: $XDG_CONFIG_HOME/agentls/config.json, else
//     ~/.config/agentls/config.json (LoadOptions.UserFile overrides)
//  3. each workspace folder's .agentls/config.json; when folders disagree
//     the first folder wins. A workspace file comes with the repository,
//     so its keys that act on the user's behalf (endpoint, key choice, MCP
//     servers, looser tool settings, raised limits) apply only when the
//     user trusts the file's current content (LoadOptions.Trusted); the
//     rule, key by key, is in trust.go.
//  4. initializationOptions or workspace/didChangeConfiguration settings
//     (both: MergeSettings):
//     the object itself, or wrapped as {"settings": {"agentls": {...}}},
//     {"settings": {...}} or {"agentls": {...}}
//  5. the environment, which only fills what no other source set (as the
//     protocol contract says): OPENAI_BASE_URL → model.baseURL,
//     AGENTLS_MODEL → model.name, and the API key is read from the
//     variable named by model.apiKeyEnv (default OPENAI_API_KEY). There is
//     no AGENTLS_API_KEY: set model.apiKeyEnv to use another variable.
//
// A source only overrides the keys it sets; objects merge recursively,
// arrays and scalars replace, null is ignored, and mcpServers merge by
// server name (a later entry for a name replaces the whole entry). The one
// exception: an untrusted workspace file's security lists
// (tools.secretPatterns) add to the earlier entries instead of replacing
// them (trust.go, unionLists).
// Unknown keys and values of the wrong type are warnings (the key is
// ignored); a file that is not valid JSON is an error naming the file.
// Keys match case-insensitively ("baseUrl" works), as Go's JSON does.
//
// There is deliberately no default base URL: agentls never sends code to a
// cloud endpoint the user did not name. ModelError says what to set.
package config

import (
	"strings"
	"time"

	"github.com/agentls/agentls/agent/llm"
	"github.com/agentls/agentls/internal/redact"
	"github.com/agentls/agentls/tools/mcp"
)

// Config is the whole agentls configuration. JSON names are the keys users
// write in config files and editor settings.
type Config struct {
	// Model is the model endpoint.
	Model ModelConfig `json:"model"`
	// Completion configures inline completions (ghost text): by default
	// the agent's model, or a smaller one of its own (docs/completions.md).
	Completion CompletionConfig `json:"completion"`
	// Mode is "preview" (stage proposals for review, the default) or
	// "apply" (send every change to the editor as it is made).
	Mode string `json:"mode"`
	// MaxTurns bounds model calls per run (default 25).
	MaxTurns int `json:"maxTurns"`
	// MaxWallClockSeconds bounds a run's duration (default 600).
	MaxWallClockSeconds int `json:"maxWallClockSeconds"`
	// TokenBudget bounds total tokens (prompt + completion, summed over
	// the run's model calls); 0 means unlimited. Default 2,000,000: about
	// 25 turns of a full 80k-token context.
	TokenBudget int `json:"tokenBudget"`
	// MaxConsecutiveToolErrors stops a run after this many tool failures
	// in a row (default 3).
	MaxConsecutiveToolErrors int `json:"maxConsecutiveToolErrors"`
	// MaxRepeatedCalls stops a run that repeats an identical tool call this
	// many times (default 5; the model is warned first).
	MaxRepeatedCalls int `json:"maxRepeatedCalls"`
	// MaxConcurrentRuns bounds agent runs at once per server (default 4).
	MaxConcurrentRuns int `json:"maxConcurrentRuns"`
	// TaskMaxTurns bounds the model calls of each sub-agent the task tool
	// starts (default 12); sub-agents share the run's other limits.
	TaskMaxTurns int `json:"taskMaxTurns"`
	// MaxToolCallsPerTurn bounds the tool calls run from one model answer
	// (default 64). Calls beyond it are not run: each gets a tool error
	// telling the model to make fewer calls per turn, so an answer of
	// 20,000 calls costs 64 calls, not a flood of work and notifications.
	MaxToolCallsPerTurn int `json:"maxToolCallsPerTurn"`
	// MCPServers are the user's MCP tool servers, by name, in the common
	// "mcpServers" shape. The entry type is the MCP client's own
	// (tools/mcp.ServerConfig): one definition, so the configuration and
	// the client cannot drift.
	MCPServers map[string]mcp.ServerConfig `json:"mcpServers,omitempty"`
	// LanguageServers are the language servers agentls starts to check
	// staged edits and to navigate code, merged over the built-in entries
	// (langservers.go).
	LanguageServers LanguageServers `json:"languageServers"`
	// LanguageServerIdleSeconds stops a language server nobody used for
	// that long (default 300).
	LanguageServerIdleSeconds int `json:"languageServerIdleSeconds"`
	// LanguageServerWaitSeconds bounds how long an edit result waits for
	// the problems of its change, and each language-server request
	// (default 5).
	LanguageServerWaitSeconds int `json:"languageServerWaitSeconds"`
	// Tools configures the built-in tools.
	Tools ToolsConfig `json:"tools"`
	// Script bounds the programs of the script tool (docs/script-tool.md).
	Script ScriptConfig `json:"script"`
	// MCP configures how MCP tools are offered to the model.
	MCP MCPConfig `json:"mcp"`
	// Preview configures how proposals are shown to LSP clients.
	Preview PreviewConfig `json:"preview"`
	// Client configures how the server talks to the editor.
	Client ClientConfig `json:"client"`
	// Checks are the project's own commands (tests, linters, type
	// checkers) run on the proposal at the end of a run with changes,
	// in the proposal view (docs/checks.md). From a workspace file they
	// need trust: they are processes.
	Checks []Check `json:"checks,omitempty"`
	// MaxCheckRounds bounds how many times failing checks send a run back
	// to the model to fix them (default 2); 0 runs the checks once and
	// only reports them.
	MaxCheckRounds int `json:"maxCheckRounds"`

	envKey        string      // the API key read from the environment by Load
	completionKey string      // the key read from completion.apiKeyEnv by Load
	untrusted     []Untrusted // workspace files whose keys needing trust were withheld
}

// Check is one command run on the proposal at the end of a run.
type Check struct {
	// Name labels the check in events and messages ("test", "lint").
	Name string `json:"name"`
	// Command is a shell command line (sh -c), run in the proposal view's
	// copy of the first workspace folder; exit status 0 passes.
	Command string `json:"command"`
	// TimeoutSeconds bounds one run of the check (default 300); a check
	// that takes longer is killed with its child processes and fails.
	TimeoutSeconds int `json:"timeoutSeconds,omitempty"`
	// Paths, when set, are doublestar globs relative to the workspace
	// folder: the check runs only when the run changed a matching file
	// ("**/*.go", "src/**/*.py").
	Paths []string `json:"paths,omitempty"`
}

// DefaultCheckTimeoutSeconds bounds a check without timeoutSeconds.
const DefaultCheckTimeoutSeconds = 300

// Timeout is the check's bound as a duration.
func (c Check) Timeout() time.Duration {
	if c.TimeoutSeconds <= 0 {
		return DefaultCheckTimeoutSeconds * time.Second
	}
	return time.Duration(c.TimeoutSeconds) * time.Second
}

// ClientConfig is how the language server treats its editor.
type ClientConfig struct {
	// RequestTimeoutSeconds bounds the wait for the editor's answer to a
	// server→client request (workspace/applyEdit, progress creation, code
	// lens refresh, registration); default 30. An editor that never answers
	// then fails that step instead of stalling the run or the accept.
	// Approval prompts wait for a person and are bounded by the run instead.
	RequestTimeoutSeconds int `json:"requestTimeoutSeconds"`
}

// ModelConfig is the model endpoint and how to call it.
type ModelConfig struct {
	// BaseURL of an OpenAI-compatible API, ending in /v1
	// (https://api.openai.com/v1, http://localhost:11434/v1 for Ollama).
	BaseURL string `json:"baseURL"`
	// Name is the model name sent in requests.
	Name string `json:"name"`
	// APIKeyEnv names the environment variable holding the API key
	// (default OPENAI_API_KEY).
	APIKeyEnv string `json:"apiKeyEnv"`
	// APIKey is a literal key. Discouraged (it ends up in settings files);
	// in a workspace file it applies only once the file is trusted (trust.go).
	APIKey string `json:"apiKey,omitempty"`
	// ContextWindow is the model's context size in tokens (default 128000).
	ContextWindow int `json:"contextWindow"`
	// MaxOutputTokens caps each answer; 0 leaves it to the provider.
	MaxOutputTokens int `json:"maxOutputTokens"`
	// Temperature in [0, 2]; unset leaves it to the provider.
	Temperature *float32 `json:"temperature,omitempty"`
	// RequestTimeoutSeconds bounds one model call attempt, streaming
	// included (default 300).
	RequestTimeoutSeconds int `json:"requestTimeoutSeconds"`
	// MaxAnswerBytes bounds one model answer, text and tool-call arguments
	// together (default 8 MiB); a longer answer is stopped and ends the run
	// with an error.
	MaxAnswerBytes int `json:"maxAnswerBytes"`
	// MaxToolArgsBytes bounds one tool call's arguments (default 2 MiB); a
	// larger call is not run and the model is told to make smaller ones.
	MaxToolArgsBytes int `json:"maxToolArgsBytes"`
	// MaxAttempts bounds tries of one model call on rate limits, server
	// and network errors (default 4).
	MaxAttempts int `json:"maxAttempts"`
	// Replay answers every model call from a cassette file recorded with
	// Record instead of calling a model: no endpoint, key or network is
	// needed (docs/protocol.md "Deterministic model"). Relative paths
	// resolve against the workspace folder.
	Replay string `json:"replay,omitempty"`
	// Record saves every model response of a run, as streamed, to a
	// cassette file that Replay can serve later.
	Record string `json:"record,omitempty"`
	// Pricing turns token counts into cost in USD; without it no cost is
	// shown anywhere (a guessed price would be worse than none).
	Pricing *Pricing `json:"pricing,omitempty"`
	// Choices are model names offered by the editors' model pickers (and
	// agentls/models) besides what the endpoint's GET /models lists.
	Choices []string `json:"choices,omitempty"`
}

// CompletionConfig is the model and behaviour of inline completions. Every
// endpoint key left unset falls back to the agent's model (model.*), so a
// user with one model configured gets completions without setting anything.
type CompletionConfig struct {
	// Enabled turns inline completions off when false (default true).
	Enabled *bool `json:"enabled,omitempty"`
	// BaseURL of the completion endpoint; "" uses model.baseURL.
	BaseURL string `json:"baseURL,omitempty"`
	// Name of the completion model; "" uses model.name.
	Name string `json:"name,omitempty"`
	// APIKeyEnv names the variable holding the completion endpoint's key;
	// "" uses the model's key.
	APIKeyEnv string `json:"apiKeyEnv,omitempty"`
	// FIM is how the missing middle is asked for: "auto" (default: the
	// model family's template when the name names one, else "suffix"),
	// "suffix" (the suffix field of /completions), "template" (the
	// family's or Template's tokens in the prompt) or "chat".
	FIM string `json:"fim"`
	// Template overrides the family's fill-in-the-middle tokens.
	Template *FIMTemplate `json:"template,omitempty"`
	// MaxTokens bounds one completion (default 128).
	MaxTokens int `json:"maxTokens"`
	// DebounceMs is how long an automatic request waits for typing to
	// pause before it asks the model (default 75).
	DebounceMs int `json:"debounceMs"`
	// ContextTokens bounds the context from other open files put before
	// the prefix (default 1024; 0 sends none).
	ContextTokens *int `json:"contextTokens,omitempty"`
	// NextEdit turns on next-edit suggestions (default false).
	NextEdit bool `json:"nextEdit"`
	// NextEditDelayMs is how long a document must go without edits before
	// its recent edits are sent for a next-edit suggestion (default 500).
	NextEditDelayMs int `json:"nextEditDelayMs"`
	// InCompletionList offers the completion as a textDocument/completion
	// item to clients without inline completions (default true).
	InCompletionList *bool `json:"inCompletionList,omitempty"`
}

// FIMTemplate is a fill-in-the-middle prompt: Prefix, the text before the
// cursor, Suffix, the text after it, then Middle.
type FIMTemplate struct {
	Prefix string `json:"prefix"`
	Suffix string `json:"suffix"`
	Middle string `json:"middle"`
}

// Values of CompletionConfig.FIM.
const (
	FIMAuto   = "auto"
	FIMSuffix = "suffix"
	FIMFilled = "template"
	FIMChat   = "chat"
)

// CompletionOn reports whether inline completions are enabled and a
// model to ask is configured (the completion's own, the agent's, or a
// replay).
func (c Config) CompletionOn() bool {
	if c.Completion.Enabled != nil && !*c.Completion.Enabled {
		return false
	}
	if c.Model.Replay != "" {
		return true
	}
	l := c.CompletionLLM()
	return strings.TrimSpace(l.BaseURL) != "" && strings.TrimSpace(l.Model) != ""
}

// CompletionLLM is the client configuration of the completion model: the
// completion keys over the agent model's. One attempt, no retries: by the
// time a retry answered, the user has typed on.
func (c Config) CompletionLLM() llm.Config {
	l := c.LLM()
	if c.Completion.BaseURL != "" {
		l.BaseURL = c.Completion.BaseURL
	}
	if c.Completion.Name != "" {
		l.Model = c.Completion.Name
	}
	if c.Completion.APIKeyEnv != "" {
		l.APIKey = c.completionKey
	}
	l.MaxOutputTokens = c.Completion.MaxTokens
	l.MaxAttempts = 1
	l.RequestTimeout = 30 * time.Second
	return l
}

// Pricing is a model's price in USD per million tokens.
type Pricing struct {
	InputPerMTok  float64 `json:"inputPerMTok"`
	OutputPerMTok float64 `json:"outputPerMTok"`
	// CachedInputPerMTok prices prompt tokens served from the provider's
	// cache; 0 means they cost InputPerMTok.
	CachedInputPerMTok float64 `json:"cachedInputPerMTok,omitempty"`
}

// Cost prices a token count; nil when p is nil or its figures are not
// usable (negative), so that no negative or made-up cost is ever shown.
// Cached tokens are part of prompt tokens.
func (p *Pricing) Cost(prompt, cached, completion int) *float64 {
	if p == nil || p.InputPerMTok < 0 || p.OutputPerMTok < 0 || p.CachedInputPerMTok < 0 {
		return nil
	}
	if prompt < 0 || completion < 0 || cached < 0 {
		return nil
	}
	cached = min(cached, prompt)
	cachedPrice := p.CachedInputPerMTok
	if cachedPrice == 0 {
		cachedPrice = p.InputPerMTok
	}
	c := (float64(prompt-cached)*p.InputPerMTok + float64(cached)*cachedPrice + float64(completion)*p.OutputPerMTok) / 1e6
	return &c
}

// ToolsConfig configures the built-in tools.
type ToolsConfig struct {
	// RunCommand is "off" (default: no command tool) or "ask" (the tool
	// exists and every command needs the user's approval).
	RunCommand string `json:"runCommand"`
	// AllowSecrets lets tools read secret-looking files (.env*, keys, .netrc …).
	AllowSecrets bool `json:"allowSecrets"`
	// SecretPatterns are extra doublestar globs (workspace-relative) of
	// files treated as secrets, added to the built-in ones.
	SecretPatterns []string `json:"secretPatterns,omitempty"`
	// CommandTimeoutSeconds bounds one command run (default 120).
	CommandTimeoutSeconds int `json:"commandTimeoutSeconds"`
}

// ScriptConfig bounds one program of the script tool. Every bound has a
// ceiling (scriptRanges): a program runs in a child process whose memory
// the machine must hold twice (two programs run at once), and whatever it
// prints goes to the model.
type ScriptConfig struct {
	// TimeoutSeconds bounds a program's run, its tool calls included
	// (default 60).
	TimeoutSeconds int `json:"timeoutSeconds"`
	// MaxSteps bounds the Starlark execution steps (default 20,000,000,
	// about 0.3 s of pure computation).
	MaxSteps int `json:"maxSteps"`
	// MemoryMiB bounds the interpreter process's memory beyond its start
	// (default 512).
	MemoryMiB int `json:"memoryMiB"`
	// MaxOutputBytes bounds what a program prints plus its result
	// (default 16384).
	MaxOutputBytes int `json:"maxOutputBytes"`
	// MaxCalls bounds the tool calls of one program (default 1000).
	MaxCalls int `json:"maxCalls"`
}

// Defaults of ScriptConfig (the script tool's own defaults; a test in
// agent keeps them equal).
const (
	DefaultScriptTimeoutSeconds = 60
	DefaultScriptMaxSteps       = 20_000_000
	DefaultScriptMemoryMiB      = 512
	DefaultScriptMaxOutputBytes = 16 << 10
	DefaultScriptMaxCalls       = 1000
)

// MCPConfig configures how MCP tools reach the model.
type MCPConfig struct {
	// DeferredToolShare: when MCP tool definitions would take more than
	// this share of the context window, they are offered through
	// tool_search instead of up front (default 0.1).
	DeferredToolShare float64 `json:"deferredToolShare"`
	// StartupTimeoutSeconds bounds how long a run waits for MCP servers
	// that are still connecting before its first turn (default 15); a run
	// started right after the editor opens would otherwise miss their tools.
	StartupTimeoutSeconds int `json:"startupTimeoutSeconds"`
	// ReadOnlyServers names the MCP servers whose read-only tools
	// (readOnlyHint) sub-agents of the task tool may use. Sub-agents get no
	// MCP tools otherwise: a hint is the server's claim, this is the user's.
	ReadOnlyServers []string `json:"readOnlyServers,omitempty"`
}

// PreviewConfig configures how the server shows proposals to clients that
// have no plugin of ours.
type PreviewConfig struct {
	// Diagnostics publishes each pending hunk as a diagnostic showing the
	// change (default true). Plugins that render previews themselves set it
	// to false in initializationOptions.
	Diagnostics *bool `json:"diagnostics,omitempty"`
}

// DefaultAPIKeyEnv is the variable the API key is read from by default.
const DefaultAPIKeyEnv = "OPENAI_API_KEY"

// Defaults returns the configuration before any source is applied.
func Defaults() Config {
	return Config{
		Model: ModelConfig{
			APIKeyEnv:             DefaultAPIKeyEnv,
			ContextWindow:         128000,
			RequestTimeoutSeconds: 300,
			MaxAnswerBytes:        llm.DefaultMaxAnswerBytes,
			MaxToolArgsBytes:      llm.DefaultMaxToolArgsBytes,
			MaxAttempts:           4,
		},
		Mode:                      ModePreview,
		MaxTurns:                  25,
		MaxWallClockSeconds:       600,
		TokenBudget:               2_000_000,
		MaxConsecutiveToolErrors:  3,
		MaxRepeatedCalls:          5,
		MaxConcurrentRuns:         4,
		TaskMaxTurns:              12,
		MaxToolCallsPerTurn:       64,
		LanguageServerIdleSeconds: 300,
		LanguageServerWaitSeconds: 5,
		MaxCheckRounds:            2,
		Tools:                     ToolsConfig{RunCommand: RunCommandOff, CommandTimeoutSeconds: 120},
		MCP:                       MCPConfig{DeferredToolShare: 0.1, StartupTimeoutSeconds: 15},
		Completion:                CompletionConfig{FIM: FIMAuto, MaxTokens: 128, DebounceMs: 75, NextEditDelayMs: 500},
		Client:                    ClientConfig{RequestTimeoutSeconds: 30},
		Script:                    ScriptConfig{TimeoutSeconds: DefaultScriptTimeoutSeconds, MaxSteps: DefaultScriptMaxSteps, MemoryMiB: DefaultScriptMemoryMiB, MaxOutputBytes: DefaultScriptMaxOutputBytes, MaxCalls: DefaultScriptMaxCalls},
	}
}

// Values of Mode and Tools.RunCommand.
const (
	ModePreview   = "preview"
	ModeApply     = "apply"
	RunCommandOff = "off"
	RunCommandAsk = "ask"
)

// APIKey returns the key to send: model.apiKey when set, else the value of
// the variable named by model.apiKeyEnv as Load read it ("" for none).
func (c Config) APIKey() string {
	if c.Model.APIKey != "" {
		return c.Model.APIKey
	}
	return c.envKey
}

// WithEnvAPIKey returns c with the environment API key set, for callers
// that build a Config without Load (tests, the headless CLI).
func (c Config) WithEnvAPIKey(key string) Config { c.envKey = key; return c }

// LLM returns the model client configuration.
func (c Config) LLM() llm.Config {
	return llm.Config{
		BaseURL:          c.Model.BaseURL,
		Model:            c.Model.Name,
		APIKey:           c.APIKey(),
		MaxOutputTokens:  c.Model.MaxOutputTokens,
		Temperature:      c.Model.Temperature,
		RequestTimeout:   time.Duration(c.Model.RequestTimeoutSeconds) * time.Second,
		MaxAttempts:      c.Model.MaxAttempts,
		MaxAnswerBytes:   c.Model.MaxAnswerBytes,
		MaxToolArgsBytes: c.Model.MaxToolArgsBytes,
		Replay:           c.Model.Replay,
		Record:           c.Model.Record,
	}
}

// WallClock is MaxWallClockSeconds as a duration.
func (c Config) WallClock() time.Duration {
	return time.Duration(c.MaxWallClockSeconds) * time.Second
}

// CommandTimeout is Tools.CommandTimeoutSeconds as a duration.
func (c Config) CommandTimeout() time.Duration {
	return time.Duration(c.Tools.CommandTimeoutSeconds) * time.Second
}

// Redacted returns a copy safe to log or show: the literal API key, the
// values of MCP env variables and headers, and credentials in URLs
// (redact.URL) are masked (${VAR} references, which hold no secret, are
// kept).
func (c Config) Redacted() Config {
	out := c
	out.envKey = ""
	out.Model.BaseURL = redact.URL(c.Model.BaseURL)
	if out.Model.APIKey != "" {
		out.Model.APIKey = masked
	}
	if c.MCPServers != nil {
		out.MCPServers = make(map[string]mcp.ServerConfig, len(c.MCPServers))
		for name, s := range c.MCPServers {
			s.Env = maskValues(s.Env)
			s.Headers = maskValues(s.Headers)
			s.URL = redact.URL(s.URL)
			s.Args = append([]string(nil), s.Args...)
			if s.OAuth != nil {
				o := *s.OAuth
				if o.ClientSecret != "" {
					o.ClientSecret = masked
				}
				s.OAuth = &o
			}
			out.MCPServers[name] = s
		}
	}
	if c.LanguageServers.Servers != nil {
		out.LanguageServers.Servers = make(map[string]*LanguageServer, len(c.LanguageServers.Servers))
		for name, s := range c.LanguageServers.Servers {
			if s != nil {
				e := *s
				e.Env = maskValues(s.Env)
				s = &e
			}
			out.LanguageServers.Servers[name] = s
		}
	}
	out.Tools.SecretPatterns = append([]string(nil), c.Tools.SecretPatterns...)
	out.Checks = append([]Check(nil), c.Checks...)
	return out
}

const masked = "[REDACTED]"

func maskValues(m map[string]string) map[string]string {
	if m == nil {
		return nil
	}
	out := make(map[string]string, len(m))
	for k, v := range m {
		if isEnvRef(v) {
			out[k] = v
		} else {
			out[k] = masked
		}
	}
	return out
}

// isEnvRef reports whether v is a template using ${VAR} references (such
// as "Bearer ${TOKEN}"), which hold no secret themselves.
func isEnvRef(v string) bool { return strings.Contains(v, "${") }
