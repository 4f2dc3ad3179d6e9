package tools

import (
	"context"
	"testing"
)

// The command the user is asked about is shown escaped: an ESC sequence
// or a bidi override in the model's command cannot make the question
// show another command than the one that would run.
func TestRunCommandApprovalEscapesSummary(t *testing.T) {
	root := newWorkspace(t, nil)
	env := newEnv(t, root, Policy{RunCommand: "ask"})
	deny := &fakeApprover{decision: Deny}
	env.Approver = deny
	res, _ := runCmd(t, context.Background(), env, map[string]any{"command": "echo safe\x1b[2K\r# rm -rf \u202e~"})
	mustErr(t, res, "denied")
	if got, want := deny.asked[0].Summary, `echo safe\x1b[2K\r# rm -rf \u202e~`; got != want {
		t.Fatalf("summary %q, want %q", got, want)
	}
}
