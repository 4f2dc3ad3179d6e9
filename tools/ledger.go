package tools

import (
	"slices"
	"sync"
)

// Limits on the text a Ledger keeps. The text is only needed to show the
// model what changed since its read (CONFLICT diffs); beyond these bounds
// the ledger keeps the hash alone and a conflict asks for a re-read.
const (
	ledgerMaxFileText  = 256 << 10 // per file
	ledgerMaxTotalText = 16 << 20  // per run
)

// Ledger records what one run has read: path → hash of the WHOLE file as it
// was at read time (partial reads count, since the model may edit any part
// of a file it paged through). Mutating tools compare the current text to
// it, which is the optimistic lock that keeps the agent from overwriting
// changes it has not seen. Safe for concurrent use: read-only tools run in
// parallel.
type Ledger struct {
	mu      sync.Mutex
	entries map[string]ReadRecord
	text    int // bytes of text currently kept
}

// ReadRecord is what the ledger holds for one path.
type ReadRecord struct {
	Hash    string // hex SHA-256 of the whole file as read
	Text    string // the text itself, when HasText
	HasText bool   // false for texts over the ledger's bounds
}

// NewLedger returns an empty ledger.
func NewLedger() *Ledger { return &Ledger{entries: map[string]ReadRecord{}} }

// Record notes that the run has seen path with content text (hash is its
// hex SHA-256, as workspace.Snapshot.Hash). A later record replaces an
// earlier one.
func (l *Ledger) Record(path, hash, text string) {
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.entries == nil {
		l.entries = map[string]ReadRecord{}
	}
	if old, ok := l.entries[path]; ok && old.HasText {
		l.text -= len(old.Text)
	}
	rec := ReadRecord{Hash: hash}
	if len(text) <= ledgerMaxFileText && l.text+len(text) <= ledgerMaxTotalText {
		rec.Text, rec.HasText = text, true
		l.text += len(text)
	}
	l.entries[path] = rec
}

// Lookup returns what the run last read of path.
func (l *Ledger) Lookup(path string) (ReadRecord, bool) {
	l.mu.Lock()
	defer l.mu.Unlock()
	rec, ok := l.entries[path]
	return rec, ok
}

// Forget drops path, e.g. after the run's staged change was discarded by
// the user and the old read no longer describes anything the model relies on.
func (l *Ledger) Forget(path string) {
	l.mu.Lock()
	defer l.mu.Unlock()
	if old, ok := l.entries[path]; ok {
		if old.HasText {
			l.text -= len(old.Text)
		}
		delete(l.entries, path)
	}
}

// Len returns the number of paths recorded.
func (l *Ledger) Len() int {
	l.mu.Lock()
	defer l.mu.Unlock()
	return len(l.entries)
}

// Paths returns the paths recorded, sorted.
func (l *Ledger) Paths() []string {
	l.mu.Lock()
	defer l.mu.Unlock()
	out := make([]string, 0, len(l.entries))
	for p := range l.entries {
		out = append(out, p)
	}
	slices.Sort(out)
	return out
}
