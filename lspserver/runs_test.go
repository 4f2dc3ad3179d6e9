package lspserver_test

import (
	"encoding/json"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"go.lsp.dev/protocol"

	"github.com/agentls/agentls/agent/llm/llmtest"
	"github.com/agentls/agentls/internal/testwait"
	"github.com/agentls/agentls/lspserver"
	"github.com/agentls/agentls/lspserver/lsptest"
)

// TestRunEventSequence: a run that reads a file and answers produces
// started, text, toolCall, toolResult, text, finished, numbered 1..n, with
// the fields docs/protocol.md names; progress goes create → begin → report →
// end; plugin-less clients get a showMessage; a transcript is written.
func TestRunEventSequence(t *testing.T) {
	t.Parallel()
	script := func(req *llmtest.ChatRequest) llmtest.Reply {
		if !req.HasToolResult("r1") {
			return llmtest.ToolCalls(llmtest.Call{ID: "r1", Name: "read_file", Args: callArgs(map[string]any{"path": "notes.txt"})}).
				WithText("Let me look.")
		}
		return llmtest.Text("The notes say hello.\nNothing else.").Usage(120, 30)
	}
	rs := newRunSession(t, script, runOpts{transcript: true})
	rs.write(t, "notes.txt", "hello\n")
	ctx := lsptest.Context(t)

	id := rs.start(t, lspserver.RunArgs{Prompt: "What do the notes say?"})
	evs := rs.events(t, id)
	checkSeq(t, evs)
	want := []string{"started", "text", "usage", "toolCall", "toolResult", "text", "usage", "finished"}
	if got := kinds(evs); !slices.Equal(got, want) {
		t.Fatalf("event kinds %v, want %v", got, want)
	}
	if u := evs[len(evs)-2]; u.Turn != 2 || u.PromptTokens == nil || *u.PromptTokens != 120 || u.CompletionTokens == nil || *u.CompletionTokens != 30 || u.CostUSD != nil {
		t.Errorf("last usage event = %+v, want turn 2, 120 in / 30 out, no cost without pricing", u)
	}
	started, call, result, fin := evs[0], firstOf(t, evs, "toolCall"), firstOf(t, evs, "toolResult"), evs[len(evs)-1]
	if started.Text == nil || *started.Text != "What do the notes say?" || started.Mode != "preview" {
		t.Errorf("started = %+v", started)
	}
	var args map[string]any
	if call.Tool != "read_file" || json.Unmarshal(call.Args, &args) != nil || args["path"] != "notes.txt" || call.CallID != "r1" {
		t.Errorf("toolCall = %+v (args %s)", call, call.Args)
	}
	if result.Tool != "read_file" || result.IsError == nil || *result.IsError || result.Summary == "" {
		t.Errorf("toolResult = %+v", result)
	}
	if fin.Text == nil || *fin.Text != "The notes say hello.\nNothing else." || fin.Usage == nil || fin.Usage.TotalTokens == 0 ||
		fin.Pending == nil || *fin.Pending != 0 {
		t.Errorf("finished = %+v", fin)
	}
	var text strings.Builder
	for _, e := range evs {
		if e.Kind == "text" {
			text.WriteString(*e.Text)
		}
	}
	if !strings.Contains(text.String(), "Let me look.") {
		t.Errorf("streamed text %q lacks the first turn's text", text.String())
	}

	// Progress: a token the server created, begin/report/end on it.
	token := "agentls-run-" + id
	if _, err := rs.c.Await(ctx, protocol.MethodWindowWorkDoneProgressCreate, func(m lsptest.Message) bool {
		return strings.Contains(string(m.Params), token)
	}); err != nil {
		t.Fatal(err)
	}
	values := progressValues(t, rs.c, token)
	if len(values) < 3 || values[0]["kind"] != "begin" || values[len(values)-1]["kind"] != "end" {
		t.Fatalf("progress values %v", values)
	}
	if values[0]["title"] != "Agent" || values[0]["cancellable"] != true {
		t.Errorf("begin = %v", values[0])
	}
	reports := ""
	for _, v := range values[1 : len(values)-1] {
		if v["kind"] != "report" {
			t.Errorf("middle progress value %v is not a report", v)
		}
		reports += " " + v["message"].(string)
	}
	if !strings.Contains(reports, "reading notes.txt") || strings.Contains(reports, "{") {
		t.Errorf("no report says the tool call in words: %s", reports)
	}
	if end := values[len(values)-1]["message"].(string); !strings.Contains(end, "finished: The notes say hello; no changes") {
		t.Errorf("progress end message %q", end)
	}
	msg := rs.showMessage(t, "Agent run "+id)
	if msg.Type != protocol.MessageTypeInfo || msg.Message != "Agent run "+id+" finished: The notes say hello; no changes" {
		t.Errorf("showMessage = %+v", msg)
	}

	// The transcript is on disk, named for the run.
	files, _ := filepath.Glob(filepath.Join(rs.transcriptDir, "*-"+id+".jsonl"))
	if len(files) != 1 {
		t.Fatalf("transcripts %v", files)
	}
	if b, _ := os.ReadFile(files[0]); !strings.Contains(string(b), "The notes say hello.") {
		t.Errorf("transcript lacks the answer:\n%s", b)
	}
}

// firstOf returns the first event of kind.
func firstOf(t testing.TB, evs []lspserver.RunEvent, kind string) lspserver.RunEvent {
	t.Helper()
	for _, e := range evs {
		if e.Kind == kind {
			return e
		}
	}
	t.Fatalf("no %s event in %v", kind, kinds(evs))
	return lspserver.RunEvent{}
}

// progressValues returns the $/progress values sent for token so far, in
// order (decoded loosely).
func progressValues(t testing.TB, c *lsptest.Client, token string) []map[string]any {
	t.Helper()
	var out []map[string]any
	for _, m := range c.Received() {
		if m.Method != protocol.MethodProgress {
			continue
		}
		var p struct {
			Token string         `json:"token"`
			Value map[string]any `json:"value"`
		}
		if err := json.Unmarshal(m.Params, &p); err != nil {
			t.Fatalf("bad $/progress %s: %v", m, err)
		}
		if p.Token == token {
			out = append(out, p.Value)
		}
	}
	return out
}

// awaitProgressEnd waits for the end of token's progress.
func awaitProgressEnd(t testing.TB, c *lsptest.Client, token string) map[string]any {
	t.Helper()
	var v map[string]any
	_, err := c.Await(lsptest.Context(t), protocol.MethodProgress, func(m lsptest.Message) bool {
		var p struct {
			Token string         `json:"token"`
			Value map[string]any `json:"value"`
		}
		if json.Unmarshal(m.Params, &p) != nil || p.Token != token || p.Value["kind"] != "end" {
			return false
		}
		v = p.Value
		return true
	})
	if err != nil {
		t.Fatalf("progress %s did not end: %v", token, err)
	}
	return v
}

// TestRunRepliesAtOnceAndCancels: agentls.run answers while the model is
// still streaming, later requests are answered meanwhile, and
// agentls.cancel closes the model stream, ends the progress and sends
// "cancelled"; a second cancel and a cancel of an unknown run say false.
func TestRunRepliesAtOnceAndCancels(t *testing.T) {
	t.Parallel()
	hang := llmtest.NewHang()
	rs := newRunSession(t, llmtest.Always(llmtest.Text("thinking about it for a long time").HangAfter(2, hang)), runOpts{})
	ctx := lsptest.Context(t)

	id := rs.start(t, lspserver.RunArgs{Prompt: "Think."})
	if len(id) != 12 {
		t.Fatalf("run id %q", id)
	}
	testwait.Recv(t, hang.Started(), "the model is mid-stream and will not finish by itself")
	rs.event(t, id, "text")
	// The connection is not held up by the run.
	if _, err := rs.c.Document(ctx, "untitled:none"); err == nil {
		t.Fatal("agentls/document of an unknown untitled document succeeded")
	} else if e, ok := err.(*lsptest.Error); !ok || e.Code != lsptest.CodeInvalidParams {
		t.Fatalf("agentls/document during a run: %v", err)
	}

	if !rs.cancel(t, id) {
		t.Fatal("agentls.cancel of a running run said false")
	}
	testwait.Recv(t, hang.Disconnected(), "the model stream was closed")
	evs := rs.events(t, id)
	checkSeq(t, evs)
	if last := evs[len(evs)-1]; last.Kind != "cancelled" || last.Pending == nil || *last.Pending != 0 {
		t.Fatalf("last event %+v", last)
	}
	if end := awaitProgressEnd(t, rs.c, "agentls-run-"+id); !strings.Contains(end["message"].(string), "cancelled") {
		t.Errorf("progress end %v", end)
	}
	rs.showMessage(t, "Agent run "+id+" cancelled")
	if rs.cancel(t, id) {
		t.Error("second agentls.cancel said true")
	}
	if rs.cancel(t, "nosuchrun") {
		t.Error("agentls.cancel of an unknown run said true")
	}
}

// TestRunCancelFromProgress: window/workDoneProgress/cancel on the run's
// token cancels the run.
func TestRunCancelFromProgress(t *testing.T) {
	t.Parallel()
	hang := llmtest.NewHang()
	rs := newRunSession(t, llmtest.Always(llmtest.Text("working").HangAfter(1, hang)), runOpts{})
	id := rs.start(t, lspserver.RunArgs{Prompt: "Work."})
	testwait.Recv(t, hang.Started(), "the model request to start")
	token := "agentls-run-" + id
	if _, err := rs.c.Await(lsptest.Context(t), protocol.MethodProgress, func(m lsptest.Message) bool {
		return strings.Contains(string(m.Params), token) && strings.Contains(string(m.Params), `"begin"`)
	}); err != nil {
		t.Fatal(err)
	}
	if err := rs.c.Notify(lsptest.Context(t), protocol.MethodWindowWorkDoneProgressCancel,
		&protocol.WorkDoneProgressCancelParams{Token: protocol.String(token)}); err != nil {
		t.Fatal(err)
	}
	testwait.Recv(t, hang.Disconnected(), "the model server to see the connection close")
	rs.event(t, id, "cancelled")
	awaitProgressEnd(t, rs.c, token)
	// Unknown tokens (and integer tokens) are ignored without harm.
	_ = rs.c.Notify(lsptest.Context(t), protocol.MethodWindowWorkDoneProgressCancel, &protocol.WorkDoneProgressCancelParams{Token: protocol.Integer(7)})
	if _, err := rs.c.Document(lsptest.Context(t), rs.fileURI("x")); err == nil {
		t.Fatal("document of a missing file succeeded")
	}
}

// TestRunBadArguments: malformed agentls.run / agentls.cancel arguments
// are InvalidParams (-32602), unknown commands too.
func TestRunBadArguments(t *testing.T) {
	t.Parallel()
	rs := newRunSession(t, llmtest.Always(llmtest.Text("unused")), runOpts{})
	ctx := lsptest.Context(t)
	cases := []struct {
		name     string
		cmd      string
		args     any
		fragment string
	}{
		{"no arguments", lspserver.CommandRun, nil, "needs arguments[0]"},
		{"not an object", lspserver.CommandRun, "fix it", "must be an object"},
		{"missing prompt", lspserver.CommandRun, map[string]any{"uri": string(rs.fileURI("a.go"))}, "prompt is required"},
		{"blank prompt", lspserver.CommandRun, map[string]any{"prompt": "  \n"}, "prompt is required"},
		{"bad uri", lspserver.CommandRun, map[string]any{"prompt": "x", "uri": "a b:/x"}, "not a valid URI"},
		{"unopened non-file uri", lspserver.CommandRun, map[string]any{"prompt": "x", "uri": "untitled:Untitled-1"}, "neither a file"},
		{"range without uri", lspserver.CommandRun, map[string]any{"prompt": "x", "range": map[string]any{"start": map[string]any{"line": 0, "character": 0}, "end": map[string]any{"line": 0, "character": 1}}}, "range needs a uri"},
		{"reversed range", lspserver.CommandRun, map[string]any{"prompt": "x", "uri": string(rs.fileURI("a.go")), "range": map[string]any{"start": map[string]any{"line": 3, "character": 0}, "end": map[string]any{"line": 1, "character": 0}}}, "after its end"},
		{"negative position", lspserver.CommandRun, map[string]any{"prompt": "x", "uri": string(rs.fileURI("a.go")), "range": map[string]any{"start": map[string]any{"line": -1, "character": 0}, "end": map[string]any{"line": 1, "character": 0}}}, "must be an object"},
		{"bad mode", lspserver.CommandRun, map[string]any{"prompt": "x", "mode": "yolo"}, `mode "yolo" is not valid`},
		{"cancel without runId", lspserver.CommandCancel, map[string]any{}, "runId is required"},
		{"unknown command", "agentls.frobnicate", nil, "unknown command"},
	}
	for _, tc := range cases {
		err := rs.c.Call(ctx, protocol.MethodWorkspaceExecuteCommand, command(tc.cmd, tc.args), nil)
		if err == nil {
			t.Errorf("%s: no error", tc.name)
			continue
		}
		e, ok := err.(*lsptest.Error)
		if !ok || e.Code != lsptest.CodeInvalidParams || !strings.Contains(e.Message, tc.fragment) {
			t.Errorf("%s: got %v, want -32602 containing %q", tc.name, err, tc.fragment)
		}
	}
	if n := len(rs.model.Requests()); n != 0 {
		t.Errorf("the model was called %d times", n)
	}
}

// TestRunWithoutModel: with no model configured agentls.run fails with
// RequestFailed whose message says what to set, and the editor shows it.
func TestRunWithoutModel(t *testing.T) {
	t.Parallel()
	rs := newRunSession(t, nil, runOpts{noModel: true})
	_, err := rs.tryStart(lspserver.RunArgs{Prompt: "Do something."})
	e, ok := err.(*lsptest.Error)
	if !ok || e.Code != lsptest.CodeRequestFailed {
		t.Fatalf("got %v, want -32803", err)
	}
	for _, want := range []string{"model.baseURL", "model.name", "OPENAI_BASE_URL", "AGENTLS_MODEL"} {
		if !strings.Contains(e.Message, want) {
			t.Errorf("error %q does not mention %s", e.Message, want)
		}
	}
	msg := rs.showMessage(t, "cannot start an agent run")
	if msg.Type != protocol.MessageTypeError || !strings.Contains(msg.Message, "model.baseURL") {
		t.Errorf("showMessage = %+v", msg)
	}
}

// TestRunConfigFromEnvironment: the model can come from the environment
// alone (OPENAI_BASE_URL, AGENTLS_MODEL) and the API key from the variable
// model.apiKeyEnv names.
func TestRunConfigFromEnvironment(t *testing.T) {
	t.Parallel()
	srv := llmtest.New(t, llmtest.Always(llmtest.Text("from env")), llmtest.WithAPIKey("sk-test"))
	rs := newRunSession(t, nil, runOpts{noModel: true, env: map[string]string{
		"OPENAI_BASE_URL": srv.URL(), "AGENTLS_MODEL": "env-model", "OPENAI_API_KEY": "sk-test",
	}})
	id := rs.start(t, lspserver.RunArgs{Prompt: "hi"})
	if fin := rs.event(t, id, "finished"); *fin.Text != "from env" {
		t.Fatalf("finished %+v", fin)
	}
	if reqs := srv.Requests(); len(reqs) != 1 || reqs[0].Model != "env-model" {
		t.Fatalf("requests %+v", reqs)
	}
}

// TestRunWithoutProgress: a client without window.workDoneProgress gets
// no progress traffic, and a client that refuses the token gets none
// after the refusal; both runs work.
func TestRunWithoutProgress(t *testing.T) {
	t.Parallel()
	t.Run("unsupported", func(t *testing.T) {
		t.Parallel()
		caps := lsptest.DefaultCapabilities()
		caps.Window.WorkDoneProgress = nil
		rs := newRunSession(t, llmtest.Always(llmtest.Text("fine")), runOpts{init: lsptest.InitOptions{Capabilities: &caps}})
		id := rs.start(t, lspserver.RunArgs{Prompt: "x"})
		rs.event(t, id, "finished")
		rs.showMessage(t, "Agent run "+id+" finished: fine")
		if n := countMethod(rs.c, protocol.MethodWindowWorkDoneProgressCreate) + countMethod(rs.c, protocol.MethodProgress); n != 0 {
			t.Errorf("%d progress messages to a client without progress support", n)
		}
	})
	t.Run("refused", func(t *testing.T) {
		t.Parallel()
		rs := newRunSession(t, llmtest.Always(llmtest.Text("fine")), runOpts{})
		rs.c.Handle(protocol.MethodWindowWorkDoneProgressCreate, func(lsptest.Message) (any, *lsptest.Error) {
			return nil, &lsptest.Error{Code: lsptest.CodeInternalError, Message: "no progress today"}
		})
		id := rs.start(t, lspserver.RunArgs{Prompt: "x"})
		rs.event(t, id, "finished")
		if n := countMethod(rs.c, protocol.MethodProgress); n != 0 {
			t.Errorf("%d $/progress after the token was refused", n)
		}
	})
}
