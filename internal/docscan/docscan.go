// Package docscan schedules scans of open documents' text (the LSP face's
// task comments) so typing stays cheap and no result outlives its
// document. A document is scanned at once after it opens and, while the
// user types, once a pause follows the last keystroke: a keystroke costs a
// map insert and a timer reset, and the text is read only when the scan
// runs. Between a change and its scan, the latest result stands. A close
// drops everything of the document, also what a scan running at that
// moment finds.
package docscan

import (
	"sync"
	"time"
)

// Source computes the findings of the document at path from content, its
// open buffer's text. Once the document is closed it is called with open
// false (and no content), to drop what it kept of it; that call must be
// quick (it runs where the close is handled).
type Source[D any] func(path, content string, open bool) []D

// Scans is the scan state of a connection's documents. Add sources, then
// Start; the zero value is ready for Add. Its methods are safe for
// concurrent use, and none calls a Source under its lock.
type Scans[D any] struct {
	mu      sync.Mutex
	sources []Source[D]
	pause   time.Duration
	typed   map[string]struct{} // changed since their last scan, waiting for the pause
	due     map[string]struct{} // scanned at their next Scan
	found   map[string][]D      // the latest findings, per path
	settle  *time.Timer         // fires the pause after the last keystroke; nil before Start
}

// Add makes fn one of the scans' sources.
func (s *Scans[D]) Add(fn Source[D]) {
	s.mu.Lock()
	s.sources = append(s.sources, fn)
	s.mu.Unlock()
}

// Active reports whether there is anything to scan with.
func (s *Scans[D]) Active() bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	return len(s.sources) > 0
}

// Start arms the pause: once typing paused for pause, each document typed
// in since its last scan becomes due and is passed to ready, which must
// not block (it queues the document's publication, whose Scan runs it).
// Stop disarms it.
func (s *Scans[D]) Start(pause time.Duration, ready func(path string)) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.pause = pause
	s.typed, s.due, s.found = map[string]struct{}{}, map[string]struct{}{}, map[string][]D{}
	s.settle = time.AfterFunc(time.Hour, func() {
		s.mu.Lock()
		paths := make([]string, 0, len(s.typed))
		for p := range s.typed {
			paths = append(paths, p)
			s.due[p] = struct{}{}
		}
		clear(s.typed)
		s.mu.Unlock()
		for _, p := range paths {
			ready(p)
		}
	})
	s.settle.Stop()
}

// Stop disarms the pause.
func (s *Scans[D]) Stop() {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.settle != nil {
		s.settle.Stop()
	}
}

// Opened makes path due at once.
func (s *Scans[D]) Opened(path string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if len(s.sources) > 0 && s.due != nil {
		s.due[path] = struct{}{}
	}
}

// Typed notes a change of path: it becomes due after the pause.
func (s *Scans[D]) Typed(path string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if len(s.sources) > 0 && s.settle != nil {
		s.typed[path] = struct{}{}
		s.settle.Reset(s.pause)
	}
}

// Closed drops everything of path and returns what tells the sources
// (nil when there are none), to call outside the caller's locks: the
// drop itself may run under them, so it is atomic with what they guard.
func (s *Scans[D]) Closed(path string) (tell func()) {
	s.mu.Lock()
	defer s.mu.Unlock()
	delete(s.typed, path)
	delete(s.due, path)
	delete(s.found, path)
	if len(s.sources) == 0 {
		return nil
	}
	sources := s.sources
	return func() {
		for _, fn := range sources {
			fn(path, "", false)
		}
	}
}

// Scan runs the sources on path when it is due, with the text read gives
// (and whether the document is open), and keeps what they found. stillOpen
// is asked after the scan: a close while it ran has dropped the document
// already, and what was just found of it must not outlive it. Scan reports
// whether it scanned and found something (the caller's publication then
// carries the version of the text read).
func (s *Scans[D]) Scan(path string, read func() (text string, open bool), stillOpen func() bool) bool {
	s.mu.Lock()
	_, due := s.due[path]
	delete(s.due, path)
	sources := s.sources
	s.mu.Unlock()
	if !due {
		return false
	}
	text, open := read()
	var out []D
	for _, fn := range sources {
		out = append(out, fn(path, text, open)...)
	}
	s.mu.Lock()
	if open && !stillOpen() {
		s.mu.Unlock()
		for _, fn := range sources {
			fn(path, "", false)
		}
		return false
	}
	if len(out) > 0 {
		s.found[path] = out
	} else {
		delete(s.found, path)
	}
	s.mu.Unlock()
	return len(out) > 0
}

// Found is path's latest findings.
func (s *Scans[D]) Found(path string) []D {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.found[path]
}

// Len is how many documents wait for a scan and how many have findings
// kept, for tests proving a close forgets a document.
func (s *Scans[D]) Len() (waiting, found int) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return len(s.typed) + len(s.due), len(s.found)
}
