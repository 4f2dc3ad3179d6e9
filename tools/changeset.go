package tools

import (
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"maps"
	"slices"
	"strings"
	"sync"

	"github.com/aymanbagabas/go-udiff"

	"github.com/agentls/agentls/internal/text"
	"github.com/agentls/agentls/internal/workspace"
)

// StagedFile is one file's staged change in a run. Base is the text the
// change was made against (what the file held when first edited, or what
// the editor last applied from this run); Text is the proposed text.
type StagedFile struct {
	Path     string // absolute path
	Base     string // "" when Created
	BaseHash string // hex SHA-256 of Base; "" when Created
	Text     string // proposed text
	TextHash string // hex SHA-256 of Text
	Created  bool   // the file did not exist at Base
	Seq      uint64 // bumped on every change to the entry, for subscribers
}

// Pending reports whether the entry still proposes a change.
func (f StagedFile) Pending() bool { return f.Created || f.Text != f.Base }

// Unified returns the entry's change as a unified diff (go-udiff), git
// style with rel as the file name; "" when nothing is pending.
func (f StagedFile) Unified(rel string) string {
	if !f.Pending() {
		return ""
	}
	from := "a/" + rel
	if f.Created {
		from = "/dev/null"
	}
	return udiff.Unified(from, "b/"+rel, f.Base, f.Text)
}

// Changeset holds one run's staged edits: tools write here instead of to
// disk, the run's later reads see this text, and lspserver turns it into
// proposals (preview mode) or workspace/applyEdit (apply mode). It is safe
// for concurrent use.
type Changeset struct {
	view   *workspace.View
	ledger *Ledger // the run's ledger, told about applies and discards

	mu    sync.Mutex
	files map[string]*StagedFile
	seq   uint64
	subs  map[int]func(path string)
	next  int
}

// NewChangeset returns an empty changeset over view.
func NewChangeset(view *workspace.View) *Changeset {
	return &Changeset{view: view, files: map[string]*StagedFile{}, subs: map[int]func(string){}}
}

// hashText is the content hash used by the view, the ledger and here.
func hashText(s string) string {
	sum := sha256.Sum256([]byte(s))
	return hex.EncodeToString(sum[:])
}

// Subscribe registers fn to be called with the path of every staged file
// whose entry changes (staged, rebased, applied, discarded). fn runs on the
// goroutine that made the change, after the changeset's lock is released,
// so it may call back into the changeset (MarkApplied, SetProposed and
// Discard notify too, so fn can be re-entered for the same path: compare
// Base and Text, or Seq, to see what is left to do). A tool call waits for
// fn. In apply mode lspserver sends workspace/applyEdit from here; in
// preview mode it refreshes proposals.
func (c *Changeset) Subscribe(fn func(path string)) (cancel func()) {
	c.mu.Lock()
	defer c.mu.Unlock()
	id := c.next
	c.next++
	c.subs[id] = fn
	return func() {
		c.mu.Lock()
		defer c.mu.Unlock()
		delete(c.subs, id)
	}
}

// notify calls the subscribers; the lock must not be held.
func (c *Changeset) notify(path string) {
	c.mu.Lock()
	fns := make([]func(string), 0, len(c.subs))
	for _, id := range slices.Sorted(maps.Keys(c.subs)) {
		fns = append(fns, c.subs[id])
	}
	c.mu.Unlock()
	for _, fn := range fns {
		fn(path)
	}
}

// stage records newText as the proposed text of path. For a path not yet
// staged, base/baseHash are the text the edit was made against and created
// says the file did not exist.
func (c *Changeset) stage(path, base, baseHash string, created bool, newText string) {
	c.mu.Lock()
	f, ok := c.files[path]
	if !ok {
		f = &StagedFile{Path: path, Base: base, BaseHash: baseHash, Created: created}
		c.files[path] = f
	}
	f.Text, f.TextHash = newText, hashText(newText)
	c.seq++
	f.Seq = c.seq
	c.mu.Unlock()
	c.notify(path)
}

// rebase moves path's staged change onto a new base (the file changed under
// it and the three-way merge was clean).
func (c *Changeset) rebase(path, base, merged string) {
	c.update(path, func(f *StagedFile) {
		f.Base, f.BaseHash, f.Created = base, hashText(base), false
		f.Text, f.TextHash = merged, hashText(merged)
	})
}

// update applies fn to path's entry, if staged, bumps its Seq and tells
// subscribers; it reports whether path was staged.
func (c *Changeset) update(path string, fn func(*StagedFile)) bool {
	c.mu.Lock()
	f, ok := c.files[path]
	if ok {
		fn(f)
		c.seq++
		f.Seq = c.seq
	}
	c.mu.Unlock()
	if ok {
		c.notify(path)
	}
	return ok
}

// Get returns a copy of path's entry.
func (c *Changeset) Get(path string) (StagedFile, bool) {
	c.mu.Lock()
	defer c.mu.Unlock()
	f, ok := c.files[path]
	if !ok {
		return StagedFile{}, false
	}
	return *f, true
}

// Files returns the paths with a pending change, sorted.
func (c *Changeset) Files() []string {
	c.mu.Lock()
	defer c.mu.Unlock()
	var out []string
	for p, f := range c.files {
		if f.Pending() {
			out = append(out, p)
		}
	}
	slices.Sort(out)
	return out
}

// Touched returns every path the run changed and still holds an entry
// for, sorted: pending changes and changes the editor already applied
// (apply mode, accepted hunks), but not discarded ones. Checks run when
// it is not empty.
func (c *Changeset) Touched() []string {
	c.mu.Lock()
	defer c.mu.Unlock()
	out := make([]string, 0, len(c.files))
	for p := range c.files {
		out = append(out, p)
	}
	slices.Sort(out)
	return out
}

// Edits returns the minimal TextEdits turning path's Base into its Text,
// with ranges in enc (for a WorkspaceEdit against a document that still
// holds Base; for another version of the document use text.Diff with that
// text).
func (c *Changeset) Edits(path string, enc text.Encoding) ([]text.Edit, error) {
	f, ok := c.Get(path)
	if !ok {
		return nil, fmt.Errorf("edits for %s: nothing staged", path)
	}
	return text.Diff(f.Base, f.Text, enc), nil
}

// UnifiedDiff returns the pending changes of every file as one unified
// diff (paths relative to their workspace folder, git style), for the CLI
// and for transcripts.
func (c *Changeset) UnifiedDiff() string {
	var b strings.Builder
	for _, p := range c.Files() {
		f, _ := c.Get(p)
		rel := c.view.DisplayName(p)
		b.WriteString(f.Unified(rel))
	}
	return b.String()
}

// MarkApplied tells the changeset that the editor applied (all or part of)
// path's change and the file now holds applied. That text becomes the new
// base: the run treats it as its own (no CONFLICT against itself), and
// whatever of Text is still not applied stays pending. lspserver calls it
// after a successful workspace/applyEdit once the buffer holds the result.
func (c *Changeset) MarkApplied(path, applied string) {
	hash := hashText(applied)
	c.update(path, func(f *StagedFile) {
		f.Base, f.BaseHash, f.Created = applied, hash, false
		if c.ledger != nil {
			// Under c.mu, so a concurrent Discard (which forgets the
			// read) cannot slip in between. The ledger takes no other lock.
			c.ledger.Record(path, hash, applied)
		}
	})
}

// SetProposed replaces path's proposed text, e.g. after the user rejected
// some hunks: the run's later reads and edits see proposed. It reports
// whether path was staged.
func (c *Changeset) SetProposed(path, proposed string) bool {
	return c.update(path, func(f *StagedFile) {
		f.Text, f.TextHash = proposed, hashText(proposed)
	})
}

// Discard drops path's staged change (the user rejected it, or it could
// not be rebased). The run's read of path is forgotten too, so its next
// edit asks for a fresh read instead of working from text that is gone.
func (c *Changeset) Discard(path string) {
	c.mu.Lock()
	_, ok := c.files[path]
	delete(c.files, path)
	c.mu.Unlock()
	if ok {
		if c.ledger != nil {
			c.ledger.Forget(path)
		}
		c.notify(path)
	}
}

// HashText is the content hash of StagedFile.BaseHash and TextHash, for
// front-ends that stage a change without a run (agentls.remember).
func HashText(s string) string { return hashText(s) }
