package workspace

import (
	"errors"
	"path/filepath"
	"sync"
	"sync/atomic"
	"syscall"
)

// cheapRehash is the largest file Invalidate re-reads to compare hashes
// before telling subscribers; bigger files are reported as Changed on any
// stat difference.
const cheapRehash int64 = 1 << 20

type subscription struct {
	id int
	fn func(Event)
}

// subscribers is copy-on-write: emit reads the list without a lock, so a
// callback may subscribe, cancel or call back into the View.
type subscribers struct {
	mu   sync.Mutex
	next int
	list atomic.Pointer[[]subscription]
}

// Subscribe registers fn for every Event and returns a function that
// unregisters it (safe to call twice). Callbacks run synchronously on the
// goroutine that caused the event (a Read, Change, or the watcher), outside
// the View's locks: they may call the View, but must not block.
func (v *View) Subscribe(fn func(Event)) (cancel func()) {
	s := &v.subs
	s.mu.Lock()
	s.next++
	id := s.next
	var cur []subscription
	if p := s.list.Load(); p != nil {
		cur = *p
	}
	next := append(append([]subscription(nil), cur...), subscription{id, fn})
	s.list.Store(&next)
	s.mu.Unlock()
	var once sync.Once
	return func() {
		once.Do(func() {
			s.mu.Lock()
			defer s.mu.Unlock()
			cur := *s.list.Load()
			next := make([]subscription, 0, len(cur))
			for _, sub := range cur {
				if sub.id != id {
					next = append(next, sub)
				}
			}
			s.list.Store(&next)
		})
	}
}

func (v *View) emit(ev Event) {
	p := v.subs.list.Load()
	if p == nil {
		return
	}
	for _, sub := range *p {
		sub.fn(ev)
	}
}

// Invalidate tells the view that path may have changed on disk (watcher,
// workspace/didChangeWatchedFiles). It drops or refreshes the cache entry
// and the ignore rules the path affects, and notifies subscribers only
// when the content really changed:
//
//   - missing path: Removed (also for each cached file below it, since a
//     removed or renamed directory reports only itself);
//   - a file the cache holds: re-read and compared by hash when at most
//     1 MiB, Changed only if the hash differs (a touch or chmod is silent);
//     bigger files are reported Changed on any stat difference;
//   - a file the cache does not hold: Created. The view cannot know whether
//     it existed before, so subscribers should treat Created like Changed;
//   - a directory: every cached file below it is re-validated as above.
//
// Open buffers are not touched; events for disk changes carry Buffer=false.
func (v *View) Invalidate(path string) {
	p := v.absPath(path)
	v.ign.invalidate(p)
	var st syscall.Stat_t
	err := syscall.Stat(p, &st)
	switch {
	case err != nil:
		if errors.Is(err, syscall.ENOENT) || errors.Is(err, syscall.ENOTDIR) {
			v.cache.remove(p)
			v.emit(Event{Path: p, Kind: Removed})
			v.InvalidateTree(p) // a removed directory reports only itself
		}
	case sigOf(&st).isDir():
		v.InvalidateTree(p)
	default:
		old := v.cache.get(p)
		if old == nil {
			v.emit(Event{Path: p, Kind: Created})
			return
		}
		v.revalidate(old, sigOf(&st))
	}
}

// InvalidateTree re-validates every cached file at or below dir (by stat,
// then hash as in Invalidate) and drops the ignore rules cached there. The
// watcher calls it after an event overflow, when individual events were
// lost.
func (v *View) InvalidateTree(dir string) {
	d := v.absPath(dir)
	v.ign.invalidateTree(d)
	for _, e := range v.cache.under(d) {
		var st syscall.Stat_t
		if err := syscall.Stat(e.path, &st); err != nil {
			if v.cache.remove(e.path) != nil {
				v.emit(Event{Path: e.path, Kind: Removed})
			}
			continue
		}
		v.revalidate(e, sigOf(&st))
	}
}

// revalidate compares a cached entry with the file's current stat and
// reloads it, emitting Changed only when the content differs.
func (v *View) revalidate(old *entry, sig statSig) {
	if old.sig == sig && !old.racy {
		return
	}
	if !sig.isRegular() || sig.size > cheapRehash {
		v.cache.remove(old.path)
		v.emit(Event{Path: old.path, Kind: Changed})
		return
	}
	e, err := v.load(old.path)
	if err != nil {
		v.cache.remove(old.path)
		v.emit(Event{Path: old.path, Kind: Changed})
		return
	}
	v.cache.put(e)
	if e.hash != old.hash {
		v.emit(Event{Path: old.path, Kind: Changed})
	}
}

// absPath cleans path, anchoring a relative one at the first folder. A
// path outside every folder is resolved through its symlinks, so an editor
// naming files through a symlinked folder (didChangeWatchedFiles) still
// reaches the real paths the cache is keyed by.
func (v *View) absPath(path string) string {
	v.mu.RLock()
	folders := v.folders
	v.mu.RUnlock()
	var p string
	switch {
	case filepath.IsAbs(path):
		p = filepath.Clean(path)
	case len(folders) == 0:
		return filepath.Clean(path)
	default:
		p = filepath.Join(folders[0], path)
	}
	if folderOf(folders, p) == "" {
		if real, err := evalPrefix(p); err == nil {
			return real
		}
	}
	return p
}
