package lspserver_test

import (
	"slices"
	"strings"
	"testing"

	"go.lsp.dev/protocol"

	"github.com/agentls/agentls/internal/text"
	"github.com/agentls/agentls/lspserver"
	"github.com/agentls/agentls/lspserver/lsptest"
)

// reasonTitles are the choices a reject without a reason offers.
var reasonTitles = []string{"No reason", "Wrong approach", "Breaks behaviour", "Not what I asked", "Style / conventions"}

// rejectForReason runs "Bump" in a session, rejects the second hunk with
// args (its hunkId filled in) and returns the session id, the editor and
// the reject's answer.
func rejectForReason(t *testing.T, rs *runSession, ms *sessionScript, args reviewArgs) (string, lspserver.RejectResult) {
	t.Helper()
	e := editorFor(rs.session, text.UTF16)
	u := e.open(t, "demo.go", demoBase)
	first := runIn(t, rs, lspserver.RunArgs{Prompt: "Bump the return values.", URI: string(u)})
	rs.events(t, first.RunID)
	hunks := e.hunks(t, u)
	if len(hunks) != 2 {
		t.Fatalf("hunks = %+v", hunks)
	}
	args.HunkID = hunks[1].ID
	var res lspserver.RejectResult
	if err := rs.c.Call(lsptest.Context(t), protocol.MethodWorkspaceExecuteCommand, command(lspserver.CommandReject, args), &res); err != nil {
		t.Fatalf("agentls.reject: %v", err)
	}
	if res.Rejected != 1 {
		t.Fatalf("agentls.reject = %+v", res)
	}
	if hunks := e.hunks(t, u); len(hunks) != 1 {
		t.Fatalf("after the reject, hunks = %+v (the reject must not wait for the reason)", hunks)
	}
	return first.SessionID, res
}

// followup runs a second prompt in session and returns the task message
// the model saw.
func followup(t *testing.T, rs *runSession, ms *sessionScript, session string) string {
	t.Helper()
	second := runIn(t, rs, lspserver.RunArgs{Prompt: "Try again.", SessionID: session})
	rs.events(t, second.RunID)
	req := ms.request()
	if req == nil {
		t.Fatal("the model never saw the follow-up")
	}
	return req.LastUser()
}

// awaitReasonLogged waits for the log line that ends the question.
func awaitReasonLogged(t *testing.T, rs *runSession, want string) {
	t.Helper()
	if _, err := rs.c.Await(lsptest.Context(t), protocol.MethodWindowLogMessage, func(m lsptest.Message) bool {
		var p protocol.LogMessageParams
		return m.DecodeParams(&p) == nil && strings.Contains(p.Message, want)
	}); err != nil {
		t.Fatal(err)
	}
}

// A client without our plugins cannot type a reason: after "Agent: Reject
// change" the server asks why with window/showMessageRequest, and the
// reason chosen reaches the model on the session's next run like a typed
// one; a dismissed question still rejects, without a reason.
func TestRejectAsksReasonOfPlainClient(t *testing.T) {
	for _, tc := range []struct {
		name   string
		choose string // "" dismisses
		want   string
	}{
		{"chosen", "Wrong approach", `rejected 1 hunk of your change to demo.go, saying: "Wrong approach"`},
		{"dismissed", "", "rejected 1 hunk of your change to demo.go (no reason given)"},
		{"no reason", "No reason", "rejected 1 hunk of your change to demo.go (no reason given)"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			ms := &sessionScript{}
			rs := newRunSession(t, ms.script, runOpts{})
			if tc.choose != "" {
				rs.c.Handle(protocol.MethodWindowShowMessageRequest, lsptest.ChooseAction(tc.choose))
			}
			session, res := rejectForReason(t, rs, ms, reviewArgs{})
			if !res.AskingReason {
				t.Errorf("agentls.reject = %+v, want askingReason", res)
			}
			m, err := rs.c.Await(lsptest.Context(t), protocol.MethodWindowShowMessageRequest, nil)
			if err != nil {
				t.Fatal(err)
			}
			var p protocol.ShowMessageRequestParams
			if err := m.DecodeParams(&p); err != nil {
				t.Fatal(err)
			}
			var titles []string
			for _, a := range p.Actions {
				titles = append(titles, a.Title)
			}
			if !strings.Contains(p.Message, "Why reject?") || !strings.Contains(p.Message, "demo.go") || !slices.Equal(titles, reasonTitles) {
				t.Errorf("question %q with %q, want the reasons %q", p.Message, titles, reasonTitles)
			}
			if tc.choose == "Wrong approach" {
				awaitReasonLogged(t, rs, `with the reason "Wrong approach"`)
			} else {
				awaitReasonLogged(t, rs, "without a reason")
			}
			last := followup(t, rs, ms, session)
			if !strings.Contains(last, tc.want) {
				t.Errorf("follow-up task message lacks %q:\n%s", tc.want, last)
			}
		})
	}
}

// Our plugins type the reason themselves: a reject carrying one, or from a
// client declaring experimental.agentls, is never followed by the question.
func TestRejectDoesNotAskPluginOrTypedReason(t *testing.T) {
	for _, plugin := range []bool{false, true} {
		name := "typed"
		if plugin {
			name = "plugin"
		}
		t.Run(name, func(t *testing.T) {
			caps := lsptest.DefaultCapabilities()
			args := reviewArgs{Reason: "keep c at 3"}
			want := `saying: "keep c at 3"`
			if plugin {
				caps.Experimental = protocol.LSPAny(`{"agentls":{"elicitationForms":true,"answerViews":true}}`)
				args, want = reviewArgs{}, "(no reason given)"
			}
			ms := &sessionScript{}
			rs := newRunSession(t, ms.script, runOpts{init: lsptest.InitOptions{Capabilities: &caps}})
			session, res := rejectForReason(t, rs, ms, args)
			if res.AskingReason {
				t.Errorf("agentls.reject = %+v, want no question", res)
			}
			last := followup(t, rs, ms, session)
			if !strings.Contains(last, want) {
				t.Errorf("follow-up task message lacks %q:\n%s", want, last)
			}
			for _, m := range rs.c.Received() {
				if m.Method == protocol.MethodWindowShowMessageRequest {
					t.Errorf("the server asked %s", m)
				}
			}
		})
	}
}
