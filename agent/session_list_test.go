package agent

import (
	"os"
	"path/filepath"
	"slices"
	"testing"
	"time"
)

// ListSavedSessions: sessions that ran something, newest first, from one
// workspace or all, a gone workspace skipped, and nothing created by the
// listing itself.
func TestListSavedSessions(t *testing.T) {
	state := t.TempDir()
	wsA, wsB, gone := t.TempDir(), t.TempDir(), filepath.Join(t.TempDir(), "gone")
	if err := os.Mkdir(gone, 0o755); err != nil {
		t.Fatal(err)
	}
	base := time.Date(2026, 11, 29, 6, 0, 0, 0, time.UTC)
	save := func(ws, id string, runs int, age time.Duration) {
		t.Helper()
		st, err := OpenSessionStore(state, ws, nil)
		if err != nil {
			t.Fatal(err)
		}
		s := NewSession(id)
		for i := range runs {
			s.st.Runs = append(s.st.Runs, id+string(rune('a'+i)))
		}
		s.st.Title, s.st.Updated = "task "+id, base.Add(-age)
		if err := st.Save(s, nil, nil); err != nil {
			t.Fatal(err)
		}
	}
	save(wsA, "a01d", 1, 3*time.Hour)
	save(wsA, "a0e1", 2, time.Hour)
	save(wsA, "a0", 0, 0) // opened, never ran: not listed
	save(wsB, "b0", 1, 2*time.Hour)
	save(gone, "c0", 1, 0)
	if err := os.RemoveAll(gone); err != nil {
		t.Fatal(err)
	}

	ids := func(ls []SavedSession) (out []string) {
		for _, s := range ls {
			out = append(out, s.Info.ID+"@"+filepath.Base(s.Folder))
		}
		return out
	}
	all := ListSavedSessions(state, "", nil)
	want := []string{"a0e1@" + filepath.Base(wsA), "b0@" + filepath.Base(wsB), "a01d@" + filepath.Base(wsA)}
	if got := ids(all); !slices.Equal(got, want) {
		t.Fatalf("all workspaces: %v, want %v", got, want)
	}
	if all[0].Info.Title != "task a0e1" || len(all[0].Info.Runs) != 2 {
		t.Fatalf("info of the newest: %+v", all[0].Info)
	}
	if got := ids(ListSavedSessions(state, wsB, nil)); !slices.Equal(got, want[1:2]) {
		t.Fatalf("workspace B: %v", got)
	}

	// A workspace with no sessions: listed as nothing, and no session
	// directory appears for it.
	fresh := t.TempDir()
	before, _ := os.ReadDir(filepath.Join(state, "sessions"))
	if got := ListSavedSessions(state, fresh, nil); len(got) != 0 {
		t.Fatalf("fresh workspace: %v", ids(got))
	}
	if after, _ := os.ReadDir(filepath.Join(state, "sessions")); len(after) != len(before) {
		t.Fatalf("listing created a session directory: %d entries, was %d", len(after), len(before))
	}
}
