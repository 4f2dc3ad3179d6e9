package proposal

import (
	"sort"
	"sync"
	"sync/atomic"

	"github.com/agentls/agentls/internal/text"
	"github.com/aymanbagabas/go-udiff"
)

// Store holds every pending proposal of a server. It is safe for concurrent
// use; every answer is a snapshot copy that later changes do not touch.
type Store struct {
	mu      sync.Mutex
	files   map[string]*fileState
	byID    map[string]*hunk
	hunkSeq uint64 // last hunk number handed out; ids are never reused
	planSeq uint64
	plans   map[uint64]*plan
	subSeq  uint64
	subs    map[uint64]func(path string)
	revSeq  uint64 // last text revision handed out (Revision)
	// decided counts, per run and path, the changes (old, new) the user
	// already accepted or rejected, so a later Put of the same run does not
	// bring them back; ForgetRun drops it.
	decided map[runPath]map[hunkKey]int
	// sources marks the runs that are suggestions (suggest.go) with
	// their source; suggestSeq numbers them.
	sources    map[string]string
	suggestSeq uint64
	// gen counts the calls that may change what a query answers (Gen).
	gen atomic.Uint64
}

type runPath struct{ runID, path string }

// fileState is one path: the current document text shared by all its
// proposals.
type fileState struct {
	path string
	// text is the current document text; buf is the same text with a line
	// index, for position conversions, built on first use and then kept
	// in step by every LSP change (nil after other changes until needed).
	text    pieces
	buf     *text.Buffer
	rev     uint64 // Revision: changes with every change of text
	version *int32
	props   []*proposal // in order of first Put
}

// proposal is one run's change to one file.
type proposal struct {
	file        *fileState
	runID       string
	source      string // Proposal.Source, copied so hunk snapshots carry it
	base        string
	baseVersion *int32
	proposed    string
	created     bool
	hunks       []*hunk // sorted by start
}

// hunk is the live form of Hunk.
type hunk struct {
	id               string
	prop             *proposal
	start, end       int
	oldText, newText string
	status           Status
	reason           string
	lastError        string
	plan             uint64 // in-flight accept plan, 0 if none
	// superseded is the id of the accepted hunk of another run that this
	// one clashes with (clash.go); such a hunk stays conflicted for good.
	superseded string
}

// hunkKey identifies a change by content, to keep ids across Puts.
type hunkKey struct{ old, new string }

func (h *hunk) key() hunkKey { return hunkKey{h.oldText, h.newText} }

// New returns an empty store.
func New() *Store {
	return &Store{
		files:   map[string]*fileState{},
		byID:    map[string]*hunk{},
		plans:   map[uint64]*plan{},
		subs:    map[uint64]func(string){},
		decided: map[runPath]map[hunkKey]int{},
		sources: map[string]string{},
	}
}

// OnChange registers fn to be called with a path whenever that path's set
// of proposals or the status of one of its hunks changes (see the package
// doc for when and where it runs). The returned function unsubscribes.
func (s *Store) OnChange(fn func(path string)) (cancel func()) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.subSeq++
	id := s.subSeq
	s.subs[id] = fn
	return func() {
		s.mu.Lock()
		defer s.mu.Unlock()
		delete(s.subs, id)
	}
}

// unlockAndNotify releases the lock, then tells subscribers about paths
// (deduplicated, in order).
func (s *Store) unlockAndNotify(paths []string) {
	s.pruneSuggestions(paths)
	if len(paths) == 0 {
		s.mu.Unlock()
		return
	}
	fns := make([]func(string), 0, len(s.subs))
	ids := make([]uint64, 0, len(s.subs))
	for id := range s.subs {
		ids = append(ids, id)
	}
	sort.Slice(ids, func(i, j int) bool { return ids[i] < ids[j] })
	for _, id := range ids {
		fns = append(fns, s.subs[id])
	}
	s.mu.Unlock()
	seen := make(map[string]bool, len(paths))
	for _, p := range paths {
		if seen[p] {
			continue
		}
		seen[p] = true
		for _, fn := range fns {
			fn(p)
		}
	}
}

// setText makes t the file's current text.
func (s *Store) setText(fs *fileState, t string) {
	if fs.text.Len() == len(t) && fs.text.HasAt(0, t) {
		return
	}
	fs.text.set(t)
	fs.buf = nil
	s.revSeq++
	fs.rev = s.revSeq
}

// editText applies one LSP change (already converted to the byte edit e by
// fs.buffer()) to the file's text and its buffer.
func (s *Store) editText(fs *fileState, c text.Change, e udiff.Edit, enc text.Encoding) {
	fs.text.replace(e.Start, e.End, e.New)
	if err := fs.buffer().Apply([]text.Change{c}, enc); err != nil {
		// Unreachable (the caller checked the text is UTF-8); rebuild
		// rather than keep a buffer that disagrees with text.
		fs.buf = nil
	}
	if fs.text.long() {
		fs.str()
	}
	s.revSeq++
	fs.rev = s.revSeq
}

// str returns the current text as one string. When the buffer exists the
// string is the buffer's (its String caches it until the next edit) and
// becomes the only piece, so the document is held twice (the buffer's
// chunks and one string) rather than three times (the buffer keeps its
// last string until it makes the next one). Text and buffer receive the
// same edits, converted by the same calls, so they agree.
func (fs *fileState) str() string {
	if fs.buf != nil && len(fs.text.ps) > 1 {
		fs.text.set(fs.buf.String())
	}
	return fs.text.String()
}

// newFile returns the state of a path the store starts tracking, its
// current text being t.
func (s *Store) newFile(path, t string, version *int32) *fileState {
	fs := &fileState{path: path, version: cloneVersion(version)}
	fs.text.set(t)
	s.revSeq++
	fs.rev = s.revSeq
	return fs
}

// Revision returns a number that changes whenever the store's text for path
// changes, and whether the store tracks path at all (it has proposals for
// it). It is cheap (one map lookup) and copies nothing, so a didChange hook
// can call it on every keystroke: read it before the editor's change
// reaches the caller's own copy of the document, and hand it to
// DocumentChangedLSP, which refuses the change if the store's text moved
// on meanwhile (an accept's Applied landed first).
func (s *Store) Revision(path string) (rev uint64, tracked bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if fs := s.files[path]; fs != nil {
		return fs.rev, true
	}
	return 0, false
}

// Gen changes whenever the store may have changed: every call that can
// change what a query (List, HunksAt, Hunk, Select) answers adds one
// under the lock, before it changes anything. A cache of answers built
// from queries (the code action lists) reads it first and keeps an answer
// only while it stays the same. Calls that change nothing may add one.
func (s *Store) Gen() uint64 { return s.gen.Load() }

// rangeOf converts the byte span [start, end) of fs's text to a Range.
func (fs *fileState) rangeOf(start, end int, enc text.Encoding) text.Range {
	b := fs.buffer()
	return text.Range{Start: b.Position(start, enc), End: b.Position(end, enc)}
}

// buffer returns the current text with its line index.
func (fs *fileState) buffer() *text.Buffer {
	if fs.buf == nil {
		fs.buf = text.NewBuffer(fs.text.String())
	}
	return fs.buf
}

func (fs *fileState) find(runID string) *proposal {
	for _, p := range fs.props {
		if p.runID == runID {
			return p
		}
	}
	return nil
}

// removeHunk drops h from its proposal and the id index, and the proposal
// and file when they become empty. It reports whether h was still live.
func (s *Store) removeHunk(h *hunk) bool {
	if s.byID[h.id] != h {
		return false
	}
	delete(s.byID, h.id)
	p := h.prop
	for i, x := range p.hunks {
		if x == h {
			p.hunks = append(p.hunks[:i:i], p.hunks[i+1:]...)
			break
		}
	}
	if len(p.hunks) == 0 {
		s.removeProposal(p)
	}
	return true
}

// removeProposal drops p (and its hunks) and its file when that was the
// last proposal.
func (s *Store) removeProposal(p *proposal) {
	for _, h := range p.hunks {
		if s.byID[h.id] == h {
			delete(s.byID, h.id)
		}
	}
	p.hunks = nil
	delete(s.sources, p.runID) // a suggestion is one proposal: its mark ends with it
	fs := p.file
	for i, x := range fs.props {
		if x == p {
			fs.props = append(fs.props[:i:i], fs.props[i+1:]...)
			break
		}
	}
	if len(fs.props) == 0 && s.files[fs.path] == fs {
		delete(s.files, fs.path)
	}
}

// decide remembers that the user settled h's change, for later Puts.
func (s *Store) decide(h *hunk) {
	k := runPath{h.prop.runID, h.prop.file.path}
	m := s.decided[k]
	if m == nil {
		m = map[hunkKey]int{}
		s.decided[k] = m
	}
	m[h.key()]++
}

// ForgetRun drops what the store remembers about changes the user settled
// for runID. Call it when the run ends: only a running agent Puts again, so
// the memory is useless afterwards. The run's proposals stay.
func (s *Store) ForgetRun(runID string) {
	s.mu.Lock()
	s.gen.Add(1)
	defer s.mu.Unlock()
	for k := range s.decided {
		if k.runID == runID {
			delete(s.decided, k)
		}
	}
}

// sortedFiles returns the file states in path order, for deterministic
// answers.
func (s *Store) sortedFiles() []*fileState {
	out := make([]*fileState, 0, len(s.files))
	for _, fs := range s.files {
		out = append(out, fs)
	}
	sort.Slice(out, func(i, j int) bool { return out[i].path < out[j].path })
	return out
}

func cloneVersion(v *int32) *int32 {
	if v == nil {
		return nil
	}
	c := *v
	return &c
}
