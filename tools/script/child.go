package script

import (
	"bufio"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"strings"
	"unicode/utf8"

	starjson "go.starlark.net/lib/json"
	"go.starlark.net/resolve"
	"go.starlark.net/starlark"
	"go.starlark.net/syntax"
)

// The child is this same binary started with childEnv=childMagic: init
// runs the program and exits before main, so any binary that links the
// package (agentls, and the test binaries of packages that use it) can
// serve as the child. A separate process is what bounds memory: a single
// Starlark operation such as [None] * 100000000 allocates gigabytes in one
// step and stalls every goroutine of its process for seconds (see
// docs/script-tool.md), which no in-process watchdog can stop.
const (
	childEnv   = "AGENTLS_SCRIPT_CHILD"
	childMagic = "starlark-1"
	childFile  = "script.star" // the program's file name in positions
)

func init() {
	if os.Getenv(childEnv) == childMagic {
		os.Exit(childMain())
	}
}

// childMain serves one program over fds 3 (from the parent) and 4 (to it).
func childMain() int {
	in, out := os.NewFile(3, "script-in"), os.NewFile(4, "script-out")
	if in == nil || out == nil {
		fmt.Fprintln(os.Stderr, "agentls script child: pipes missing")
		return 2
	}
	dec := json.NewDecoder(bufio.NewReaderSize(in, 64<<10))
	enc := json.NewEncoder(out)
	var st startMsg
	if err := dec.Decode(&st); err != nil {
		fmt.Fprintln(os.Stderr, "agentls script child: no start message:", err)
		return 2
	}
	limitMemory(st.MemoryLimit)
	c := &child{st: st, dec: dec, enc: enc}
	done := c.run()
	if err := enc.Encode(childMsg{Done: &done}); err != nil {
		return 2
	}
	return 0
}

type child struct {
	st      startMsg
	dec     *json.Decoder
	enc     *json.Encoder
	printed int  // bytes of output sent
	cut     bool // the output limit was reached
}

// errOutputLimit is the cancellation reason when the program prints too much.
const errOutputLimit = "output limit"

// maxArgs bounds the JSON arguments of one call, so that a program cannot
// make the server decode a giant message (printing and the result are
// bounded by MaxOutput).
const maxArgs = 1 << 20

func (c *child) run() doneMsg {
	th := &starlark.Thread{Name: "script", Print: c.print}
	th.SetMaxExecutionSteps(c.st.MaxSteps)
	predeclared := starlark.StringDict{"json": starjson.Module}
	for _, f := range c.st.Funcs {
		predeclared[f.Name] = c.builtin(f)
	}
	opts := &syntax.FileOptions{TopLevelControl: true, While: true, GlobalReassign: true, Set: true, Recursion: true}
	f, err := opts.Parse(childFile, c.st.Code, 0)
	if err != nil {
		return c.failed(err, th)
	}
	// A last expression statement is the program's value, as in a
	// notebook: `len(files)` at the end reports the count.
	if n := len(f.Stmts); n > 0 {
		if es, ok := f.Stmts[n-1].(*syntax.ExprStmt); ok {
			start, _ := es.X.Span()
			f.Stmts[n-1] = &syntax.AssignStmt{OpPos: start, Op: syntax.EQ, LHS: &syntax.Ident{NamePos: start, Name: "result"}, RHS: es.X}
		}
	}
	prog, err := starlark.FileProgram(f, predeclared.Has)
	if err != nil {
		return c.failed(err, th)
	}
	g, err := prog.Init(th, predeclared)
	if err != nil {
		return c.failed(err, th)
	}
	done := doneMsg{Steps: th.ExecutionSteps()}
	if v, ok := g["result"]; ok && v != starlark.None {
		if s, ok := v.(starlark.String); ok {
			done.Result = string(s)
		} else if b, err := encodeJSON(v); err == nil {
			done.Result = string(b)
		} else {
			done.Result = v.String()
		}
	}
	if room := c.st.MaxOutput - c.printed; len(done.Result) > room {
		done.Error = fmt.Sprintf("the program's result is %d bytes, more than the %d left of its output bound; return a count or the first few items instead", len(done.Result), max(room, 0))
		done.Result = ""
	}
	return done
}

// print sends one printed line to the parent, up to MaxOutput bytes in all;
// past that the program is stopped.
func (c *child) print(th *starlark.Thread, msg string) {
	if c.cut {
		return
	}
	msg += "\n"
	if room := c.st.MaxOutput - c.printed; len(msg) > room {
		msg = cutUTF8(msg, max(room, 0))
		c.cut = true
		th.Cancel(errOutputLimit)
	}
	if msg == "" {
		return
	}
	c.printed += len(msg)
	_ = c.enc.Encode(childMsg{Print: msg})
}

func cutUTF8(s string, n int) string {
	if len(s) <= n {
		return s
	}
	for n > 0 && !utf8.RuneStart(s[n]) {
		n--
	}
	return s[:n]
}

// builtin makes the function for one tool: arguments become the tool's
// JSON arguments object (None means absent), its value comes back as
// Starlark values, and a tool error is raised in the program.
func (c *child) builtin(spec funcSpec) *starlark.Builtin {
	known := map[string]bool{}
	for _, p := range spec.Params {
		known[p] = true
	}
	return starlark.NewBuiltin(spec.Name, func(th *starlark.Thread, b *starlark.Builtin, args starlark.Tuple, kwargs []starlark.Tuple) (starlark.Value, error) {
		if len(args) > len(spec.Params) {
			return nil, fmt.Errorf("%s takes at most %d positional arguments (%s), got %d", spec.Name, len(spec.Params), strings.Join(spec.Params, ", "), len(args))
		}
		obj := newObject()
		for i, a := range args {
			if err := obj.add(spec.Params[i], a); err != nil {
				return nil, fmt.Errorf("%s: %w", spec.Name, err)
			}
		}
		for _, kv := range kwargs {
			k := string(kv[0].(starlark.String))
			if !known[k] && !spec.Open {
				return nil, fmt.Errorf("%s: unexpected keyword argument %q (parameters: %s)", spec.Name, k, strings.Join(spec.Params, ", "))
			}
			if obj.has(k) {
				return nil, fmt.Errorf("%s: got two values for %s", spec.Name, k)
			}
			if err := obj.add(k, kv[1]); err != nil {
				return nil, fmt.Errorf("%s: %w", spec.Name, err)
			}
		}
		raw := obj.bytes()
		if len(raw) > maxArgs {
			return nil, fmt.Errorf("%s: the arguments are %d bytes; at most %d", spec.Name, len(raw), maxArgs)
		}
		if err := c.enc.Encode(childMsg{Call: &callMsg{Fn: spec.Name, Args: raw}}); err != nil {
			return nil, fmt.Errorf("%s: the tool host is gone: %w", spec.Name, err)
		}
		var r replyMsg
		if err := c.dec.Decode(&r); err != nil {
			return nil, fmt.Errorf("%s: the tool host is gone: %w", spec.Name, err)
		}
		if r.Error != "" {
			return nil, fmt.Errorf("%s: %s", spec.Name, strings.TrimSpace(r.Error))
		}
		v, err := decodeJSON(r.Value)
		if err != nil {
			return nil, fmt.Errorf("%s: bad value from the tool: %w", spec.Name, err)
		}
		return v, nil
	})
}

// failed describes why the program stopped, with its line and the source
// text of that line, so the model can fix the program.
func (c *child) failed(err error, th *starlark.Thread) doneMsg {
	done := doneMsg{Steps: th.ExecutionSteps()}
	line, col, msg := 0, 0, err.Error()
	var se syntax.Error
	var rl resolve.ErrorList
	var ee *starlark.EvalError
	switch {
	case errors.As(err, &se):
		line, col, msg = int(se.Pos.Line), int(se.Pos.Col), se.Msg
	case errors.As(err, &rl) && len(rl) > 0:
		line, col, msg = int(rl[0].Pos.Line), int(rl[0].Pos.Col), rl[0].Msg
	case errors.As(err, &ee):
		msg = ee.Msg
		for i := range ee.CallStack {
			fr := ee.CallStack.At(i)
			if fr.Pos.Filename() == childFile {
				line, col = int(fr.Pos.Line), int(fr.Pos.Col)
				break
			}
		}
		switch {
		case strings.HasSuffix(msg, "cancelled: too many steps"):
			msg = fmt.Sprintf("the program ran more than %d steps and was stopped (a loop that never ends, or too much work for one script)", c.st.MaxSteps)
		case strings.HasSuffix(msg, "cancelled: "+errOutputLimit):
			msg = fmt.Sprintf("the program printed more than %d bytes and was stopped; print counts or the first few items instead", c.st.MaxOutput)
		}
		if bt := callChain(ee.CallStack); bt != "" {
			msg += " (in " + bt + ")"
		}
	}
	done.Error = msg
	if line > 0 {
		done.Error = fmt.Sprintf("line %d: %s", line, msg)
		if src := sourceLine(c.st.Code, line); src != "" {
			done.Error += fmt.Sprintf("\n  %d | %s", line, src)
			if col > 0 && col <= len(src)+1 && !strings.Contains(src[:col-1], "\t") {
				done.Error += "\n" + strings.Repeat(" ", 2+len(fmt.Sprint(line))+3+col-1) + "^"
			}
		}
	}
	return done
}

// callChain names the program's own functions the error passed through,
// innermost last ("main > count"); empty at top level.
func callChain(stack starlark.CallStack) string {
	var names []string
	for _, fr := range stack {
		if fr.Pos.Filename() == childFile && fr.Name != "<toplevel>" {
			names = append(names, fr.Name)
		}
	}
	if len(names) == 0 {
		return ""
	}
	return strings.Join(names, " > ")
}

func sourceLine(code string, line int) string {
	lines := strings.Split(code, "\n")
	if line < 1 || line > len(lines) {
		return ""
	}
	return strings.TrimRight(lines[line-1], " \t\r")
}
