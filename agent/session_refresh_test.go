package agent

import (
	"testing"
	"time"

	"github.com/agentls/agentls/agent/llm"
)

// A session saved by another front-end after this copy was read is
// adopted by Refresh; an older file, or a session with a run in progress,
// is not.
func TestSessionStoreRefresh(t *testing.T) {
	st, err := OpenSessionStore(t.TempDir(), t.TempDir(), nil)
	if err != nil {
		t.Fatal(err)
	}
	mine := NewSession("")
	mine.st.Title = "mine"
	if err := st.Save(mine, nil, NewRedactor()); err != nil {
		t.Fatal(err)
	}
	r, err := st.LoadOne(mine.ID())
	if err != nil {
		t.Fatal(err)
	}
	theirs := r.Session
	theirs.st.History = []HistoryMessage{{Message: llm.Message{Role: "user", Content: "asked elsewhere"}}}
	theirs.st.Updated = time.Now().UTC().Add(time.Second)
	if err := st.Save(theirs, nil, NewRedactor()); err != nil {
		t.Fatal(err)
	}
	mine.Reserve("run1")
	if st.Refresh(mine) {
		t.Fatal("refreshed a session with a run in progress")
	}
	mine.Release("run1")
	if !st.Refresh(mine) || len(mine.History()) != 1 || mine.History()[0].Message.Content != "asked elsewhere" {
		t.Fatalf("not refreshed: %+v", mine.History())
	}
	if st.Refresh(mine) {
		t.Fatal("refreshed again from the same file")
	}
}
