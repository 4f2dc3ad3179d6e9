package agent

import (
	"context"
	"errors"
	"testing"

	"github.com/agentls/agentls/tools"
)

// TestApprovalsRememberTheAction: "always" allows the same command again
// without asking, never another command nor the tool as a whole; "once"
// is not remembered; anything but a yes denies.
func TestApprovalsRememberTheAction(t *testing.T) {
	var a Approvals
	ctx := context.Background()
	asked := 0
	answer := func(c Choice, err error) func(context.Context) (Choice, error) {
		return func(context.Context) (Choice, error) { asked++; return c, err }
	}
	ls := tools.ApprovalRequest{Tool: "run_command", Summary: "ls"}
	rm := tools.ApprovalRequest{Tool: "run_command", Summary: "rm -rf build"}

	if d, err := a.Approve(ctx, ls, answer(Choice{Allow: true}, nil)); d != tools.AllowOnce || err != nil {
		t.Fatalf("allow once = %v, %v", d, err)
	}
	if d, _ := a.Approve(ctx, ls, answer(Deny, nil)); d != tools.Deny || asked != 2 {
		t.Fatalf("once was remembered: %v after %d questions", d, asked)
	}
	if d, _ := a.Approve(ctx, ls, answer(Choice{Allow: true, Always: true}, nil)); d != tools.AllowOnce {
		t.Fatalf("always = %v, want AllowOnce (never the tool-wide AllowAlways)", d)
	}
	if d, _ := a.Approve(ctx, ls, answer(Deny, nil)); d != tools.AllowOnce || asked != 3 {
		t.Fatalf("the remembered command was asked again (%d) or denied (%v)", asked, d)
	}
	if d, _ := a.Approve(ctx, rm, answer(Deny, nil)); d != tools.Deny || asked != 4 {
		t.Fatalf("another command was let through by the memory: %v after %d questions", d, asked)
	}
	if d, err := a.Approve(ctx, rm, answer(Choice{Allow: true}, errors.New("client gone"))); d != tools.Deny || err != nil {
		t.Fatalf("a failed question = %v, %v; want a plain deny", d, err)
	}
	cctx, cancel := context.WithCancel(ctx)
	cancel()
	if d, err := a.Approve(cctx, rm, answer(Deny, cctx.Err())); d != tools.Deny || !errors.Is(err, context.Canceled) {
		t.Fatalf("a question ended by the run = %v, %v; want deny with the run's error", d, err)
	}
}
