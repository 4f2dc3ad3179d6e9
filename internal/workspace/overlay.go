package workspace

import (
	"fmt"
	"path/filepath"
	"strings"
	"sync"
	"unicode/utf8"

	"github.com/agentls/agentls/internal/text"
)

// overlay is an open editor buffer. Its text lives in a text.Buffer edited
// in place, so a keystroke costs the size of the edit, not of the document
// (a copy per didChange capped us at ~15k edits/s on a 10,000-line file).
// Snapshots are taken under mu and cached until the next change, so a
// Snapshot never mixes two versions, and the hash is computed only when a
// snapshot is asked for, not on every keystroke.
type overlay struct {
	key  string // as given to Open
	path string // canonical key (symlinks resolved)

	mu      sync.Mutex
	version int32
	buf     *text.Buffer
	snap    *Snapshot // cached snapshot of the current state; nil after a change
}

func (o *overlay) snapshot() Snapshot {
	o.mu.Lock()
	defer o.mu.Unlock()
	if o.snap == nil {
		t := o.buf.String()
		ver := o.version
		o.snap = &Snapshot{
			Path:    o.path,
			Key:     o.key,
			Text:    t,
			Hash:    hashString(t),
			Version: &ver,
			Open:    true,
			Size:    int64(len(t)),
		}
	}
	s := *o.snap
	v := *s.Version
	s.Version = &v
	return s
}

// canonKey maps an overlay key to the one the overlay is stored under:
// absolute paths are cleaned and their symlinks resolved (as far as they
// exist), so a buffer opened through a symlink is found by its target's
// path and vice versa; other keys (untitled: URIs) are used as they are.
func canonKey(key string) string {
	if !filepath.IsAbs(key) {
		return key
	}
	p := filepath.Clean(key)
	if real, err := evalPrefix(p); err == nil {
		return real
	}
	return p
}

// lookupLocked finds the canonical key for key; v.mu must be held.
func (v *View) lookupLocked(key string) (string, *overlay) {
	if o := v.overlays[key]; o != nil {
		return key, o
	}
	if filepath.IsAbs(key) {
		if c, ok := v.aliases[filepath.Clean(key)]; ok {
			return c, v.overlays[c]
		}
	}
	return "", nil
}

// lookup resolves key to its canonical form and current overlay (nil when
// not open), trying the cheap map lookups before resolving symlinks.
func (v *View) lookup(key string) (string, *overlay) {
	v.mu.RLock()
	c, o := v.lookupLocked(key)
	v.mu.RUnlock()
	if o != nil {
		return c, o
	}
	c = canonKey(key)
	v.mu.RLock()
	o = v.overlays[c]
	v.mu.RUnlock()
	return c, o
}

// Open registers an editor buffer (didOpen). From now on Read of that file
// returns text, not the disk content. Re-opening replaces the buffer; a
// symlink and its target share one buffer (the key is resolved when the
// file exists). Invalid UTF-8 is replaced by U+FFFD.
// Subscribers get a Changed event with Buffer set.
func (v *View) Open(key string, version int32, content string) {
	if !utf8.ValidString(content) {
		// JSON decoding already does this for LSP input; keep the
		// Snapshot.Text invariant for any other caller.
		content = strings.ToValidUTF8(content, "\uFFFD")
	}
	c := canonKey(key)
	o := &overlay{key: key, path: c, version: version, buf: text.NewBuffer(content)}
	v.mu.Lock()
	v.overlays[c] = o
	if filepath.IsAbs(key) && filepath.Clean(key) != c {
		v.aliases[filepath.Clean(key)] = c
	}
	v.mu.Unlock()
	v.emit(Event{Path: c, Kind: Changed, Buffer: true})
}

// Change applies an incremental didChange to an open buffer: changes in
// order, positions counted in enc. A failed change (bad range) leaves the
// buffer as it was and returns the error; the caller should ask the editor
// for the full text. A version lower than the current one is accepted and
// logged: the editor owns the buffer, and refusing would leave our copy
// diverged from it for good. Subscribers get a Changed event (Buffer set)
// when the text actually changed.
func (v *View) Change(key string, version int32, changes []text.Change, enc text.Encoding) error {
	c, o := v.lookup(key)
	if o == nil {
		return fmt.Errorf("change %s: %w", key, ErrNotOpen)
	}
	o.mu.Lock()
	if version < o.version {
		v.log.Warn("didChange version went backwards; applying anyway", "key", key, "current", o.version, "new", version)
	}
	full, before := wholeReplace(changes), ""
	if full {
		before = o.buf.String() // full sync costs a copy anyway
	}
	if err := o.buf.Apply(changes, enc); err != nil {
		o.mu.Unlock()
		return fmt.Errorf("change %s (version %d): %w", key, version, err)
	}
	o.version = version
	o.snap = nil
	diff := changed(changes)
	if full {
		diff = o.buf.String() != before
	}
	o.mu.Unlock()
	if diff {
		v.emit(Event{Path: c, Kind: Changed, Buffer: true})
	}
	return nil
}

// wholeReplace reports whether changes replace the whole text (full sync).
func wholeReplace(changes []text.Change) bool {
	for _, ch := range changes {
		if ch.Range == nil {
			return true
		}
	}
	return false
}

// changed reports whether a didChange can have altered the text: any change
// that inserts text or spans a non-empty range. Comparing whole documents
// on every keystroke would cost as much as the copy Buffer avoids.
func changed(changes []text.Change) bool {
	for _, ch := range changes {
		if ch.Text != "" || ch.Range == nil || ch.Range.Start != ch.Range.End {
			return true
		}
	}
	return false
}

// Close drops an editor buffer (didClose); Read goes back to disk and
// subscribers get a Changed event with Buffer set, since what the view
// shows for the path may differ now. Closing a key that is not open does
// nothing. It returns the size in bytes of the buffer it dropped (0 when
// none), so the caller can decide to hand memory back to the system.
func (v *View) Close(key string) int {
	c, o := v.lookup(key)
	if o == nil {
		return 0
	}
	o.mu.Lock()
	size := o.buf.Len()
	o.mu.Unlock()
	v.mu.Lock()
	delete(v.overlays, c)
	for alias, target := range v.aliases {
		if target == c {
			delete(v.aliases, alias)
		}
	}
	v.mu.Unlock()
	v.emit(Event{Path: c, Kind: Changed, Buffer: true})
	return size
}

// Overlay returns the open buffer for key (a path, possibly through a
// symlink, or a non-file URI string) without touching disk.
func (v *View) Overlay(key string) (Snapshot, bool) {
	_, o := v.lookup(key)
	if o == nil {
		return Snapshot{}, false
	}
	return o.snapshot(), true
}

// BufferVersion is the version of the open buffer key, without
// materialising its text as Overlay does: for callers that only need to
// know whether the buffer changed since they last looked (code actions
// resolved later, lspserver/runs/resolve.go).
func (v *View) BufferVersion(key string) (int32, bool) {
	_, o := v.lookup(key)
	if o == nil {
		return 0, false
	}
	o.mu.Lock()
	defer o.mu.Unlock()
	return o.version, true
}

// overlayAt looks up the overlay stored under the canonical path p.
func (v *View) overlayAt(p string) (Snapshot, bool) {
	v.mu.RLock()
	o := v.overlays[p]
	v.mu.RUnlock()
	if o == nil {
		return Snapshot{}, false
	}
	return o.snapshot(), true
}

// OpenPaths lists the canonical keys of every open buffer, for callers that
// must visit them all (e.g. rebasing proposals after a folder change).
func (v *View) OpenPaths() []string {
	v.mu.RLock()
	defer v.mu.RUnlock()
	out := make([]string, 0, len(v.overlays))
	for k := range v.overlays {
		out = append(out, k)
	}
	return out
}

// BufferMaps returns how many entries the view's maps of open buffers
// hold: buffers by canonical path, and the other spellings (symlinks)
// that lead to them. Both drop to zero once every document is closed;
// tests use this to prove closing returns everything.
func (v *View) BufferMaps() (buffers, aliases int) {
	v.mu.RLock()
	defer v.mu.RUnlock()
	return len(v.overlays), len(v.aliases)
}

// BufferPath is the canonical path of the buffer the editor opened as key
// (through a symlink: its target, where tools resolve and stage changes),
// or key itself when no buffer is open under it. It never touches the
// disk, so faces can map every editor name they receive.
func (v *View) BufferPath(key string) string {
	v.mu.RLock()
	defer v.mu.RUnlock()
	if c, o := v.lookupLocked(key); o != nil {
		return c
	}
	return key
}

// BufferKey is the inverse of BufferPath: the name the editor opened the
// buffer at the canonical path under (a symlink), so what agentls shows
// the editor names the document it has open; path itself when no buffer
// is open there.
func (v *View) BufferKey(path string) string {
	v.mu.RLock()
	o := v.overlays[path]
	v.mu.RUnlock()
	if o == nil {
		return path
	}
	return o.key
}
