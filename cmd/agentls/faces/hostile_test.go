package faces_test

import (
	"testing"

	acp "github.com/coder/acp-go-sdk"
	"go.lsp.dev/protocol"

	"github.com/agentls/agentls/acpserver/acptest"
	"github.com/agentls/agentls/agent/llm/llmtest"
	"github.com/agentls/agentls/lspserver/lsptest"
)

// One core, three faces (docs/protocol "One core, three faces"): a rule
// about hostile or broken input holds on the LSP server, the ACP agent
// and `agentls run` alike. Each row is one rule; each face has a runner
// that drives the real protocol (lsptest, the ACP SDK client via
// acptest, the built binary) and reports what it saw in face-neutral
// terms (outcome), compared with the row's want.
//
// To add a rule: write one runner per face (func(t) outcome, using the
// face helpers below: lspFace, acpFace, cliFace, and tree to see what was
// written) and append a row. Add a field to outcome when a rule observes
// something new (zero on the rows that do not look at it).

// outcome is what a face did with a hostile input.
type outcome struct {
	// Ended: the run (LSP run, ACP prompt, CLI process) ended by itself,
	// not at the test's safety bound.
	Ended bool
	// Wrote: a file of the workspace changed, appeared or went away.
	Wrote bool
	// Refused: the face refused the input up front with its "invalid
	// params" answer (LSP and ACP -32602, CLI exit status 2).
	Refused bool
	// ModelCalled: the model received a chat request.
	ModelCalled bool
	// Finished: the run ended as finished (LSP runEvent "finished", ACP
	// stop reason end_turn, CLI exit 0 with the answer printed).
	Finished bool
	// Staged: the run proposed a change (LSP agentls/proposals, ACP a
	// permission to apply, CLI a diff).
	Staged bool
	// Leaked: a secret reached the model, or unescaped text reached a
	// person.
	Leaked bool
	// ToolFailed: the one tool call the hostile input was for failed,
	// with the reason, and the run went on.
	ToolFailed bool
	// StrayResponse: the face sent the client a JSON-RPC response that
	// carries one of the face's own request ids.
	StrayResponse bool
	// NotApplicable, when set, says why the rule cannot arise on this
	// face (the face has no such input); the row's want is then not
	// compared. A runner returns it only through notApplicable.
	NotApplicable string
}

// notApplicable is the outcome of a face where the rule's input does not
// exist; reason says why, for the reader of the table and the test log.
func notApplicable(reason string) outcome { return outcome{NotApplicable: reason} }

// hostileRow is one rule; every face must have a runner.
type hostileRow struct {
	name          string
	want          outcome
	lsp, acp, cli func(t *testing.T) outcome
}

func hostileRows() []hostileRow {
	return []hostileRow{
		{
			// Only a clear yes allows: an answer naming something that was
			// never offered is a no. LSP asks with showMessageRequest (the
			// command approval), ACP with session/request_permission (the
			// change); the CLI never asks: without --apply it writes
			// nothing.
			name: "unknown permission option writes nothing",
			want: outcome{Ended: true, Wrote: false},
			lsp: func(t *testing.T) outcome {
				f := newLSPFace(t, commandScript(), `{"tools": {"runCommand": "ask"}}`)
				f.client.Handle(protocol.MethodWindowShowMessageRequest, lsptest.Result(&protocol.MessageActionItem{Title: "Sure, go ahead"}))
				return f.run(t, "make out.txt")
			},
			acp: func(t *testing.T) outcome {
				f := newACPFace(t, editScript(), "")
				f.h.Client.OnPermission = func(acp.RequestPermissionRequest) acp.RequestPermissionResponse {
					return acptest.Allow("allow-everything")
				}
				return f.prompt(t, "greet the world")
			},
			cli: func(t *testing.T) outcome {
				return newCLIFace(t, editScript(), "").run(t, "greet the world")
			},
		},
		{
			// A permission nobody answers ends with the run's
			// maxWallClockSeconds; nothing is written. The CLI cannot ask
			// without a terminal: it denies and ends.
			name: "unanswered permission ends at maxWallClockSeconds",
			want: outcome{Ended: true, Wrote: false},
			lsp: func(t *testing.T) outcome {
				f := newLSPFace(t, commandScript(), `{"maxWallClockSeconds": 1, "tools": {"runCommand": "ask"}}`)
				f.client.Handle(protocol.MethodWindowShowMessageRequest, neverAnswer(t))
				return f.run(t, "make out.txt")
			},
			acp: func(t *testing.T) outcome {
				f := newACPFace(t, editScript(), `{"maxWallClockSeconds": 1}`)
				never := make(chan struct{})
				f.h.Client.OnPermission = func(acp.RequestPermissionRequest) acp.RequestPermissionResponse {
					<-never
					return acptest.Allow("allow")
				}
				t.Cleanup(func() { close(never) }) // before the harness closes
				return f.prompt(t, "greet the world")
			},
			cli: func(t *testing.T) outcome {
				return newCLIFace(t, commandScript(), `{"maxWallClockSeconds": 1, "tools": {"runCommand": "ask"}}`).run(t, "make out.txt")
			},
		},
		promptBoundRow(),
		promptWindowRow(),
		modelNameRow(),
		secretRenameRow(),
		fractionalUsageRow(),
		oversizedAnswerRow(),
		escapedTrustRow(),
	}
}

func TestHostileInputsOnEveryFace(t *testing.T) {
	for _, row := range hostileRows() {
		t.Run(row.name, func(t *testing.T) {
			for _, face := range []struct {
				name string
				run  func(t *testing.T) outcome
			}{{"lsp", row.lsp}, {"acp", row.acp}, {"cli", row.cli}} {
				t.Run(face.name, func(t *testing.T) {
					if face.run == nil {
						t.Fatalf("row %q has no %s runner: every rule holds on every face", row.name, face.name)
					}
					got := face.run(t)
					if got.NotApplicable != "" {
						t.Logf("%s: not applicable: %s", face.name, got.NotApplicable)
						return
					}
					if got != row.want {
						t.Fatalf("%s: got %+v, want %+v", face.name, got, row.want)
					}
				})
			}
		})
	}
}

// Scripts the rows share.

// editScript reads a.txt and edits it (a change to permit).
func editScript() llmtest.Script {
	return func(r *llmtest.ChatRequest) llmtest.Reply {
		switch {
		case !r.HasToolResult("c1"):
			return acptest.Call("c1", "read_file", `{"path":"a.txt"}`)
		case !r.HasToolResult("c2"):
			return acptest.Call("c2", "edit_file", `{"path":"a.txt","old_string":"hello","new_string":"hello, world"}`)
		}
		return llmtest.Text("done")
	}
}

// commandScript asks to run a command that writes out.txt (an approval
// to grant).
func commandScript() llmtest.Script {
	return func(r *llmtest.ChatRequest) llmtest.Reply {
		if !r.HasToolResult("c1") {
			return acptest.Call("c1", "run_command", `{"command":"echo pwned > out.txt"}`)
		}
		return llmtest.Text("done")
	}
}

// neverAnswer is a showMessageRequest handler that waits until the test
// ends.
func neverAnswer(t *testing.T) lsptest.Handler {
	never := make(chan struct{})
	t.Cleanup(func() { close(never) })
	return func(lsptest.Message) (any, *lsptest.Error) {
		<-never
		return nil, nil
	}
}
