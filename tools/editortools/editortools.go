// Package editortools holds the tools an editor gives the agent
// (agentls/registerTools): the model sees each as editor__NAME, and
// calling one asks the editor (agentls/invokeClientTool) through an
// Invoker the front-end supplies. The editor knows what agentls cannot see
// on its own: diagnostics from every language server it runs, the
// selection, the open editors.
//
// A call is bounded by Timeout and by the run's cancellation; an editor
// that never answers fails that call with a tool error the model can read,
// never the run.
package editortools

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"regexp"
	"strings"
	"sync"
	"time"

	"github.com/agentls/agentls/tools"
)

// Prefix starts the registry name of every editor tool.
const Prefix = "editor__"

// Bounds of a registration and of a call.
const (
	MaxTools          = 64
	maxDescription    = 4 << 10
	maxSchema         = 16 << 10
	maxContent        = 50 << 10
	DefaultTimeout    = 30 * time.Second
	maxNameLen        = 64 - len(Prefix)
	defaultDescFormat = "Tool %q provided by the editor."
)

var nameRE = regexp.MustCompile(`^[a-zA-Z0-9_-]+$`)

// Def is one tool as the editor registers it: agentls/registerTools
// params.tools[i]. Annotations.ReadOnlyHint (optional, as in MCP) marks a
// tool that changes nothing: it may run in parallel with other reads and
// be called from scripts.
type Def struct {
	Name        string          `json:"name"`
	Description string          `json:"description"`
	InputSchema json.RawMessage `json:"inputSchema,omitempty"`
	Annotations *struct {
		ReadOnlyHint *bool `json:"readOnlyHint,omitempty"`
	} `json:"annotations,omitempty"`
}

// Invoker asks the editor to run its tool name for run runID (the
// agentls/invokeClientTool request). It returns the editor's content and
// isError, or err when the request itself failed (the editor answered
// with a JSON-RPC error, or the connection is gone).
type Invoker func(ctx context.Context, runID, name string, args json.RawMessage) (content string, isError bool, err error)

// Set is one editor's tools. Replace swaps the whole set (each
// registration replaces the previous one); Sync puts the current set into
// a run's registry. It is safe for concurrent use.
type Set struct {
	invoke  Invoker
	timeout func() time.Duration

	mu    sync.Mutex
	tools []tools.Tool
}

// NewSet returns an empty set whose tools call invoke, each call bounded
// by timeout(), asked at each call so a changed setting applies (nil or a
// value ≤ 0: DefaultTimeout).
func NewSet(invoke Invoker, timeout func() time.Duration) *Set {
	return &Set{invoke: invoke, timeout: timeout}
}

func (s *Set) callTimeout() time.Duration {
	if s.timeout != nil {
		if d := s.timeout(); d > 0 {
			return d
		}
	}
	return DefaultTimeout
}

// Replace validates defs and makes them the set. On error the previous
// set is kept and the error says which tool is wrong and why (the
// front-end returns it as InvalidParams).
func (s *Set) Replace(defs []Def) error {
	if len(defs) > MaxTools {
		return fmt.Errorf("%d tools registered; at most %d", len(defs), MaxTools)
	}
	seen := map[string]bool{}
	out := make([]tools.Tool, 0, len(defs))
	for i, d := range defs {
		switch {
		case !nameRE.MatchString(d.Name) || len(d.Name) > maxNameLen:
			return fmt.Errorf("tools[%d]: name %q must be 1-%d letters, digits, _ or -", i, d.Name, maxNameLen)
		case seen[d.Name]:
			return fmt.Errorf("tools[%d]: name %q registered twice", i, d.Name)
		case len(d.Description) > maxDescription:
			return fmt.Errorf("tools[%d] (%s): description is %d bytes; at most %d", i, d.Name, len(d.Description), maxDescription)
		case len(d.InputSchema) > maxSchema:
			return fmt.Errorf("tools[%d] (%s): inputSchema is %d bytes; at most %d", i, d.Name, len(d.InputSchema), maxSchema)
		}
		if raw := strings.TrimSpace(string(d.InputSchema)); raw != "" && raw != "null" && (!json.Valid(d.InputSchema) || raw[0] != '{') {
			return fmt.Errorf("tools[%d] (%s): inputSchema must be a JSON object schema", i, d.Name)
		}
		seen[d.Name] = true
		desc := strings.TrimSpace(d.Description)
		if desc == "" {
			desc = fmt.Sprintf(defaultDescFormat, d.Name)
		}
		out = append(out, &editorTool{
			set: s, remote: d.Name, desc: desc,
			schema:   tools.ForeignSchema(d.InputSchema),
			readOnly: d.Annotations != nil && d.Annotations.ReadOnlyHint != nil && *d.Annotations.ReadOnlyHint,
		})
	}
	s.mu.Lock()
	s.tools = out
	s.mu.Unlock()
	return nil
}

// Tools returns the current set.
func (s *Set) Tools() []tools.Tool {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]tools.Tool(nil), s.tools...)
}

// Sync makes reg hold exactly the current editor tools: it adds them and
// removes editor tools that were unregistered since.
func (s *Set) Sync(reg *tools.Registry) {
	cur := s.Tools()
	keep := map[string]bool{}
	for _, t := range cur {
		keep[t.Name()] = true
		if have, ok := reg.Get(t.Name()); !ok || have != t {
			reg.Add(t)
		}
	}
	for _, t := range reg.List() {
		if strings.HasPrefix(t.Name(), Prefix) && !keep[t.Name()] {
			reg.Remove(t.Name())
		}
	}
}

// editorTool is one registered tool as the model sees it.
type editorTool struct {
	set      *Set
	remote   string // the editor's own name
	desc     string
	schema   json.RawMessage
	readOnly bool
}

func (t *editorTool) Name() string            { return Prefix + t.remote }
func (t *editorTool) Description() string     { return t.desc }
func (t *editorTool) Schema() json.RawMessage { return t.schema }
func (t *editorTool) ReadOnly() bool          { return t.readOnly }

// Call asks the editor. A timeout or an editor error is a tool error the
// model can act on; only the run's own cancellation is a Go error.
func (t *editorTool) Call(ctx context.Context, env *tools.Env, args json.RawMessage) (tools.Result, error) {
	if len(strings.TrimSpace(string(args))) == 0 || string(args) == "null" {
		args = json.RawMessage(`{}`)
	}
	var obj map[string]json.RawMessage
	if err := json.Unmarshal(args, &obj); err != nil {
		return tools.Errorf("invalid arguments for %s: want a JSON object: %v", t.Name(), err), nil
	}
	if t.set.invoke == nil {
		return tools.Errorf("%s: the editor cannot be asked (no connection)", t.Name()), nil
	}
	runID := ""
	if env != nil {
		runID = env.RunID
	}
	timeout := t.set.callTimeout()
	cctx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()
	content, isError, err := t.set.invoke(cctx, runID, t.remote, args)
	switch {
	case ctx.Err() != nil:
		return tools.Result{}, fmt.Errorf("%s: %w", t.Name(), context.Cause(ctx))
	case errors.Is(cctx.Err(), context.DeadlineExceeded):
		return tools.Errorf("%s: the editor did not answer within %s; try again later or do without it", t.Name(), timeout), nil
	case err != nil:
		return tools.Errorf("%s: the editor could not run it: %v", t.Name(), err), nil
	}
	if len(content) > maxContent {
		cut := maxContent
		for cut > 0 && content[cut]&0xC0 == 0x80 {
			cut--
		}
		content = content[:cut] + fmt.Sprintf("\n[output truncated: %d of %d bytes shown]", cut, len(content))
	}
	if isError && content == "" {
		content = t.Name() + " failed in the editor without a message"
	}
	return tools.Result{Text: content, IsError: isError}, nil
}
