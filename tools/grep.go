package tools

import (
	"bytes"
	"context"
	_ "embed"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/agentls/agentls/internal/workspace"
	"github.com/bmatcuk/doublestar/v4"

	"github.com/agentls/agentls/tools/grepengine"
)

//go:embed descriptions/grep.md
var grepDescription string

// Bounds of a grep call.
const (
	grepMaxMatches  = 200      // lines shown
	grepMaxLineLen  = 300      // characters per shown line
	grepMaxFileSize = 64 << 20 // larger files are skipped (and counted)
	grepTimeout     = 30 * time.Second
)

type grepParams struct {
	Pattern    string  `json:"pattern" jsonschema:"RE2 regex"`
	Path       *string `json:"path,omitempty" jsonschema:"file or directory (default: workspace root)"`
	Glob       *string `json:"glob,omitempty" jsonschema:"only files matching this glob, e.g. *.go"`
	IgnoreCase *bool   `json:"ignore_case,omitempty" jsonschema:"case-insensitive"`
}

// Grep is the grep tool.
func Grep() Tool {
	return New("grep", grepDescription, true, grep)
}

func grep(ctx context.Context, env *Env, p grepParams) (Result, error) {
	if p.Pattern == "" {
		return Errorf("pattern is empty"), nil
	}
	m, err := grepengine.Compile(p.Pattern, p.IgnoreCase != nil && *p.IgnoreCase)
	if err != nil {
		return regexpHint(p.Pattern, err), nil
	}
	root := "."
	if p.Path != nil && strings.TrimSpace(*p.Path) != "" {
		root = *p.Path
	}
	rootAbs, err := env.resolve(root)
	if err != nil {
		return Errorf("%v", err), nil
	}
	glob := ""
	if p.Glob != nil {
		glob = strings.TrimPrefix(filepath.ToSlash(*p.Glob), "./")
		if glob != "" && !doublestar.ValidatePattern(glob) {
			return Errorf("invalid glob %q (examples: *.go, src/**/*.ts)", glob), nil
		}
	}
	dir, err := env.View.OpenDir(rootAbs)
	if err != nil {
		return Errorf("%v", err), nil
	}
	defer dir.Close()
	s := &grepSearch{env: env, m: m, root: rootAbs, glob: glob, dir: dir, staged: map[string]string{}, open: map[string]bool{},
		max: grepMaxMatches, lineLen: grepMaxLineLen}
	if WantsData(ctx) {
		s.max, s.lineLen, s.data = DataMaxMatches+1, DataMaxLineLen, true
	}
	for _, f := range env.Changes.Files() {
		if st, ok := env.Changes.Get(f); ok {
			s.staged[f] = st.Text
		}
	}
	for _, k := range env.View.OpenPaths() {
		s.open[k] = true
	}
	wctx, cancel := context.WithTimeout(ctx, grepTimeout)
	defer cancel()
	pool := sync.Pool{New: func() any { return new(scratch) }}
	err = env.View.WalkFiles(wctx, rootAbs, 0, func(path string, d fs.DirEntry) error {
		sc := pool.Get().(*scratch)
		defer pool.Put(sc)
		if d.Type()&fs.ModeSymlink != 0 {
			return nil // never followed, as before
		}
		if !d.Type().IsRegular() {
			if path == rootAbs {
				return workspace.ErrNotRegular
			}
			s.count(func() { s.special = append(s.special, path) })
			return nil
		}
		s.file(path, sc)
		return nil
	})
	timedOut := false
	if err != nil {
		switch {
		case ctx.Err() != nil:
			return Result{}, ctx.Err()
		case errors.Is(err, context.DeadlineExceeded):
			timedOut = true
		case errors.Is(err, workspace.ErrNotRegular):
			return Errorf("grep: %s is not a regular file (a named pipe, socket or device); only regular files and directories can be searched", env.display(rootAbs)), nil
		case errors.Is(err, fs.ErrNotExist):
			return Errorf("not found: %s", env.display(rootAbs)), nil
		default:
			return Errorf("grep: %v", err), nil
		}
	}
	// Files this run created that are not on disk yet.
	sc := new(scratch)
	for f := range s.staged {
		if _, err := os.Lstat(f); err != nil && (f == rootAbs || strings.HasPrefix(f, rootAbs+"/")) {
			s.file(f, sc)
		}
	}
	if s.data {
		return s.dataResult(p.Pattern, timedOut), nil
	}
	return s.result(p.Pattern, timedOut), nil
}

// regexpHint explains an RE2 syntax error to the model.
func regexpHint(pattern string, err error) Result {
	return Errorf("invalid RE2 regex %q: %v (escape special characters such as ( [ . * with a backslash; RE2 has no lookaround or backreferences)", pattern, err)
}

// scratch holds one grep worker's buffers, reused across files.
type scratch struct {
	data   []byte // file contents read from disk
	engine grepengine.Scratch
}

// grepSearch is the state of one grep call, shared by the workers.
type grepSearch struct {
	env     *Env
	m       *grepengine.Matcher
	root    string
	glob    string
	dir     *workspace.Dir    // the folder every disk read is confined to
	staged  map[string]string // this run's staged texts (read-only here)
	open    map[string]bool   // paths with an editor buffer
	max     int               // lines kept: grepMaxMatches, or more for a program
	lineLen int               // characters kept of each line
	data    bool              // the caller is a program (WantsData)

	mu       sync.Mutex
	hits     []fileHits // files with shown lines, pruned to the first by path
	kept     int        // lines in hits
	cutoff   string     // once pruned: files sorting after this are only counted
	total    int        // matching lines, shown or not
	files    int        // files with matches
	binary   int
	secret   int
	tooLarge int
	special  []string // FIFOs, sockets and devices: never opened
}

type fileHits struct {
	path  string // as shown to the model
	lines []grepLine
}

// grepLine is one matching line: its 1-based number and its text (cut).
type grepLine struct {
	num  int
	text string
}

// file searches one file and records its matching lines.
func (s *grepSearch) file(abs string, sc *scratch) {
	if s.glob != "" {
		target := filepath.Base(abs)
		if strings.Contains(s.glob, "/") {
			target, _ = workspace.RelTo(s.root, abs)
		}
		if ok, _ := doublestar.Match(s.glob, target); !ok {
			return
		}
	}
	if s.env.isSecret(abs) {
		s.count(func() { s.secret++ })
		return
	}
	data, ok := s.content(abs, sc)
	if !ok {
		return
	}
	if bytes.IndexByte(data, 0) >= 0 {
		s.count(func() { s.binary++ })
		return
	}
	// Only files under .git are masked (asked first: converting every
	// file's bytes to a string to ask was a fifth of a search's CPU).
	if inGitDir(abs) {
		if r, masked := gitRedacted(abs, string(data)); masked {
			// Searched masked, not only shown masked: a pattern matching
			// the credential must not tell, line by line, what it is.
			data = []byte(r)
		}
	}
	var lines []grepLine
	n := 0
	var display string
	shown := s.max // lines of this file that may still be shown
	s.m.EachMatch(data, &sc.engine, func(num int, line []byte) bool {
		n++
		if n == 1 {
			display = s.env.display(abs)
			if s.pastCutoff(display) {
				shown = 0 // only counted: do not format its lines
			}
		}
		if len(lines) < shown {
			lines = append(lines, grepLine{num, shownLine(line, s.lineLen)})
		}
		return true
	})
	if n > 0 {
		s.add(fileHits{path: display, lines: lines}, n)
	}
}

// content returns the text grep searches for abs: this run's staged text,
// else the editor buffer, else the disk.
func (s *grepSearch) content(abs string, sc *scratch) ([]byte, bool) {
	if t, ok := s.staged[abs]; ok {
		return []byte(t), true
	}
	if s.open[abs] {
		if snap, ok := s.env.View.Overlay(abs); ok {
			return []byte(snap.Text), true
		}
	}
	return s.readDisk(abs, sc)
}

// readDisk reads a regular file into sc.data through the confined,
// non-blocking open of the grep's folder (raw descriptors: os.Open would
// register every file with the poller, a third of the syscall time of a
// search over thousands of small files). A file swapped for a symlink, FIFO
// or anything but a regular file inside the folder is skipped.
func (s *grepSearch) readDisk(abs string, sc *scratch) ([]byte, bool) {
	f, err := s.dir.Open(abs)
	if err != nil {
		if errors.Is(err, workspace.ErrNotRegular) {
			s.count(func() { s.special = append(s.special, abs) })
		}
		return nil, false
	}
	defer f.Close()
	if f.Size() > grepMaxFileSize {
		s.count(func() { s.tooLarge++ })
		return nil, false
	}
	size := int(f.Size())
	if cap(sc.data) < size {
		sc.data = make([]byte, size)
	}
	buf := sc.data[:size]
	n := 0
	for n < size {
		m, err := f.Read(buf[n:])
		if err != nil {
			if err == io.EOF {
				break // the file shrank while we read it
			}
			return nil, false
		}
		n += m
	}
	return buf[:n], true
}

func (s *grepSearch) count(f func()) {
	s.mu.Lock()
	f()
	s.mu.Unlock()
}

// pastCutoff reports whether a file shown as path sorts after the first
// grepMaxMatches kept lines, so that none of its lines can be shown (the
// cutoff only moves to earlier paths).
func (s *grepSearch) pastCutoff(path string) bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.cutoff != "" && path > s.cutoff
}

// add records a file's hits, keeping only what can still be among the
// first grepMaxMatches lines in path order (memory stays bounded however
// many files match).
func (s *grepSearch) add(h fileHits, n int) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.total += n
	s.files++
	if s.cutoff != "" && h.path > s.cutoff {
		return
	}
	s.hits = append(s.hits, h)
	s.kept += len(h.lines)
	if s.kept > 4*s.max {
		s.prune()
	}
}

// prune sorts the kept files by path and drops those past the first
// grepMaxMatches lines.
func (s *grepSearch) prune() {
	sortHits(s.hits)
	kept := 0
	for i, h := range s.hits {
		kept += len(h.lines)
		if kept >= s.max {
			s.hits = s.hits[:i+1]
			s.kept = kept
			s.cutoff = h.path
			return
		}
	}
}

func sortHits(hs []fileHits) {
	slices.SortFunc(hs, func(a, b fileHits) int { return strings.Compare(a.path, b.path) })
}

// result renders the output: path:line:text sorted by path then line, and
// honest notes about everything left out.
func (s *grepSearch) result(pattern string, timedOut bool) Result {
	s.mu.Lock()
	defer s.mu.Unlock()
	sortHits(s.hits)
	var b strings.Builder
	shown := 0
	for _, h := range s.hits {
		for _, l := range h.lines {
			if shown == s.max {
				break
			}
			fmt.Fprintf(&b, "%s:%d:%s\n", h.path, l.num, l.text)
			shown++
		}
	}
	if s.total == 0 {
		fmt.Fprintf(&b, "no matches for %s\n", pattern)
	}
	if shown < s.total {
		fmt.Fprintf(&b, "[showing %d of %d matching lines in %d files; narrow the pattern, path or glob]\n", shown, s.total, s.files)
	}
	if timedOut {
		fmt.Fprintf(&b, "[search stopped after %v; results are incomplete, narrow the path]\n", grepTimeout)
	}
	var skipped []string
	if s.binary > 0 {
		skipped = append(skipped, fmt.Sprintf("%d binary", s.binary))
	}
	if s.secret > 0 {
		skipped = append(skipped, fmt.Sprintf("%d secret-looking", s.secret))
	}
	if s.tooLarge > 0 {
		skipped = append(skipped, fmt.Sprintf("%d over %d MB", s.tooLarge, grepMaxFileSize>>20))
	}
	if len(s.special) > 0 {
		slices.Sort(s.special)
		names := make([]string, 0, min(len(s.special), 5))
		for _, p := range s.special[:min(len(s.special), 5)] {
			names = append(names, s.env.display(p))
		}
		skipped = append(skipped, fmt.Sprintf("%d not regular files (named pipes, sockets or devices: %s)", len(s.special), strings.Join(names, ", ")))
	}
	if len(skipped) > 0 {
		fmt.Fprintf(&b, "[skipped files: %s]\n", strings.Join(skipped, ", "))
	}
	return Result{Text: b.String(), Summary: fmt.Sprintf("grep %s: %d matches in %d files", pattern, s.total, s.files)}
}

// shownLine prepares a matching line for output: no CR, valid UTF-8, cut.
func shownLine(line []byte, max int) string {
	l := strings.ToValidUTF8(string(bytes.TrimSuffix(line, []byte{'\r'})), "\uFFFD")
	if len(l) <= max {
		return l
	}
	cut := max
	for cut > 0 && !runeStart(l[cut]) {
		cut--
	}
	return l[:cut] + "…"
}

// dataResult is grep's answer to a program: every matching line as
// {"path", "line", "text"}, sorted by path then line. A search that
// matched more than DataMaxMatches lines, or ran out of time, is an error,
// never a silently shorter list.
func (s *grepSearch) dataResult(pattern string, timedOut bool) Result {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.total > DataMaxMatches {
		return Errorf("grep %s: %d matching lines in %d files, more than the %d a program may get; narrow the pattern, path or glob", pattern, s.total, s.files, DataMaxMatches)
	}
	if timedOut {
		return Errorf("grep %s: stopped after %v with incomplete results; narrow the path", pattern, grepTimeout)
	}
	sortHits(s.hits)
	out := make([]GrepMatch, 0, s.total)
	for _, h := range s.hits {
		for _, l := range h.lines {
			out = append(out, GrepMatch{Path: h.path, Line: l.num, Text: l.text})
		}
	}
	sum := fmt.Sprintf("grep %s: %d matches in %d files", pattern, s.total, s.files)
	return Result{Text: sum, Summary: sum, Data: out}
}

// GrepMatch is one matching line in grep's answer to a program.
type GrepMatch struct {
	Path string `json:"path"`
	Line int    `json:"line"`
	Text string `json:"text"`
}
