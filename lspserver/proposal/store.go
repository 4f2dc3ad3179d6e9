package proposal

import (
	"sort"
	"sync"

	"github.com/agentls/agentls/tools/text"
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
	// decided counts, per run and path, the changes (old, new) the user
	// already accepted or rejected, so a later Put of the same run does not
	// bring them back; ForgetRun drops it.
	decided map[runPath]map[hunkKey]int
}

type runPath struct{ runID, path string }

// fileState is one path: the current document text shared by all its
// proposals.
type fileState struct {
	path    string
	text    string
	version *int32
	index   *text.Index // line index of text, built on first use
	props   []*proposal // in order of first Put
}

// proposal is one run's change to one file.
type proposal struct {
	file        *fileState
	runID       string
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
func (fs *fileState) setText(t string) {
	if fs.text != t {
		fs.text = t
		fs.index = nil
	}
}

// idx returns the line index of the current text.
func (fs *fileState) idx() *text.Index {
	if fs.index == nil {
		fs.index = text.NewIndex(fs.text)
	}
	return fs.index
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
