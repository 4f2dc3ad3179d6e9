package lspserver_test

import (
	"bytes"
	"context"
	"encoding/json"
	"maps"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"go.lsp.dev/protocol"
	"go.lsp.dev/uri"

	"github.com/agentls/agentls/agent/llm/llmtest"
	"github.com/agentls/agentls/internal/testwait"
	"github.com/agentls/agentls/lspserver"
	"github.com/agentls/agentls/lspserver/lsptest"
)

// Helpers for end-to-end tests of agent runs: a real Server over lsptest
// pipes, the real model client against a scripted llmtest server, and a
// closed configuration world (no user file, no environment, transcripts
// in a temporary directory).

// runOpts shape a run session.
type runOpts struct {
	settings   map[string]any // initializationOptions on top of the model settings
	noModel    bool           // leave the model unconfigured
	init       lsptest.InitOptions
	env        map[string]string
	runOpts    lspserver.RunOptions
	server     lspserver.Options
	transcript bool // keep transcripts (in a temporary directory)
}

// runSession is an initialized server ready to run agents.
type runSession struct {
	*session
	model         *llmtest.Server
	transcriptDir string
}

// newRunSession starts a server whose model is script.
func newRunSession(t testing.TB, script llmtest.Script, o runOpts) *runSession {
	t.Helper()
	rs := &runSession{}
	settings := map[string]any{}
	if !o.noModel {
		rs.model = llmtest.New(t, script)
		settings["model"] = map[string]any{"baseURL": rs.model.URL(), "name": "test-model"}
	}
	maps.Copy(settings, o.settings)
	if o.init.InitializationOptions == nil {
		o.init.InitializationOptions = settings
	}
	logs := &logBuffer{}
	if o.server.Logger == nil {
		o.server.Logger = logs.logger()
	}
	o.server.NoWatcher = true
	root := t.TempDir()
	if o.init.Folders == nil {
		o.init.Folders = []string{root}
	}
	srv := lspserver.New(o.server)
	ro := o.runOpts
	env := o.env
	ro.Env = func(k string) string { return env[k] }
	rs.transcriptDir = lspserver.NoTranscripts
	if o.transcript {
		rs.transcriptDir = t.TempDir()
	}
	if ro.TranscriptDir == "" {
		ro.TranscriptDir = rs.transcriptDir
	}
	srv.SetRunOptions(ro)
	c := lsptest.NewInProcessServer(t, srv)
	if _, err := c.Initialize(lsptest.Context(t), o.init); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		if t.Failed() {
			t.Logf("server logs:\n%s", logs.String())
		}
	})
	rs.session = &session{c: c, srv: srv, root: root, logs: logs}
	return rs
}

// start runs agentls.run with args and returns the run id.
func (rs *runSession) start(t testing.TB, args lspserver.RunArgs) string {
	t.Helper()
	id, err := rs.tryStart(args)
	if err != nil {
		t.Fatalf("agentls.run: %v", err)
	}
	return id
}

func (rs *runSession) tryStart(args any) (string, error) {
	var res lspserver.RunResult
	ctx, cancel := context.WithTimeout(context.Background(), testwait.Limit) // a hang guard
	defer cancel()
	err := rs.c.Call(ctx, protocol.MethodWorkspaceExecuteCommand, command(lspserver.CommandRun, args), &res)
	return res.RunID, err
}

// command builds executeCommand params (args nil: no arguments).
func command(name string, args any) *protocol.ExecuteCommandParams {
	p := &protocol.ExecuteCommandParams{Command: name}
	if args != nil {
		b, err := json.Marshal(args)
		if err != nil {
			panic(err)
		}
		p.Arguments = []protocol.LSPAny{b}
	}
	return p
}

// cancel runs agentls.cancel.
func (rs *runSession) cancel(t testing.TB, runID string) bool {
	t.Helper()
	var res lspserver.CancelResult
	if err := rs.c.Call(lsptest.Context(t), protocol.MethodWorkspaceExecuteCommand, command(lspserver.CommandCancel, lspserver.CancelArgs{RunID: runID}), &res); err != nil {
		t.Fatalf("agentls.cancel: %v", err)
	}
	return res.Cancelled
}

// event awaits the next runEvent of runID of the given kind.
func (rs *runSession) event(t testing.TB, runID, kind string) lspserver.RunEvent {
	t.Helper()
	var ev lspserver.RunEvent
	_, err := rs.c.Await(lsptest.Context(t), lspserver.MethodRunEvent, func(m lsptest.Message) bool {
		var e lspserver.RunEvent
		if json.Unmarshal(m.Params, &e) != nil || e.RunID != runID || e.Kind != kind {
			return false
		}
		ev = e
		return true
	})
	if err != nil {
		t.Fatalf("no %s event for run %s: %v", kind, runID, err)
	}
	return ev
}

// events awaits runID's events up to and including the final one and
// returns all of them in wire order (whether awaited before or not).
func (rs *runSession) events(t testing.TB, runID string) []lspserver.RunEvent {
	t.Helper()
	if evs := runEvents(rs.c.Received(), runID); len(evs) > 0 && isFinal(evs[len(evs)-1].Kind) {
		return evs // ended already (its final event may have been awaited)
	}
	// The cheap byte check first: Await re-runs the predicate over every
	// unawaited message, and a benchmark accumulates thousands of other
	// runs' events.
	needle := []byte(strconv.Quote(runID))
	_, err := rs.c.Await(lsptest.Context(t), lspserver.MethodRunEvent, func(m lsptest.Message) bool {
		if !bytes.Contains(m.Params, needle) {
			return false
		}
		var e lspserver.RunEvent
		return json.Unmarshal(m.Params, &e) == nil && e.RunID == runID && isFinal(e.Kind)
	})
	if err != nil {
		t.Fatalf("run %s did not end: %v", runID, err)
	}
	return runEvents(rs.c.Received(), runID)
}

func isFinal(kind string) bool { return kind == "finished" || kind == "failed" || kind == "cancelled" }

// runEvents extracts runID's events from msgs.
func runEvents(msgs []lsptest.Message, runID string) []lspserver.RunEvent {
	var out []lspserver.RunEvent
	needle := []byte(strconv.Quote(runID))
	for _, m := range msgs {
		if m.Method != lspserver.MethodRunEvent || !bytes.Contains(m.Params, needle) {
			continue
		}
		var e lspserver.RunEvent
		if json.Unmarshal(m.Params, &e) == nil && e.RunID == runID {
			out = append(out, e)
		}
	}
	return out
}

// kinds lists the kinds of evs, text events collapsed into one.
func kinds(evs []lspserver.RunEvent) []string {
	var out []string
	for _, e := range evs {
		if e.Kind == "text" && len(out) > 0 && out[len(out)-1] == "text" {
			continue
		}
		out = append(out, e.Kind)
	}
	return out
}

// checkSeq asserts evs are numbered 1..n in order.
func checkSeq(t testing.TB, evs []lspserver.RunEvent) {
	t.Helper()
	for i, e := range evs {
		if e.Seq != i+1 {
			t.Fatalf("event %d (%s) has seq %d, want %d; events: %v", i, e.Kind, e.Seq, i+1, kinds(evs))
		}
	}
}

// showMessage awaits a window/showMessage containing fragment.
func (rs *runSession) showMessage(t testing.TB, fragment string) protocol.ShowMessageParams {
	t.Helper()
	var p protocol.ShowMessageParams
	_, err := rs.c.Await(lsptest.Context(t), protocol.MethodWindowShowMessage, func(m lsptest.Message) bool {
		return m.DecodeParams(&p) == nil && strings.Contains(p.Message, fragment)
	})
	if err != nil {
		t.Fatalf("no showMessage containing %q: %v", fragment, err)
	}
	return p
}

// fileURI is the URI of name in the workspace.
func (rs *runSession) fileURI(name string) uri.URI { return uri.File(filepath.Join(rs.root, name)) }

// callArgs marshals tool arguments for a scripted call.
func callArgs(v any) string {
	b, err := json.Marshal(v)
	if err != nil {
		panic(err)
	}
	return string(b)
}
