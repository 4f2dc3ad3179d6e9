package complete

import (
	"context"
	"sort"
	"strings"
	"time"
)

// Declarer finds what the language servers say of the symbols at byte
// offsets of a document's text (the declaration their hover shows: a
// function's signature, a type's head), "" where nothing. The face wires
// it to the language servers agent runs use; the engine never waits on it
// longer than declWait, so a slow or cold server costs a completion only
// its declarations, never its latency.
type Declarer interface {
	Declarations(ctx context.Context, path, text string, offsets []int) ([]string, error)
}

const (
	// declWait is the most a completion waits for declarations it has
	// none of (a symbol just typed); what arrives later fills the cache
	// for the next request.
	declWait = 40 * time.Millisecond
	// declFillBound bounds one background fill, a cold server's start
	// included; the next request starts another.
	declFillBound = 10 * time.Second
	// declFresh is how long a cached declaration is used without being
	// asked again: signatures change rarely while the user types
	// elsewhere, and asking on every keystroke would keep the server busy.
	declFresh = 3 * time.Second
	// maxDeclSymbols bounds the symbols asked about per request, the
	// nearest to the cursor first.
	maxDeclSymbols = 16
	// declLinesBefore and declLinesAfter are the lines around the cursor
	// whose symbols count as used near it.
	declLinesBefore, declLinesAfter = 30, 10
	// maxDeclEntries bounds one document's cache.
	maxDeclEntries = 512
	// declShare is the part of the context budget kept from other files'
	// chunks for declarations (they take whatever the chunks leave too).
	declShare = 4 // 1/4
)

// SetDeclarer sets where declarations come from (nil: none). Fills run
// in the background under life (the server's lifetime): they end with it,
// as well as after declFillBound.
func (e *Engine) SetDeclarer(life context.Context, d Declarer) {
	e.mu.Lock()
	e.declarer, e.declLife = d, life
	e.mu.Unlock()
}

// declCache is one document's declarations, by symbol.
type declCache struct {
	entries map[string]declEntry
	filling chan struct{} // non-nil while a fill runs; closed when it ends
}

type declEntry struct {
	text string // "" when the server had nothing
	at   time.Time
}

// symbol is an identifier used near the cursor: key names it in the
// cache (with its qualifier, "os.Open", so that two Close methods stay
// apart), off is its occurrence nearest to the cursor.
type symbol struct {
	key string
	off int
}

// symbolsNear lists the symbols used near off in text, nearest first:
// called names (followed by "("), selected members (after "."), and
// capitalised names (types, exported identifiers). The word the cursor
// is in is left out: the user is still typing it.
func symbolsNear(text string, off int) []symbol {
	start := off
	for n := 0; start > 0 && n <= declLinesBefore; n++ {
		i := strings.LastIndexByte(text[:start], '\n')
		if i < 0 {
			start = 0
			break
		}
		start = i
	}
	end := off
	for n := 0; end < len(text) && n <= declLinesAfter; n++ {
		i := strings.IndexByte(text[end+1:], '\n')
		if i < 0 {
			end = len(text)
			break
		}
		end += i + 1
	}
	type found struct {
		symbol
		dist int
	}
	best := map[string]found{}
	for i := start; i < end; {
		c := text[i]
		if !identStart(c) {
			i++
			continue
		}
		j := i + 1
		for j < len(text) && identPart(text[j]) {
			j++
		}
		word := text[i:j]
		if i <= off && off <= j || keywords[word] {
			i = j
			continue
		}
		qual := ""
		if i > 0 && text[i-1] == '.' {
			k := i - 1
			for k > 0 && identPart(text[k-1]) {
				k--
			}
			qual = text[k : i-1]
		}
		call := j < len(text) && text[j] == '('
		upper := word[0] >= 'A' && word[0] <= 'Z'
		if call || qual != "" || upper {
			key := word
			if qual != "" {
				key = qual + "." + word
			}
			d := off - j
			if i > off {
				d = i - off
			}
			if f, ok := best[key]; !ok || d < f.dist {
				best[key] = found{symbol{key, i}, d}
			}
		}
		i = j
	}
	out := make([]found, 0, len(best))
	for _, f := range best {
		out = append(out, f)
	}
	sort.Slice(out, func(a, b int) bool {
		if out[a].dist != out[b].dist {
			return out[a].dist < out[b].dist
		}
		return out[a].key < out[b].key
	})
	syms := make([]symbol, 0, min(len(out), maxDeclSymbols))
	for _, f := range out {
		if len(syms) == maxDeclSymbols {
			break
		}
		syms = append(syms, f.symbol)
	}
	return syms
}

func identStart(c byte) bool { return c == '_' || c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' }
func identPart(c byte) bool  { return identStart(c) || c >= '0' && c <= '9' }

// keywords of the common languages: asking about them wastes a hover.
var keywords = func() map[string]bool {
	m := map[string]bool{}
	for _, w := range strings.Fields(`break case chan const continue default defer else fallthrough for func go goto if import
		interface map package range return select struct switch type var nil true false iota
		and as assert async await class def del elif except finally from global in is lambda nonlocal not or pass raise try while with yield None True False self
		function let new this typeof instanceof void delete throw catch extends super export static public private protected
		int char float double long short unsigned signed sizeof typedef enum union extern auto register volatile inline`) {
		m[w] = true
	}
	return m
}()

// declsFor starts, when some of syms are missing or old, a background
// fill of the document's cache from the declarer, and returns the channel
// to wait on (up to declWait) when a symbol has no entry at all.
func (e *Engine) declsFor(d *docState, dl Declarer, path, text string, syms []symbol) <-chan struct{} {
	if dl == nil || len(syms) == 0 {
		return nil
	}
	now := time.Now()
	e.mu.Lock()
	defer e.mu.Unlock()
	if d.decls == nil {
		d.decls = &declCache{entries: map[string]declEntry{}}
	}
	c := d.decls
	if c.filling != nil {
		for _, s := range syms {
			if _, ok := c.entries[s.key]; !ok {
				return c.filling
			}
		}
		return nil
	}
	var ask []symbol
	missing := false
	for _, s := range syms {
		en, ok := c.entries[s.key]
		if !ok {
			missing = true
		}
		if !ok || now.Sub(en.at) > declFresh {
			ask = append(ask, s)
		}
	}
	if len(ask) == 0 {
		return nil
	}
	done := make(chan struct{})
	c.filling = done
	go e.fillDecls(e.declLife, c, done, dl, path, text, ask)
	if missing {
		return done
	}
	return nil
}

// fillDecls asks the declarer about syms and stores the answers.
func (e *Engine) fillDecls(life context.Context, c *declCache, done chan struct{}, dl Declarer, path, text string, syms []symbol) {
	defer close(done)
	if life == nil {
		life = context.Background()
	}
	ctx, cancel := context.WithTimeout(life, declFillBound)
	defer cancel()
	offs := make([]int, len(syms))
	for i, s := range syms {
		offs[i] = s.off
	}
	began := time.Now()
	got, err := dl.Declarations(ctx, path, text, offs)
	e.mu.Lock()
	defer e.mu.Unlock()
	c.filling = nil
	if err != nil {
		e.log.Debug("declarations not found", "path", path, "err", err)
		return
	}
	if len(c.entries) > maxDeclEntries {
		c.entries = map[string]declEntry{}
	}
	now := time.Now()
	for i, s := range syms {
		if i < len(got) {
			c.entries[s.key] = declEntry{text: got[i], at: now}
		}
	}
	e.log.Debug("declarations cached", "path", path, "symbols", len(syms), "took", time.Since(began))
}

// cachedDecls returns the cached declarations of syms, nearest first,
// once each.
func (e *Engine) cachedDecls(d *docState, syms []symbol) []string {
	e.mu.Lock()
	defer e.mu.Unlock()
	if d.decls == nil {
		return nil
	}
	var out []string
	seen := map[string]bool{}
	for _, s := range syms {
		t := d.decls.entries[s.key].text
		if t == "" || seen[t] {
			continue
		}
		seen[t] = true
		out = append(out, t)
	}
	return out
}

// waitDecls waits for a fill until began+declWait (or ctx ends).
func waitDecls(ctx context.Context, fill <-chan struct{}, began time.Time) {
	if fill == nil {
		return
	}
	left := declWait - time.Since(began)
	if left <= 0 {
		return
	}
	t := time.NewTimer(left)
	defer t.Stop()
	select {
	case <-fill:
	case <-t.C:
	case <-ctx.Done():
	}
}

// renderDecls writes declarations as comment lines in the current file's
// language, within budget bytes, nearest symbol first.
func renderDecls(decls []string, current string, budget int) string {
	if len(decls) == 0 || budget <= 0 {
		return ""
	}
	cm := commentFor(current)
	end := ""
	if cm == "<!--" {
		end = " -->"
	}
	var b strings.Builder
	head := cm + " Declarations used near the cursor:" + end + "\n"
	for _, dcl := range decls {
		var one strings.Builder
		for line := range strings.SplitSeq(dcl, "\n") {
			one.WriteString(cm + " " + line + end + "\n")
		}
		if b.Len() == 0 {
			if len(head)+one.Len() > budget {
				continue
			}
			b.WriteString(head)
		} else if b.Len()+one.Len() > budget {
			continue
		}
		b.WriteString(one.String())
	}
	return b.String()
}
