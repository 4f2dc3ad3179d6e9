package agent

import (
	"path/filepath"
	"slices"
	"testing"

	"github.com/agentls/agentls/agent/proposal"
)

// fakeReview is one face's proposal store seen through ReviewMerge.
type fakeReview struct {
	store            *proposal.Store
	dropped, restore []string
	refuse           string // a path Restore refuses
}

func (r *fakeReview) Drop(p SavedProposal) {
	r.dropped = append(r.dropped, p.Path)
	r.store.Put(p.RunID, p.Path, "", nil, "", false)
}

func (r *fakeReview) Restore(p SavedProposal) bool {
	if p.Path == r.refuse {
		return false
	}
	r.restore = append(r.restore, p.Path)
	r.store.Put(p.RunID, p.Path, p.Base, nil, p.Proposed, p.Created)
	return true
}

// TestSessionSaverMergesTwoServers runs the merge-on-write rule between two
// servers saving one session to one store: a proposal decided in one is
// dropped from the other, one made in one joins the other, a created file
// is saved from nothing, and a refused restore is left out.
func TestSessionSaverMergesTwoServers(t *testing.T) {
	ws := t.TempDir()
	st, err := OpenSessionStore(t.TempDir(), ws, nil)
	if err != nil {
		t.Fatal(err)
	}
	a, b := &SessionSaver{Store: st}, &SessionSaver{Store: st}
	ra, rb := &fakeReview{store: proposal.New()}, &fakeReview{store: proposal.New()}
	sess := NewSession("")
	sess.st.Runs = []string{"r1", "r2", "r3"}
	x, y, n, bad := filepath.Join(ws, "x.go"), filepath.Join(ws, "y.go"), filepath.Join(ws, "new.go"), filepath.Join(ws, "bad.go")

	// Server A stages a change to x and a new file; other runs are not saved.
	ra.store.Put("r1", x, "a\n", nil, "b\n", false)
	ra.store.Put("r1", n, "", nil, "new\n", true)
	ra.store.Put("other", y, "q\n", nil, "w\n", false)
	if err := a.Save(sess, ra.store.List(""), nil, ra); err != nil {
		t.Fatal(err)
	}
	disk, err := st.LoadOne(sess.ID())
	if err != nil {
		t.Fatal(err)
	}
	if len(disk.Proposals) != 2 {
		t.Fatalf("saved %d proposals, want x and the new file: %+v", len(disk.Proposals), disk.Proposals)
	}
	for _, p := range disk.Proposals {
		if p.Path == n && (p.Base != "" || !p.Created || p.Proposed != "new\n") {
			t.Errorf("a new file is saved as created from nothing: %+v", p)
		}
	}

	// Server B reads the file, decides x (accepts it: gone from its review)
	// and stages y and bad (which A will refuse), then saves.
	b.Loaded(sess.ID(), disk.Proposals)
	rb.store.Put("r1", n, "", nil, "new\n", true)
	rb.store.Put("r2", y, "q\n", nil, "w\n", false)
	rb.store.Put("r3", bad, "1\n", nil, "2\n", false)
	if err := b.Save(sess, rb.store.List(""), nil, rb); err != nil {
		t.Fatal(err)
	}

	// A's next save drops x (decided in B) and shows y (made in B), not bad.
	ra.refuse = bad
	if err := a.Save(sess, ra.store.List(""), nil, ra); err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(ra.dropped, []string{x}) {
		t.Errorf("A dropped %v, want [%s] (decided in B)", ra.dropped, x)
	}
	if !slices.Equal(ra.restore, []string{y}) {
		t.Errorf("A restored %v, want [%s] (made in B; bad.go refused)", ra.restore, y)
	}
	disk, err = st.LoadOne(sess.ID())
	if err != nil {
		t.Fatal(err)
	}
	var paths []string
	for _, p := range disk.Proposals {
		paths = append(paths, p.Path)
	}
	slices.Sort(paths)
	if want := []string{n, y}; !slices.Equal(paths, want) {
		t.Errorf("the file holds %v after the merge, want %v", paths, want)
	}

	states := ProposalStates(ra.store.List(""), sess)
	if len(states) != 2 {
		t.Fatalf("ProposalStates = %+v, want the session's two proposals (not run other's)", states)
	}
	for _, s := range states {
		if s.Path == n && (!s.Created || s.Pending != 1) {
			t.Errorf("the new file's state = %+v, want created with one pending hunk", s)
		}
	}
}
