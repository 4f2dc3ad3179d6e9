// Package script is the script tool (programmatic tool calling): the model
// writes a Starlark program in which the read-only tools of its run are
// functions returning values (lists and dicts), and only what the program
// prints, plus its result, goes back to the model. A question over hundreds
// of files costs one tool call and a few lines of context instead of
// hundreds of results.
//
// The program runs in a child process (this same binary; see child.go) so
// that every bound holds whatever the program does: steps
// (Thread.SetMaxExecutionSteps), memory (RLIMIT_DATA), wall time and
// cancellation (the child is killed), output size and the number of tool
// calls. Starlark itself has no files, network, clock or randomness, and
// the functions are read-only tools called in this process with the run's
// own Env, so every inner call goes through the same confinement, secret
// rules and approvals as a direct call. Each inner call is reported through
// Options.Observe with the script call as its parent.
package script

import (
	"bytes"
	"context"
	_ "embed"
	"encoding/json"
	"errors"
	"fmt"
	"regexp"
	"slices"
	"strings"
	"time"

	"go.starlark.net/starlark"

	"github.com/agentls/agentls/tools"
)

//go:embed description.md
var description string

// Name is the tool's name.
const Name = "script"

// Limits bound one program. Zero fields take the defaults.
type Limits struct {
	Steps     uint64        // Starlark execution steps; default 20,000,000 (about 0.3 s of pure computation)
	WallClock time.Duration // whole program, tool calls included; default 60 s
	Output    int           // bytes the program may print; default 16 KiB
	Calls     int           // tool calls; default 1,000
	Memory    int64         // bytes of the child's heap; default 512 MiB
	Code      int           // bytes of program text; default 64 KiB
}

// Defaults of Limits.
const (
	DefaultSteps     = 20_000_000
	DefaultWallClock = 60 * time.Second
	DefaultOutput    = 16 << 10
	DefaultCalls     = 1000
	DefaultMemory    = 512 << 20
	DefaultCode      = 64 << 10
)

func (l Limits) withDefaults() Limits {
	if l.Steps == 0 {
		l.Steps = DefaultSteps
	}
	if l.WallClock == 0 {
		l.WallClock = DefaultWallClock
	}
	if l.Output == 0 {
		l.Output = DefaultOutput
	}
	if l.Calls == 0 {
		l.Calls = DefaultCalls
	}
	if l.Memory == 0 {
		l.Memory = DefaultMemory
	}
	if l.Code == 0 {
		l.Code = DefaultCode
	}
	return l
}

// InnerCall is one tool call made by a program.
type InnerCall struct {
	ID   string          // "<script call id>.<n>", n from 1
	Tool string          // the tool's registry name
	Args json.RawMessage // the arguments object
}

// Options configure the script tool of one run.
type Options struct {
	// Tools lists the candidates, asked at each script call: the tools
	// offered to the model at that turn. The read-only ones become
	// functions, except script itself and those named in Exclude.
	Tools func() []tools.Tool
	// Exclude names read-only tools that are not functions (the loop's
	// own: task, todo_write, skill, tool_search).
	Exclude []string
	// Observe, when set, is told about each inner call before it runs
	// (parent is the script call's id, from tools.CallID); the function
	// it returns gets the call's result.
	Observe func(parent string, call InnerCall) func(tools.Result)
	Limits  Limits
	// Slots bounds the programs running at once, shared with the other
	// script tools of the same owner; nil gives this tool its own
	// NewSlots(0).
	Slots *Slots
}

type params struct {
	Code string `json:"code" jsonschema:"Starlark program"`
}

// New returns the script tool. It counts as read-only: it can only call
// read-only tools.
func New(opts Options) tools.Tool {
	opts.Limits = opts.Limits.withDefaults()
	if opts.Slots == nil {
		opts.Slots = NewSlots(0)
	}
	s := &scriptTool{opts: opts}
	return tools.New(Name, description, true, s.call)
}

type scriptTool struct {
	opts Options
}

// function is a tool as the program sees it.
type function struct {
	spec funcSpec
	tool tools.Tool
}

var identRE = regexp.MustCompile(`^[A-Za-z_][A-Za-z0-9_]*$`)

// reserved are names a tool may not take from Starlark or from us.
var reserved = func() map[string]bool {
	m := map[string]bool{"json": true, "result": true}
	for k := range starlark.Universe {
		m[k] = true
	}
	return m
}()

// functions maps the run's read-only tools to functions, by name with '-'
// and '.' turned into '_' (mcp__srv__get-thing becomes mcp__srv__get_thing).
func (s *scriptTool) functions() map[string]function {
	out := map[string]function{}
	if s.opts.Tools == nil {
		return out
	}
	for _, t := range s.opts.Tools() {
		if !t.ReadOnly() || t.Name() == Name || slices.Contains(s.opts.Exclude, t.Name()) {
			continue
		}
		name := strings.NewReplacer("-", "_", ".", "_").Replace(t.Name())
		if !identRE.MatchString(name) || reserved[name] {
			continue
		}
		if _, dup := out[name]; dup {
			continue
		}
		ps, open := schemaParams(t.Schema())
		out[name] = function{spec: funcSpec{Name: name, Params: ps, Open: open}, tool: t}
	}
	return out
}

// schemaParams lists the properties of an object schema in document
// order, and whether other keys are allowed (no "additionalProperties":
// false).
func schemaParams(schema json.RawMessage) (names []string, open bool) {
	var s struct {
		Properties           json.RawMessage `json:"properties"`
		AdditionalProperties json.RawMessage `json:"additionalProperties"`
	}
	if json.Unmarshal(schema, &s) != nil {
		return nil, true
	}
	open = strings.TrimSpace(string(s.AdditionalProperties)) != "false"
	dec := json.NewDecoder(bytes.NewReader(s.Properties))
	if t, err := dec.Token(); err != nil || t != json.Delim('{') {
		return nil, open
	}
	for dec.More() {
		t, err := dec.Token()
		if err != nil {
			break
		}
		names = append(names, t.(string))
		var skip json.RawMessage
		if dec.Decode(&skip) != nil {
			break
		}
	}
	return names, open
}

var errWallClock = errors.New("script wall-clock limit")

// Slots bounds how many programs run at once among the script tools
// that share it: each child may use Limits.Memory, and the machine's
// memory must hold all of them. Its owner makes one and passes it to every
// script tool it makes (a run and its sub-agents, or a server for all its
// runs); programs past the bound wait their turn, within their wall clock.
type Slots struct{ ch chan struct{} }

// DefaultConcurrent is the bound of NewSlots(0) and of a script tool
// given no Slots: two 512 MiB children fit a small machine.
const DefaultConcurrent = 2

// NewSlots returns Slots for n programs at once; n < 1 means
// DefaultConcurrent.
func NewSlots(n int) *Slots {
	if n < 1 {
		n = DefaultConcurrent
	}
	return &Slots{ch: make(chan struct{}, n)}
}

// acquire takes a slot, or fails when ctx ends first.
func (sl *Slots) acquire(ctx context.Context) error {
	select {
	case sl.ch <- struct{}{}:
		return nil
	case <-ctx.Done():
		return ctx.Err()
	}
}

func (sl *Slots) release() { <-sl.ch }

func (s *scriptTool) call(ctx context.Context, env *tools.Env, p params) (tools.Result, error) {
	lim := s.opts.Limits
	if strings.TrimSpace(p.Code) == "" {
		return tools.Errorf("code is empty; send a Starlark program"), nil
	}
	if len(p.Code) > lim.Code {
		return tools.Errorf("the program is %d bytes; keep it under %d", len(p.Code), lim.Code), nil
	}
	fns := s.functions()
	specs := make([]funcSpec, 0, len(fns))
	for _, f := range fns {
		specs = append(specs, f.spec)
	}
	slices.SortFunc(specs, func(a, b funcSpec) int { return strings.Compare(a.Name, b.Name) })

	rctx, cancel := context.WithTimeoutCause(ctx, lim.WallClock, errWallClock)
	defer cancel()
	if s.opts.Slots.acquire(rctx) != nil {
		if err := ctx.Err(); err != nil {
			return tools.Result{}, err
		}
		return tools.Errorf("no interpreter was free within %s (other programs are running); try again", lim.WallClock), nil
	}
	defer s.opts.Slots.release()
	ch, err := startChild(rctx)
	if err != nil {
		return tools.Result{}, fmt.Errorf("script: %w", err)
	}
	defer ch.close()
	r := &session{tool: s, env: env, fns: fns, parent: tools.CallID(ctx), ctx: rctx, ch: ch}
	done, runErr := r.serve(startMsg{Code: p.Code, Funcs: specs, MaxSteps: lim.Steps, MaxOutput: lim.Output, MemoryLimit: lim.Memory})
	ch.close()
	if err := ctx.Err(); err != nil {
		return tools.Result{}, err
	}
	return r.result(done, runErr), nil
}

// session is one program's run: the child and the calls it made.
type session struct {
	tool   *scriptTool
	env    *tools.Env
	fns    map[string]function
	parent string
	ctx    context.Context
	ch     *childProc
	output strings.Builder
	calls  int
}

// serve sends the program and answers the child's calls until it is done.
// A nil done means the child ended without saying how (killed, out of
// memory, crashed); err then says why if known.
func (r *session) serve(st startMsg) (*doneMsg, error) {
	if err := r.ch.enc.Encode(st); err != nil {
		return nil, r.ch.exitReason(err)
	}
	for {
		var m childMsg
		if err := r.ch.dec.Decode(&m); err != nil {
			return nil, r.ch.exitReason(err)
		}
		switch {
		case m.Done != nil:
			return m.Done, nil
		case m.Print != "":
			r.output.WriteString(m.Print)
		case m.Call != nil:
			if err := r.ch.enc.Encode(r.invoke(m.Call)); err != nil {
				return nil, r.ch.exitReason(err)
			}
		}
	}
}

// invoke runs one inner call with the run's Env, as a direct call would.
func (r *session) invoke(c *callMsg) replyMsg {
	f, ok := r.fns[c.Fn]
	if !ok {
		return replyMsg{Error: "no such function"}
	}
	r.calls++
	if r.calls > r.tool.opts.Limits.Calls {
		return replyMsg{Error: fmt.Sprintf("the program made more than %d tool calls; use fewer, wider calls (one grep over a folder instead of a read per file)", r.tool.opts.Limits.Calls)}
	}
	ic := InnerCall{ID: fmt.Sprintf("%s.%d", r.parent, r.calls), Tool: f.tool.Name(), Args: c.Args}
	finish := func(tools.Result) {}
	if r.tool.opts.Observe != nil {
		finish = r.tool.opts.Observe(r.parent, ic)
	}
	res, err := f.tool.Call(tools.WithCallID(tools.WithData(r.ctx), ic.ID), r.env, c.Args)
	if err != nil {
		res = tools.Errorf("%v", err)
		if r.ctx.Err() != nil {
			res = tools.Errorf("cancelled")
		}
	}
	finish(res)
	if res.IsError {
		msg := res.Text
		if msg == "" {
			msg = "the tool failed without a message"
		}
		return replyMsg{Error: msg}
	}
	var v any = res.Data
	if v == nil {
		v = res.Text // a tool without a structured form: its text
	}
	b, err := json.Marshal(v)
	if err != nil {
		return replyMsg{Error: fmt.Sprintf("cannot pass the result on: %v", err)}
	}
	return replyMsg{Value: b}
}

// result is what the model sees: what the program printed, then its
// result value; or the error with its line, after what it printed.
func (r *session) result(done *doneMsg, runErr error) tools.Result {
	lim := r.tool.opts.Limits
	out := r.output.String()
	var errMsg string
	switch {
	case errors.Is(context.Cause(r.ctx), errWallClock):
		errMsg = fmt.Sprintf("the program ran longer than %s and was stopped (a loop waiting on nothing, or too many slow calls)", lim.WallClock)
	case done != nil && done.Error != "":
		errMsg = done.Error
	case done != nil:
		text := out
		if done.Result != "" {
			if text != "" && !strings.HasSuffix(text, "\n") {
				text += "\n"
			}
			text += done.Result
		}
		if strings.TrimSpace(text) == "" {
			text = "(the program printed nothing and had no result; print() what you need, or end with an expression)"
		}
		return tools.Result{Text: text, Summary: fmt.Sprintf("script: %d tool calls, %d lines of output", r.calls, lineCount(text))}
	case errors.Is(runErr, errOutOfMemory):
		errMsg = fmt.Sprintf("the program used more than %d MiB of memory and was stopped; build smaller values (no giant strings or lists)", lim.Memory>>20)
	default:
		errMsg = fmt.Sprintf("the program's interpreter ended unexpectedly: %v", runErr)
	}
	text := "Error: " + errMsg
	if out != "" {
		text += "\nPrinted before the error:\n" + out
	}
	first, _, _ := strings.Cut(errMsg, "\n")
	return tools.Result{Text: text, IsError: true, Summary: "script failed: " + first}
}

func lineCount(s string) int {
	s = strings.TrimRight(s, "\n")
	if s == "" {
		return 0
	}
	return strings.Count(s, "\n") + 1
}
