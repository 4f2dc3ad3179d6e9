package workspace

import (
	"bufio"
	"bytes"
	"io"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"syscall"

	"github.com/go-git/go-git/v5/plumbing/format/gitignore"
)

// Ignore files read in every directory, lowest priority first: a later
// file's patterns win over an earlier one's, as in ripgrep where .ignore
// overrides .gitignore. .git/info/exclude is read only in repository roots.
// The user's global core.excludesFile is not read.
const (
	ixExclude = iota
	ixGitignore
	ixIgnore
	numIgnoreFiles
)

var ignoreNames = [numIgnoreFiles]string{".git/info/exclude", ".gitignore", ".ignore"}

// maxIgnoreFile bounds how much of one ignore file is parsed.
const maxIgnoreFile = 1 << 20

// dirRules are the patterns one directory contributes. Patterns are parsed
// with an empty domain and matched against the path relative to that
// directory, so they stay valid whatever the repository root is.
type dirRules struct {
	patterns []gitignore.Pattern
	repoRoot bool                    // the directory has a .git entry
	sigs     [numIgnoreFiles]statSig // zero: file absent
}

var noRules = &dirRules{}

// level is one directory's rules in a chain, depth components below the
// matching base.
type level struct {
	rules *dirRules
	depth int
}

// ignoreCache holds parsed rules per directory and the repository root
// above each folder.
type ignoreCache struct {
	mu    sync.Mutex
	dirs  map[string]*dirRules
	below map[string]int    // rules cached below each ancestor directory
	bases map[string]string // folder → its matching base
}

func newIgnoreCache() *ignoreCache {
	return &ignoreCache{dirs: make(map[string]*dirRules), below: make(map[string]int), bases: make(map[string]string)}
}

func (c *ignoreCache) reset() {
	c.mu.Lock()
	clear(c.dirs)
	clear(c.below)
	clear(c.bases)
	c.mu.Unlock()
}

// invalidate drops the rules a changed path may affect: an ignore file's
// directory, a repository whose .git or exclude file changed, or a
// directory that appeared or vanished.
func (c *ignoreCache) invalidate(p string) {
	base := filepath.Base(p)
	switch {
	case base == ".gitignore" || base == ".ignore" || base == ".git":
		c.drop(filepath.Dir(p))
	case strings.HasSuffix(p, "/.git/info/exclude"):
		c.drop(strings.TrimSuffix(p, "/.git/info/exclude"))
	default:
		c.drop(p)
	}
}

func (c *ignoreCache) drop(dir string) {
	c.mu.Lock()
	c.deleteLocked(dir)
	c.mu.Unlock()
}

// invalidateTree drops the rules cached at and below dir, scanning the map
// only when something is cached below dir, so a burst of removals stays
// cheap.
func (c *ignoreCache) invalidateTree(dir string) {
	c.mu.Lock()
	defer c.mu.Unlock()
	clear(c.bases)
	if _, ok := c.dirs[dir]; ok {
		c.deleteLocked(dir)
	}
	if c.below[dir] == 0 {
		return
	}
	for d := range c.dirs {
		if within(d, dir) {
			c.deleteLocked(d)
		}
	}
}

// deleteLocked and storeLocked keep below (entries cached under each
// ancestor) in step with dirs; c.mu must be held.
func (c *ignoreCache) deleteLocked(dir string) {
	if _, ok := c.dirs[dir]; !ok {
		return
	}
	delete(c.dirs, dir)
	c.countLocked(dir, -1)
}

func (c *ignoreCache) storeLocked(dir string, r *dirRules) {
	if _, ok := c.dirs[dir]; !ok {
		c.countLocked(dir, 1)
	}
	c.dirs[dir] = r
}

func (c *ignoreCache) countLocked(dir string, delta int) {
	for d := filepath.Dir(dir); ; d = filepath.Dir(d) {
		if n := c.below[d] + delta; n > 0 {
			c.below[d] = n
		} else {
			delete(c.below, d)
		}
		if d == "/" || d == "." {
			return
		}
	}
}

// rules returns dir's rules. present says which ignore files exist and
// whether .git does (from a directory listing, or from stats when nil).
// Present files are stat'ed and re-parsed when their signature changed;
// trust skips every stat when a cached entry exists (healthy watcher).
func (c *ignoreCache) rules(dir string, present *[numIgnoreFiles + 1]bool, trust bool) *dirRules {
	c.mu.Lock()
	cached := c.dirs[dir]
	c.mu.Unlock()
	if cached != nil && trust {
		return cached
	}
	var have [numIgnoreFiles + 1]bool // last slot: .git
	if present != nil {
		have = *present
	} else {
		for i, name := range [...]string{".gitignore", ".ignore", ".git"} {
			_, err := os.Lstat(filepath.Join(dir, name))
			have[i+1] = err == nil
		}
	}
	repoRoot := have[numIgnoreFiles]
	if !repoRoot && !have[ixGitignore] && !have[ixIgnore] {
		if cached != nil {
			c.drop(dir)
		}
		if present == nil {
			c.store(dir, noRules)
		}
		return noRules
	}
	var sigs [numIgnoreFiles]statSig
	for i := range numIgnoreFiles {
		if i == ixExclude && !repoRoot || i != ixExclude && !have[i] {
			continue
		}
		var st syscall.Stat_t
		if syscall.Stat(filepath.Join(dir, ignoreNames[i]), &st) == nil {
			sigs[i] = sigOf(&st)
		}
	}
	if cached != nil && cached.repoRoot == repoRoot && cached.sigs == sigs {
		return cached
	}
	r := &dirRules{repoRoot: repoRoot, sigs: sigs}
	for i := range numIgnoreFiles {
		if sigs[i] != (statSig{}) {
			r.patterns = append(r.patterns, parseIgnoreFile(filepath.Join(dir, ignoreNames[i]))...)
		}
	}
	c.store(dir, r)
	return r
}

func (c *ignoreCache) store(dir string, r *dirRules) {
	c.mu.Lock()
	c.storeLocked(dir, r)
	c.mu.Unlock()
}

// parseIgnoreFile reads gitignore-syntax patterns: one per line, blank
// lines and "#" comments skipped, CRLF tolerated. Unreadable files give no
// patterns (logged by nobody: a broken .ignore must not break a walk).
func parseIgnoreFile(path string) []gitignore.Pattern {
	// Opened like every other file (non-blocking, regular files only, a
	// final symlink not followed, as git does), so a FIFO named .gitignore
	// cannot hang a walk.
	f, err := (&Dir{folder: filepath.Dir(path), fd: -1}).Open(path)
	if err != nil {
		return nil
	}
	defer f.Close()
	var out []gitignore.Pattern
	sc := bufio.NewScanner(io.LimitReader(f, maxIgnoreFile))
	sc.Buffer(nil, maxIgnoreFile)
	for sc.Scan() {
		line := bytes.TrimSuffix(sc.Bytes(), []byte("\r"))
		if len(line) == 0 || line[0] == '#' || len(bytes.TrimSpace(line)) == 0 {
			continue
		}
		out = append(out, gitignore.ParsePattern(string(line), nil))
	}
	return out
}

// matchLevels applies a chain of rules to comps (path components relative
// to the base): the deepest directory first and, within it, the last
// pattern first; the first pattern that matches decides.
func matchLevels(levels []level, comps []string, isDir bool) bool {
	for i := len(levels) - 1; i >= 0; i-- {
		l := levels[i]
		sub := comps[l.depth:]
		ps := l.rules.patterns
		for j := len(ps) - 1; j >= 0; j-- {
			switch ps[j].Match(sub, isDir) {
			case gitignore.Exclude:
				return true
			case gitignore.Include:
				return false
			}
		}
	}
	return false
}

// baseFor returns the directory gitignore paths are relative to for
// folder: the nearest enclosing repository root (a directory with .git),
// which may be above the folder, else the folder itself. If the rules
// above the folder would exclude the folder (or a directory between it and
// the repository root), they are not applied at all: the user opened that
// folder, so hiding all of it would only break every tool.
func (c *ignoreCache) baseFor(folder string) string {
	c.mu.Lock()
	b, ok := c.bases[folder]
	c.mu.Unlock()
	if ok {
		return b
	}
	b = folder
	for d := folder; ; d = filepath.Dir(d) {
		if _, err := os.Lstat(filepath.Join(d, ".git")); err == nil {
			b = d
			break
		}
		if d == filepath.Dir(d) {
			break
		}
	}
	if b != folder && c.hidesFolder(b, folder) {
		b = folder
	}
	c.mu.Lock()
	c.bases[folder] = b
	c.mu.Unlock()
	return b
}

// hidesFolder reports whether the rules from base down to folder exclude
// folder or a directory between them.
func (c *ignoreCache) hidesFolder(base, folder string) bool {
	rel := folder[len(base)+1:]
	if base == "/" {
		rel = folder[1:]
	}
	var levels []level
	var comps []string
	cur := base
	for i, name := range strings.Split(rel, "/") {
		if r := c.rules(cur, nil, false); len(r.patterns) > 0 {
			levels = append(levels, level{r, i})
		}
		comps = append(comps, name)
		if matchLevels(levels, comps, true) {
			return true
		}
		cur = filepath.Join(cur, name)
	}
	return false
}

// chain returns the rule levels in force inside dir (dir's own rules
// included) and dir's components relative to the base. Rules of
// directories above a nested repository root do not apply inside it.
// dir must be at or below folder.
func (c *ignoreCache) chain(folder, dir string, trust bool) ([]level, []string) {
	base := c.baseFor(folder)
	var comps []string
	if dir != base {
		comps = strings.Split(dir[len(base)+1:], "/")
		if base == "/" {
			comps = strings.Split(dir[1:], "/")
		}
	}
	var levels []level
	cur := base
	for i := 0; ; i++ {
		r := c.rules(cur, nil, trust)
		if r.repoRoot && i > 0 {
			levels = levels[:0]
		}
		if len(r.patterns) > 0 {
			levels = append(levels, level{r, i})
		}
		if i == len(comps) {
			break
		}
		cur = filepath.Join(cur, comps[i])
	}
	return levels, comps
}

// Ignored reports whether path is excluded by the ignore files (.gitignore,
// .ignore, .git/info/exclude) in force for it, or is inside .git. As in
// git, a path under an excluded directory is excluded whatever negations
// say. Paths outside the folders, and the folders themselves, are never
// ignored. Relative paths are relative to the first folder.
func (v *View) Ignored(path string, isDir bool) bool {
	p := v.absPath(path)
	v.mu.RLock()
	folder := folderOf(v.folders, p)
	v.mu.RUnlock()
	if folder == "" || p == folder {
		return false
	}
	rel := strings.Split(p[len(folder)+1:], "/")
	if folder == "/" {
		rel = strings.Split(p[1:], "/")
	}
	for _, c := range rel {
		if c == ".git" {
			return true
		}
	}
	trust := !v.validateAlways.Load()
	levels, comps := v.ign.chain(folder, folder, trust)
	dir := folder
	for i, name := range rel {
		last := i == len(rel)-1
		comps = append(comps, name)
		if matchLevels(levels, comps, isDir || !last) {
			return true
		}
		if last {
			break
		}
		dir = filepath.Join(dir, name)
		r := v.ign.rules(dir, nil, trust)
		if r.repoRoot {
			levels = levels[:0:0]
		}
		if len(r.patterns) > 0 {
			levels = append(levels, level{r, len(comps)})
		}
	}
	return false
}
