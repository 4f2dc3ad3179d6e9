// Package tools owns everything the model can touch: the tool registry and
// built-in tools, the workspace view they read through, the read ledger and
// optimistic locks, the staged changeset, the file watcher and the MCP
// client. It never imports agent or lspserver.
//
// The edit pipeline, in this package:
//
//   - Every tool is a params struct plus a handler (New, typed.go); its
//     strict JSON schema is derived from the struct (schema.go) and its
//     model-facing text lives in descriptions/*.md. Builtins is the one
//     registration list.
//   - Reads go through the workspace view (editor buffers first) and the
//     run's own staged text first; read_file records the whole file's hash
//     in the run's Ledger (ledger.go).
//   - Mutating tools check the optimistic lock (lock.go): the current text
//     must be what the run read or staged, else CONFLICT with a diff of
//     what changed. They match old_string with the equivalence ladder
//     (package editmatch) and stage the result in the run's
//     Changeset (changeset.go); nothing is written to disk here.
//   - lspserver turns staged files into TextEdits (Changeset.Edits,
//     text.Diff) and proposals or workspace/applyEdit.
package tools

import (
	"context"
	"encoding/json"
)

// Tool is one capability offered to the model. Built-ins are made from a
// typed params struct (see New); MCP tools implement it directly.
//
// A failure the model can act on (file not found, CONFLICT, no match) is a
// Result with IsError set and a nil error. A non-nil error means the tool
// could not run at all (context cancelled, broken invariant) and is reported
// to the model as a generic tool failure by the loop.
type Tool interface {
	// Name is the function name the model calls; ^[a-zA-Z0-9_-]{1,64}$.
	Name() string
	// Description is the model-facing text.
	Description() string
	// Schema is the JSON schema of the arguments object; it must be accepted
	// by OpenAI strict function schemas.
	Schema() json.RawMessage
	// ReadOnly tools may run in parallel with each other; the others run in
	// call order.
	ReadOnly() bool
	// Call runs the tool with the model's raw JSON arguments.
	Call(ctx context.Context, env *Env, args json.RawMessage) (Result, error)
}

// Result is what goes back to the model as the tool message, plus a short
// summary for editors (agentls/runEvent toolResult).
type Result struct {
	Text    string // full text for the model (already truncated by the tool)
	IsError bool   // the model should see this as a failure
	Summary string // one line for humans; empty means derive from Text
	// Data is the result as plain values (string, bool, int, float64,
	// []any, map[string]any, or structs that encode to JSON) for a program
	// that called the tool (the script tool). Tools fill it only when
	// WantsData(ctx), and then may leave Text short: nobody reads it.
	Data any
	// Problems are what the Diagnoser found for the files this call staged
	// (the run's problems events); nil without a language server.
	Problems []FileProblems
}

// Errorf builds a tool-error Result the model can act on.
func Errorf(format string, args ...any) Result {
	return Result{Text: sprintf(format, args...), IsError: true}
}

// Approver is asked before a tool does something the user must allow
// (run_command). The CLI asks on the terminal; lspserver uses
// window/showMessageRequest. Implementations deny when they cannot ask.
type Approver interface {
	Approve(ctx context.Context, req ApprovalRequest) (Decision, error)
}

// ApprovalRequest describes the action awaiting the user's decision.
type ApprovalRequest struct {
	Tool    string // tool name, e.g. "run_command"
	Summary string // what will happen, e.g. the command line
}

// Decision is the user's answer to an ApprovalRequest.
type Decision int

// Possible decisions. The zero value denies.
const (
	Deny Decision = iota
	AllowOnce
	AllowAlways // for the rest of the session, same tool
)
