package agent

import (
	"fmt"
	"log/slog"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/agentls/agentls/agent/llm"
	openai "github.com/sashabaranov/go-openai"
)

func hm(role, content string) HistoryMessage {
	return HistoryMessage{Message: llm.Message{Role: role, Content: content}}
}

// CarryHistory starts at the latest summary, drops a dangling tool call
// and cuts old messages at a user message.
func TestCarryHistory(t *testing.T) {
	call := HistoryMessage{Message: llm.Message{Role: openai.ChatMessageRoleAssistant,
		ToolCalls: []openai.ToolCall{{ID: "c1", Type: openai.ToolTypeFunction, Function: openai.FunctionCall{Name: "read_file", Arguments: "{}"}}}}}
	h := []HistoryMessage{
		hm("user", "old task"), hm("assistant", "old answer"),
		{Message: llm.Message{Role: "user", Content: "summary"}, Summary: true},
		hm("user", "task"), call,
	}
	got := CarryHistory(h, 0)
	if len(got) != 2 || !got[0].Summary || got[1].Message.Content != "task" {
		t.Fatalf("CarryHistory = %+v", got)
	}
	answered := append(h[:len(h):len(h)], HistoryMessage{Message: llm.Message{Role: "tool", ToolCallID: "c1", Content: "file"}}, hm("assistant", "done"))
	if got := CarryHistory(answered, 0); len(got) != 5 {
		t.Fatalf("a complete chain was cut: %+v", got)
	}
	long := []HistoryMessage{hm("user", strings.Repeat("a", 1000)), hm("assistant", "x"), hm("user", "recent"), hm("assistant", "y")}
	if got := CarryHistory(long, 200); len(got) != 2 || got[0].Message.Content != "recent" {
		t.Fatalf("bounded CarryHistory = %+v", got)
	}
}

// The store writes owner-only files, redacts the conversation, keeps at
// most MaxSessions (oldest dropped first), and sets aside a file of
// another version.
func TestSessionStore(t *testing.T) {
	state, ws := t.TempDir(), t.TempDir()
	st, err := OpenSessionStore(state, ws, nil)
	if err != nil {
		t.Fatal(err)
	}
	st.MaxSessions = 2
	key := "sk-proj-abcdefghijklmnopqrstuvwxyz012345"
	var ids []string
	for i := range 3 {
		s := NewSession("")
		s.st.Title = "t" + string(rune('0'+i))
		s.st.Runs = []string{"r"}
		s.st.History = []HistoryMessage{hm("user", "use key "+key)}
		if err := st.Save(s, []SavedProposal{{RunID: "r", Path: filepath.Join(ws, "a"), Base: "a", Proposed: "b"}}, NewRedactor(key)); err != nil {
			t.Fatal(err)
		}
		ids = append(ids, s.ID())
		// Distinct modification times, oldest first.
		if err := os.Chtimes(st.path(s.ID()), timeAt(i), timeAt(i)); err != nil {
			t.Fatal(err)
		}
	}
	loaded := st.Load()
	if len(loaded) != 2 || loaded[0].Session.ID() != ids[2] || loaded[1].Session.ID() != ids[1] {
		t.Fatalf("loaded %d sessions, want the newest two", len(loaded))
	}
	data, err := os.ReadFile(st.path(ids[2]))
	if err != nil {
		t.Fatal(err)
	}
	if strings.Contains(string(data), key) {
		t.Fatal("the API key was saved")
	}
	if fi, _ := os.Stat(st.path(ids[2])); fi.Mode().Perm() != 0o600 {
		t.Fatalf("session file mode %v", fi.Mode())
	}
	if len(loaded[0].Proposals) != 1 || loaded[0].Proposals[0].Proposed != "b" {
		t.Fatalf("proposals = %+v", loaded[0].Proposals)
	}
	if err := os.WriteFile(st.path(ids[1]), []byte(`{"version": 99, "id": "`+ids[1]+`"}`), 0o600); err != nil {
		t.Fatal(err)
	}
	if got := st.Load(); len(got) != 1 {
		t.Fatalf("a foreign version was loaded: %d sessions", len(got))
	}
	if _, err := os.Stat(st.path(ids[1]) + ".bad"); err != nil {
		t.Fatalf("foreign version not set aside: %v", err)
	}
	if _, err := st.LoadOne("../../etc/passwd"); err == nil {
		t.Fatal("LoadOne accepted a path as id")
	}
}

func timeAt(i int) time.Time { return time.Date(2026, 1, 1, 0, 0, i, 0, time.UTC) }

// A session file larger than MaxSessionLoadBytes is set aside unread with
// a warning saying why, and the other sessions still load; saving another
// session afterwards does not drop them to make room for it.
func TestOversizedSessionFileSetAside(t *testing.T) {
	state, ws := t.TempDir(), t.TempDir()
	var logs strings.Builder
	st, err := OpenSessionStore(state, ws, slog.New(slog.NewTextHandler(&logs, nil)))
	if err != nil {
		t.Fatal(err)
	}
	var ids []string
	for i := range 3 {
		s := NewSession("")
		s.st.Title = fmt.Sprint("t", i)
		if err := st.Save(s, nil, NewRedactor("")); err != nil {
			t.Fatal(err)
		}
		ids = append(ids, s.ID())
		if err := os.Chtimes(st.path(s.ID()), timeAt(i), timeAt(i)); err != nil {
			t.Fatal(err)
		}
	}
	// The newest grows past the bound (a sparse tail: never read, or the
	// test would cost what the bug did).
	big := st.path(ids[2])
	if err := os.Truncate(big, MaxSessionLoadBytes+1); err != nil {
		t.Fatal(err)
	}
	if err := os.Chtimes(big, timeAt(2), timeAt(2)); err != nil {
		t.Fatal(err)
	}
	loaded := st.Load()
	if len(loaded) != 2 || loaded[0].Session.ID() != ids[1] || loaded[1].Session.ID() != ids[0] {
		t.Fatalf("loaded %d sessions, want the two others", len(loaded))
	}
	if !strings.Contains(logs.String(), "more than the 32 MiB a session file may have") {
		t.Fatalf("no warning naming the bound:\n%s", logs.String())
	}
	if fi, err := os.Stat(big + ".bad"); err != nil || fi.Size() != MaxSessionLoadBytes+1 {
		t.Fatalf("oversized file not set aside whole: %v", err)
	}
	s := NewSession("")
	if err := st.Save(s, nil, NewRedactor("")); err != nil {
		t.Fatal(err)
	}
	if got := st.Load(); len(got) != 3 {
		t.Fatalf("after a save, %d sessions load, want 3", len(got))
	}
}
