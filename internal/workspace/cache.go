package workspace

import (
	"path/filepath"
	"sync"
	"syscall"
	"time"
)

// entryOverhead approximates the memory an entry costs beyond its text and
// path (struct, hash string, map slot), so thousands of tiny files still
// count against the bound.
const entryOverhead = 256

// racyWindow: a file whose mtime or ctime is this close to the moment we
// stat'ed it may be rewritten within the same timestamp tick without any
// stat field changing (git's "racy clean" problem). Such entries are
// re-read and re-hashed on every hit until they age out of the window.
const racyWindow = time.Second

// statSig is what the cache compares to decide whether a file changed.
// ctime is included because nobody can set it: rewriting a file with the
// same size and putting the old mtime back (os.Chtimes) still moves ctime,
// and an atomic rename save changes the inode.
type statSig struct {
	size  int64
	mtime int64 // ns since epoch
	ctime int64 // ns since epoch
	ino   uint64
	dev   uint64
	mode  uint32
}

func (s statSig) isDir() bool     { return s.mode&syscall.S_IFMT == syscall.S_IFDIR }
func (s statSig) isRegular() bool { return s.mode&syscall.S_IFMT == syscall.S_IFREG }

// racyAt reports whether a stat taken at now cannot be trusted to reveal a
// later same-tick rewrite.
func (s statSig) racyAt(now time.Time) bool {
	t := now.UnixNano() - int64(racyWindow)
	return s.mtime >= t || s.ctime >= t
}

// entry is one cached file version. Fields other than the list links are
// immutable once the entry is in the cache, so a caller may read them
// without the lock.
type entry struct {
	path   string
	text   string // empty for binary files
	hash   string // hex SHA-256 of the bytes on disk
	binary bool
	sig    statSig
	racy   bool
	cost   int64

	prev, next *entry // LRU list, guarded by fileCache.mu
}

// fileCache is an LRU of entries bounded by accounted bytes.
type fileCache struct {
	mu    sync.Mutex
	m     map[string]*entry
	dirs  map[string]int // entries below each ancestor directory, so tree scans are skipped when empty
	head  entry          // sentinel: head.next is most recent, head.prev least
	bytes int64
	limit int64
}

func newFileCache(limit int64) *fileCache {
	c := &fileCache{m: make(map[string]*entry), dirs: make(map[string]int), limit: limit}
	c.head.next, c.head.prev = &c.head, &c.head
	return c
}

// count adds delta to the entry count of every ancestor of path.
func (c *fileCache) count(path string, delta int) {
	for d := filepath.Dir(path); ; d = filepath.Dir(d) {
		if n := c.dirs[d] + delta; n > 0 {
			c.dirs[d] = n
		} else {
			delete(c.dirs, d)
		}
		if d == "/" || d == "." {
			return
		}
	}
}

// drop removes e from the map, list and accounting; c.mu must be held.
func (c *fileCache) drop(e *entry) {
	c.unlink(e)
	delete(c.m, e.path)
	c.bytes -= e.cost
	c.count(e.path, -1)
}

func (c *fileCache) unlink(e *entry) {
	e.prev.next, e.next.prev = e.next, e.prev
	e.prev, e.next = nil, nil
}

func (c *fileCache) pushFront(e *entry) {
	e.next, e.prev = c.head.next, &c.head
	c.head.next.prev = e
	c.head.next = e
}

// get returns the entry for path and marks it recently used.
func (c *fileCache) get(path string) *entry {
	c.mu.Lock()
	defer c.mu.Unlock()
	e := c.m[path]
	if e != nil {
		c.unlink(e)
		c.pushFront(e)
	}
	return e
}

// put stores e, replacing any entry for the same path, and evicts least
// recently used entries until the bound holds. An entry bigger than the
// whole bound is not stored.
func (c *fileCache) put(e *entry) {
	e.cost = int64(len(e.text)+len(e.path)) + entryOverhead
	c.mu.Lock()
	defer c.mu.Unlock()
	if old := c.m[e.path]; old != nil {
		c.drop(old)
	}
	if e.cost > c.limit {
		return
	}
	c.m[e.path] = e
	c.pushFront(e)
	c.bytes += e.cost
	c.count(e.path, 1)
	for c.bytes > c.limit {
		c.drop(c.head.prev)
	}
}

// remove drops the entry for path and returns it (nil if none).
func (c *fileCache) remove(path string) *entry {
	c.mu.Lock()
	defer c.mu.Unlock()
	e := c.m[path]
	if e != nil {
		c.drop(e)
	}
	return e
}

// under returns the entries at or below dir. It scans the whole cache, but
// only when something is cached below dir.
func (c *fileCache) under(dir string) []*entry {
	c.mu.Lock()
	defer c.mu.Unlock()
	var out []*entry
	if e := c.m[dir]; e != nil {
		out = append(out, e)
	}
	if c.dirs[dir] == 0 {
		return out
	}
	out = out[:0]
	for p, e := range c.m {
		if within(p, dir) {
			out = append(out, e)
		}
	}
	return out
}

func (c *fileCache) stats() (int, int64) {
	c.mu.Lock()
	defer c.mu.Unlock()
	return len(c.m), c.bytes
}
