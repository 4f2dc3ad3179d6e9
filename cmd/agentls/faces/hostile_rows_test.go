package faces_test

import (
	"encoding/json"
	"errors"
	"strings"
	"sync"
	"testing"

	acp "github.com/coder/acp-go-sdk"
	"go.lsp.dev/protocol"

	"github.com/agentls/agentls/acpserver/acptest"
	"github.com/agentls/agentls/agent/llm/llmtest"
	"github.com/agentls/agentls/lspserver"
	"github.com/agentls/agentls/lspserver/lsptest"
	"github.com/agentls/agentls/tools/lang/langtest"
)

// The rows after the first two, one function each (hostileRows lists
// them).

// A prompt over agent.MaxPromptBytes (192,000 bytes) is refused before
// any model call: LSP agentls.run and ACP session/prompt with -32602,
// `agentls run -` (the prompt on standard input) with exit status 2.
func promptBoundRow() hostileRow {
	return promptRefusedRow("prompt over 192000 bytes is refused before any model call", 200_000, "", "192000")
}

// A prompt that fits the 192,000 bytes but not the configured model's
// context window (model.contextWindow 8,000 tokens leaves 16,384 bytes,
// agent.PromptLimit) is refused the same way on every face; ACP alone
// used to apply this bound.
func promptWindowRow() hostileRow {
	return promptRefusedRow("prompt over the model's context window share is refused before any model call", 20_000,
		`{"model": {"contextWindow": 8000}}`, "16384")
}

// promptRefusedRow sends a prompt of size bytes with config and wants it
// refused, the error naming limit, before any model call.
func promptRefusedRow(name string, size int, config, limit string) hostileRow {
	big := strings.Repeat("x", size)
	refusedSaying := func(t *testing.T, code int, msg string) bool {
		t.Helper()
		if !strings.Contains(msg, "too large") || !strings.Contains(msg, limit) {
			t.Fatalf("refused without saying why: %d %q", code, msg)
		}
		return true
	}
	return hostileRow{
		name: name,
		want: outcome{Ended: true, Refused: true},
		lsp: func(t *testing.T) outcome {
			f := newLSPFace(t, llmtest.Always(llmtest.Text("done")), config)
			_, err := f.start(t, big)
			var e *lsptest.Error
			if !errors.As(err, &e) {
				t.Fatalf("agentls.run of %d bytes: %v, want a JSON-RPC error", len(big), err)
			}
			return outcome{Ended: true, Refused: e.Code == lsptest.CodeInvalidParams && refusedSaying(t, int(e.Code), e.Message),
				ModelCalled: len(acptest.ChatRequests(f.model)) > 0}
		},
		acp: func(t *testing.T) outcome {
			f := newACPFace(t, llmtest.Always(llmtest.Text("done")), config)
			_, err := f.h.Prompt(f.h.NewSession(), big)
			e := acptest.ReqErr(t, err)
			return outcome{Ended: true, Refused: e.Code == -32602 && refusedSaying(t, e.Code, e.Message),
				ModelCalled: len(f.h.Chats()) > 0}
		},
		cli: func(t *testing.T) outcome {
			f := newCLIFace(t, llmtest.Always(llmtest.Text("done")), config)
			r := f.exec(t, strings.NewReader(big), "-")
			return outcome{Ended: r.ended, Refused: r.code == 2 && refusedSaying(t, r.code, r.stderr),
				ModelCalled: len(acptest.ChatRequests(f.model)) > 0}
		},
	}
}

// secretToken is planted in secrets.go, a secret by the user's
// tools.secretPatterns.
const secretToken = "ghp_0123456789abcdefghijABCDEFGHIJ012345"

// secretModule is a Go module where a rename of Add edits secrets.go,
// whose type error makes gopls quote the token in its diagnostic
// (`cannot use apiToken (untyped string constant "ghp_…") as int value`).
var secretModule = map[string]string{
	"go.mod":     "module example.com/m\n\ngo 1.22\n",
	"util.go":    "package main\n\n// Add adds.\nfunc Add(a, b int) int { return a + b }\n",
	"main.go":    "package main\n\nimport \"fmt\"\n\nfunc main() {\n\tfmt.Println(Add(1, 2))\n}\n",
	"secrets.go": "package main\n\nconst apiToken = \"" + secretToken + "\"\n\nvar _ = Add(3, 4)\n\nvar _ int = apiToken\n",
}

// secretScript renames Add (gopls's edit touches secrets.go), reads
// util.go (a call that works: three failed turns in a row end a run) and
// asks for the diagnostics of secrets.go (gopls's quote the token).
func secretScript() llmtest.Script {
	calls := []llmtest.Call{
		{ID: "rename", Name: "rename", Args: `{"path":"main.go","line":6,"symbol":"Add","new_name":"Sum"}`},
		{ID: "read", Name: "read_file", Args: `{"path":"util.go"}`},
		{ID: "diagsecret", Name: "diagnostics", Args: `{"path":"secrets.go"}`},
	}
	return func(r *llmtest.ChatRequest) llmtest.Reply {
		for _, c := range calls {
			if !r.HasToolResult(c.ID) {
				if !r.HasTool(c.Name) {
					return llmtest.Text("no " + c.Name + " tool: " + strings.Join(r.ToolNames(), ","))
				}
				return llmtest.ToolCalls(c)
			}
		}
		return llmtest.Text("done")
	}
}

// secretConfig serves the workspace with gopls and makes secrets.go a
// secret.
func secretConfig(t *testing.T) string {
	t.Helper()
	cmd, _ := json.Marshal([]string{langtest.Path(t, "gopls")})
	return `{"languageServers": {"gopls": {"command": ` + string(cmd) + `}}, "languageServerWaitSeconds": 30,
		"tools": {"secretPatterns": ["secrets.go"]}}`
}

// secretSeen checks what the model got: the rename refused with the
// reason (ToolFailed) and the token in no request (Leaked).
func secretSeen(t *testing.T, model *llmtest.Server) outcome {
	t.Helper()
	reqs := acptest.ChatRequests(model)
	if len(reqs) == 0 {
		t.Fatal("the model got no request")
	}
	var o outcome
	for i, r := range reqs {
		if r.Contains(secretToken) || strings.Contains(string(r.Raw), "0123456789abcdefghij") {
			t.Logf("request %d carries the secret: %.2000s", i, r.Raw)
			o.Leaked = true
		}
	}
	last := reqs[len(reqs)-1]
	rename, _ := last.ToolResult("rename")
	diag, _ := last.ToolResult("diagsecret")
	t.Logf("rename: %s\ndiagnostics secrets.go: %s", rename, diag)
	o.ToolFailed = strings.Contains(rename, "secrets.go, which looks like a secret") && strings.Contains(rename, "nothing was staged")
	return o
}

// A rename whose edits touch a secret file is refused with nothing
// staged, and the secret reaches the model neither through the rename's
// diff nor through gopls's diagnostics of that file.
func secretRenameRow() hostileRow {
	return hostileRow{
		name: "rename into a secret file is refused and the secret never reaches the model",
		want: outcome{Ended: true, Finished: true, ToolFailed: true},
		lsp: func(t *testing.T) outcome {
			f := newLSPFace(t, secretScript(), secretConfig(t), withFiles(secretModule))
			before := tree(t, f.dir)
			end, err := f.runToEnd(t, "rename Add to Sum")
			o := secretSeen(t, f.model)
			o.Ended, o.Finished = err == nil, end.Kind == "finished"
			o.Staged = len(f.proposals(t)) > 0
			o.Wrote = changed(before, tree(t, f.dir))
			return o
		},
		acp: func(t *testing.T) outcome {
			f := newACPFace(t, secretScript(), secretConfig(t), withFiles(secretModule))
			before := tree(t, f.h.Dir)
			stop, err := f.h.Prompt(f.h.NewSession(), "rename Add to Sum")
			o := secretSeen(t, f.h.Model)
			_, perms := f.h.Client.Snapshot()
			o.Ended, o.Finished, o.Staged = err == nil, stop == acp.StopReasonEndTurn, len(perms) > 0
			o.Wrote = changed(before, tree(t, f.h.Dir))
			return o
		},
		cli: func(t *testing.T) outcome {
			f := newCLIFace(t, secretScript(), secretConfig(t), withFiles(secretModule))
			before := tree(t, f.dir)
			r := f.exec(t, nil, "rename Add to Sum")
			o := secretSeen(t, f.model)
			o.Ended, o.Finished = r.ended, r.code == 0 && strings.Contains(r.stdout, "done")
			o.Staged = strings.Contains(r.stdout, "@@")
			o.Wrote = changed(before, tree(t, f.dir))
			return o
		},
	}
}

// A usage block whose counts do not decode as integers is dropped; the
// run finishes with its answer.
func fractionalUsageRow() hostileRow {
	script := func() llmtest.Script {
		return llmtest.Always(llmtest.Text("the answer").RawUsage(`{"prompt_tokens": 12.0, "completion_tokens": 3, "total_tokens": 15.0}`))
	}
	return hostileRow{
		name: "fractional usage counts leave the run finished",
		want: outcome{Ended: true, Finished: true, ModelCalled: true},
		lsp: func(t *testing.T) outcome {
			f := newLSPFace(t, script(), "")
			end, err := f.runToEnd(t, "answer")
			return outcome{Ended: err == nil, Finished: end.Kind == "finished" && end.Text != nil && strings.Contains(*end.Text, "the answer"),
				ModelCalled: len(acptest.ChatRequests(f.model)) > 0}
		},
		acp: func(t *testing.T) outcome {
			f := newACPFace(t, script(), "")
			stop, err := f.h.Prompt(f.h.NewSession(), "answer")
			us, _ := f.h.Client.Snapshot()
			return outcome{Ended: err == nil, Finished: stop == acp.StopReasonEndTurn && strings.Contains(acptest.AgentText(us), "the answer"),
				ModelCalled: len(f.h.Chats()) > 0}
		},
		cli: func(t *testing.T) outcome {
			f := newCLIFace(t, script(), "")
			r := f.exec(t, nil, "answer")
			return outcome{Ended: r.ended, Finished: r.code == 0 && strings.Contains(r.stdout, "the answer"),
				ModelCalled: len(acptest.ChatRequests(f.model)) > 0}
		},
	}
}

// elevenMiB is an answer over every face's 10 MiB bound on one message
// from the client.
var elevenMiB = strings.Repeat("x", 11<<20)

// A client's answer over the message bound fails the one request it
// answers, at once (the request timeout is an hour, so only the bound can
// end it), with a reason the model reads; the run goes on, and no
// JSON-RPC response carrying the face's own request id goes back.
func oversizedAnswerRow() hostileRow {
	const patient = `{"client": {"requestTimeoutSeconds": 3600}}`
	return hostileRow{
		name: "oversized client answer fails only that request",
		want: outcome{Ended: true, Finished: true, ToolFailed: true},
		lsp: func(t *testing.T) outcome {
			// The editor's own tools (agentls/registerTools) are the
			// server→client request whose answer reaches the model.
			script := func(r *llmtest.ChatRequest) llmtest.Reply {
				if !r.HasToolResult("b1") {
					return acptest.Call("b1", "editor__read_buffer", `{}`)
				}
				return llmtest.Text("done")
			}
			f := newLSPFace(t, script, patient)
			var mu sync.Mutex
			var asked []json.RawMessage // the server's request ids
			f.client.Handle(lspserver.MethodInvokeClientTool, func(m lsptest.Message) (any, *lsptest.Error) {
				mu.Lock()
				asked = append(asked, m.ID)
				mu.Unlock()
				return lspserver.InvokeClientToolResult{Content: elevenMiB}, nil
			})
			if err := f.client.Call(lsptest.Context(t), lspserver.MethodRegisterTools, map[string]any{"tools": []map[string]any{
				{"name": "read_buffer", "description": "The editor's text of the current buffer."}}}, nil); err != nil {
				t.Fatalf("registerTools: %v", err)
			}
			end, err := f.runToEnd(t, "read the buffer")
			reqs := acptest.ChatRequests(f.model)
			result, _ := reqs[len(reqs)-1].ToolResult("b1")
			t.Logf("editor__read_buffer result: %.300s", result)
			o := outcome{Ended: err == nil, Finished: end.Kind == "finished",
				ToolFailed: strings.Contains(result, "over agentls's limit") && !strings.Contains(result, "xxxx")}
			mu.Lock()
			defer mu.Unlock()
			if len(asked) != 1 {
				t.Fatalf("the server asked the editor %d times", len(asked))
			}
			for _, m := range f.client.StrayResponses() {
				t.Logf("stray response (the server asked with id %s): %.300s", asked[0], m.Raw)
				o.StrayResponse = true
			}
			return o
		},
		acp: func(t *testing.T) outcome {
			script := func(r *llmtest.ChatRequest) llmtest.Reply {
				if !r.HasToolResult("c1") {
					return acptest.Call("c1", "read_file", `{"path":"a.txt"}`)
				}
				return llmtest.Text("done")
			}
			f := newACPFace(t, script, patient, clientFS())
			f.h.Client.OnRead = func(p acp.ReadTextFileRequest) (acp.ReadTextFileResponse, error) {
				return acp.ReadTextFileResponse{Content: elevenMiB}, nil
			}
			stop, err := f.h.Prompt(f.h.NewSession(), "read a.txt")
			reqs := f.h.Chats()
			result, _ := reqs[len(reqs)-1].ToolResult("c1")
			t.Logf("read_file result: %.300s", result)
			o := outcome{Ended: err == nil, Finished: stop == acp.StopReasonEndTurn,
				ToolFailed: strings.Contains(result, "more than agentls takes from the editor") && !strings.Contains(result, "hello")}
			for _, line := range f.h.ServerOutput() {
				if strings.Contains(line, `"error"`) && !strings.Contains(line, `"method"`) {
					t.Logf("stray response: %.300s", line)
					o.StrayResponse = true
				}
			}
			return o
		},
		cli: func(t *testing.T) outcome {
			return notApplicable("agentls run has no client: it asks nobody over JSON-RPC, so no answer can be oversized")
		},
	}
}

// hostileDir is a workspace name with a bidi override, which would show
// "ws" followed by "live" reversed were it not escaped.
const hostileDir = "ws\u202eevil"

// trustedLooking is a workspace config key that needs trust, so each face
// asks the trust question naming the file's path.
var trustedLooking = map[string]string{".agentls/config.json": `{"tools": {"runCommand": "ask"}}`}

// escaped checks text shown to a person: the bidi override is shown as
// the visible escape \u202e, never as itself. Leaked when it is itself.
func escaped(t *testing.T, what, text string) (leaked bool) {
	t.Helper()
	if strings.ContainsRune(text, '\u202e') {
		t.Logf("%s shows a raw U+202E: %q", what, text)
		return true
	}
	if !strings.Contains(text, `ws\u202eevil`) {
		t.Fatalf("%s does not name the workspace (escaped): %q", what, text)
	}
	return false
}

// Text for people goes through internal/safetext on every face: the trust
// question names a workspace path with U+202E escaped (LSP
// window/showMessageRequest, ACP the permission's title and content, CLI
// the question on the terminal). "Not now" leaves the file untrusted and
// the run goes on.
func escapedTrustRow() hostileRow {
	return hostileRow{
		name: "trust question escapes a bidi override in the workspace path",
		want: outcome{Ended: true, Finished: true},
		lsp: func(t *testing.T) outcome {
			f := startLSPFace(t, llmtest.Always(llmtest.Text("done")), "", inDir(hostileDir), withFiles(trustedLooking))
			f.client.Handle(protocol.MethodWindowShowMessageRequest, lsptest.Result(&protocol.MessageActionItem{Title: "Not now"}))
			f.initialize(t)
			m, err := f.client.Await(lsptest.Context(t), protocol.MethodWindowShowMessageRequest, nil)
			if err != nil {
				t.Fatalf("no trust question: %v", err)
			}
			var p protocol.ShowMessageRequestParams
			if err := m.DecodeParams(&p); err != nil {
				t.Fatal(err)
			}
			leaked := escaped(t, "window/showMessageRequest", p.Message)
			end, err := f.runToEnd(t, "hello")
			return outcome{Ended: err == nil, Finished: end.Kind == "finished", Leaked: leaked}
		},
		acp: func(t *testing.T) outcome {
			f := newACPFace(t, llmtest.Always(llmtest.Text("done")), "", inDir(hostileDir), withFiles(trustedLooking))
			f.h.Client.OnPermission = func(p acp.RequestPermissionRequest) acp.RequestPermissionResponse {
				return acptest.Allow(acptest.OptionID(p, acp.PermissionOptionKindRejectOnce))
			}
			stop, err := f.h.Prompt(f.h.NewSession(), "hello")
			_, perms := f.h.Client.Snapshot()
			if len(perms) != 1 || perms[0].ToolCall.Title == nil {
				t.Fatalf("want one trust question with a title, got %+v", perms)
			}
			leaked := escaped(t, "permission title", *perms[0].ToolCall.Title)
			leaked = escaped(t, "permission content", acptest.ContentText(perms[0].ToolCall.Content)) || leaked
			return outcome{Ended: err == nil, Finished: stop == acp.StopReasonEndTurn, Leaked: leaked}
		},
		cli: func(t *testing.T) outcome {
			f := newCLIFace(t, llmtest.Always(llmtest.Text("done")), "", inDir(hostileDir), withFiles(trustedLooking))
			shown, r := f.onTerminal(t, "n", "hello")
			if !strings.Contains(shown, "[y/N] ") {
				t.Fatalf("no trust question on the terminal:\n%s", shown)
			}
			return outcome{Ended: r.ended, Finished: r.code == 0 && strings.Contains(r.stdout, "done"), Leaked: escaped(t, "the terminal", shown)}
		},
	}
}

// hostileModel is a model name that would retitle a terminal when shown.
const hostileModel = "gpt\x1b]0;pwned\x07"

// A model picked for a run that cannot be a model's name (control
// characters, here a terminal title escape) is refused up front by every
// face, before any model call: LSP agentls.run's model and ACP's model
// option with -32602, `agentls run --model` with exit status 2. ACP
// took any non-empty value and the CLI any flag before
// (agent.CheckModelName).
func modelNameRow() hostileRow {
	refusedSaying := func(t *testing.T, code int, msg string) bool {
		t.Helper()
		if !strings.Contains(msg, "not a model name") || strings.Contains(msg, "\x1b") {
			t.Fatalf("refused without saying why, or echoing the escape: %d %q", code, msg)
		}
		return true
	}
	return hostileRow{
		name: "model name with control characters is refused before any model call",
		want: outcome{Ended: true, Refused: true},
		lsp: func(t *testing.T) outcome {
			f := newLSPFace(t, llmtest.Always(llmtest.Text("done")), "")
			args, _ := json.Marshal(lspserver.RunArgs{Prompt: "say hi", Model: hostileModel})
			err := f.client.Call(lsptest.Context(t), protocol.MethodWorkspaceExecuteCommand, &protocol.ExecuteCommandParams{
				Command: lspserver.CommandRun, Arguments: []protocol.LSPAny{args}}, &lspserver.RunResult{})
			var e *lsptest.Error
			if !errors.As(err, &e) {
				t.Fatalf("agentls.run with model %q: %v, want a JSON-RPC error", hostileModel, err)
			}
			return outcome{Ended: true, Refused: e.Code == lsptest.CodeInvalidParams && refusedSaying(t, int(e.Code), e.Message),
				ModelCalled: len(acptest.ChatRequests(f.model)) > 0}
		},
		acp: func(t *testing.T) outcome {
			f := newACPFace(t, llmtest.Always(llmtest.Text("done")), "")
			id := f.h.NewSession()
			_, err := f.h.Conn.SetSessionConfigOption(f.h.Ctx(), acp.SetSessionConfigOptionRequest{ValueId: &acp.SetSessionConfigOptionValueId{
				SessionId: id, ConfigId: "model", Value: acp.SessionConfigValueId(hostileModel)}})
			e := acptest.ReqErr(t, err)
			refused := e.Code == -32602 && refusedSaying(t, e.Code, e.Message)
			// The session goes on with the configured model.
			if _, err := f.h.Prompt(id, "say hi"); err != nil {
				t.Fatalf("prompt after the refused model: %v", err)
			}
			for _, r := range f.h.Chats() {
				if strings.Contains(string(r.Raw), "pwned") {
					t.Fatalf("the refused model reached the endpoint: %.300s", r.Raw)
				}
			}
			return outcome{Ended: true, Refused: refused}
		},
		cli: func(t *testing.T) outcome {
			f := newCLIFace(t, llmtest.Always(llmtest.Text("done")), "")
			r := f.exec(t, strings.NewReader(""), "--model", hostileModel, "say hi")
			return outcome{Ended: r.ended, Refused: r.code == 2 && refusedSaying(t, r.code, r.stderr),
				ModelCalled: len(acptest.ChatRequests(f.model)) > 0}
		},
	}
}
