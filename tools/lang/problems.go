package lang

import (
	"context"
	"encoding/json"
	"fmt"
	"maps"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"time"

	"go.lsp.dev/protocol"

	"github.com/agentls/agentls/internal/text"
	"github.com/agentls/agentls/tools"
)

// maxListed is how many introduced problems an edit result lists.
const maxListed = 10

// maxEventItems bounds the problems one problems event carries.
const maxEventItems = 50

// Diagnose implements tools.Diagnoser: for each staged change it asks the
// change's language server for the diagnostics of the text before and
// after it and reports those the change introduced, in the changed files
// and in the other files the server re-checked. Changes of files no
// server serves are left out; a server that does not answer within the
// run's wait is reported in one line.
func (r *Run) Diagnose(ctx context.Context, _ *tools.Env, changes []tools.FileChange) tools.DiagnoseReport {
	groups := map[string][]tools.FileChange{}
	var order []string
	cfgs := map[string]ServerConfig{}
	for _, ch := range changes {
		cfg, root, ok := r.server(ch.Path)
		if !ok {
			r.m.log.Debug("not served", "path", ch.Path)
			continue
		}
		k := cfg.Name + "\x00" + root
		if _, seen := groups[k]; !seen {
			order = append(order, k)
			cfgs[k] = cfg
		}
		groups[k] = append(groups[k], ch)
	}
	if len(order) == 0 {
		return tools.DiagnoseReport{}
	}
	ctx, cancel := context.WithTimeout(ctx, r.m.opts.Wait)
	defer cancel()
	var rep tools.DiagnoseReport
	var lines, notes []string
	var found []found
	for _, k := range order {
		start := time.Now()
		fs, note, err := r.checkGroup(ctx, groups[k])
		r.m.log.Debug("checked", "server", cfgs[k].Name, "files", len(groups[k]), "found", len(fs), "err", err, "took", time.Since(start))
		if note != "" {
			notes = append(notes, note)
		}
		if line := r.describe(cfgs[k], err); line != "" {
			lines = append(lines, line)
			continue
		}
		if err != nil {
			continue
		}
		for _, f := range fs {
			rep.Files = append(rep.Files, f.event(r.env))
			found = append(found, f)
		}
	}
	if len(rep.Files) > 0 || len(lines) == 0 {
		if text := r.listIntroduced(found); text != "" {
			lines = append([]string{text}, lines...)
		}
	}
	rep.Text = strings.Join(append(lines, notes...), "\n")
	return rep
}

// found is one file's introduced problems, positions in enc over text:
// by the change, and by the run so far (outstanding).
type found struct {
	path        string
	text        string
	enc         text.Encoding
	introduced  []diag
	outstanding []diag
	// changed: the outstanding count differs from the file's previous
	// check (a change elsewhere fixed or broke it).
	changed bool
}

// event converts f for the problems event: byte positions over the text.
func (f found) event(env *tools.Env) tools.FileProblems {
	ix := text.NewIndex(f.text)
	return tools.FileProblems{Path: f.path, Introduced: len(f.introduced), Text: f.text,
		Items: problems(ix, f.introduced, f.enc), Outstanding: problems(ix, f.outstanding, f.enc)}
}

// problems converts ds (at most maxEventItems) to byte positions over ix.
func problems(ix *text.Index, ds []diag, enc text.Encoding) []tools.Problem {
	var out []tools.Problem
	for i, d := range ds {
		if i == maxEventItems {
			break
		}
		out = append(out, tools.Problem{
			Range:    byteRange(ix, d, enc),
			Severity: severityName(d.sev()),
			Message:  d.message, Source: d.source, Code: d.code,
		})
	}
	return out
}

// byteRange converts d's range to UTF-8 columns over ix's text.
func byteRange(ix *text.Index, d diag, enc text.Encoding) text.Range {
	start := ix.Offset(text.Position{Line: d.rng.Start.Line, Character: d.rng.Start.Character}, enc)
	end := ix.Offset(text.Position{Line: d.rng.End.Line, Character: d.rng.End.Character}, enc)
	return ix.Range(start, max(start, end), text.UTF8)
}

// listIntroduced is the edit result's last lines: up to maxListed
// introduced problems, errors first, "path:line: message", or "no new
// problems".
func (r *Run) listIntroduced(fs []found) string {
	type item struct {
		path string
		d    diag
	}
	var all []item
	// A secret-looking file's problems are counted, not quoted: a message
	// ("cannot use "ghp_…" (untyped string constant) as int value") is
	// the file's text. The model learns which file broke, as it would
	// from a build.
	var secret []string
	hidden := 0
	for _, f := range fs {
		if len(f.introduced) > 0 && r.env.IsSecret(f.path) {
			secret = append(secret, r.env.Display(f.path))
			hidden += len(f.introduced)
			continue
		}
		for _, d := range f.introduced {
			all = append(all, item{r.env.Display(f.path), d})
		}
	}
	hiddenLine := ""
	if hidden > 0 {
		hiddenLine = fmt.Sprintf("this change introduced %d problem(s) in %s, %s; their messages are not shown", hidden, strings.Join(secret, ", "), secretWords(len(secret)))
	}
	if len(all) == 0 {
		if hiddenLine != "" {
			return hiddenLine
		}
		return "no new problems"
	}
	slices.SortStableFunc(all, func(a, b item) int {
		if a.d.sev() != b.d.sev() {
			return int(a.d.sev()) - int(b.d.sev())
		}
		if a.path != b.path {
			return strings.Compare(a.path, b.path)
		}
		return int(a.d.rng.Start.Line) - int(b.d.rng.Start.Line)
	})
	var b strings.Builder
	noun := "problem"
	if len(all) > 1 {
		noun = "problems"
	}
	fmt.Fprintf(&b, "this change introduced %d %s; fix them before finishing:", len(all), noun)
	for i, it := range all {
		if i == maxListed {
			fmt.Fprintf(&b, "\n… and %d more (diagnostics lists them all)", len(all)-maxListed)
			break
		}
		sev := ""
		if it.d.sev() != 1 {
			sev = severityName(it.d.sev()) + ": "
		}
		fmt.Fprintf(&b, "\n%s:%d: %s%s", it.path, it.d.rng.Start.Line+1, sev, it.d.message)
	}
	if hiddenLine != "" {
		b.WriteString("\n" + hiddenLine)
	}
	return b.String()
}

// checkGroup checks changes that one server serves: the server is given
// each file's text before the change (when it does not hold it already)
// and its diagnostics are settled, then the text after, settled again.
// Other files the server re-checked in between are compared with what it
// said of them before.
func (r *Run) checkGroup(ctx context.Context, changes []tools.FileChange) ([]found, string, error) {
	var out []found
	var note string
	skip := make([]string, len(changes))
	for i, ch := range changes {
		skip[i] = ch.Path
	}
	err := r.use(ctx, changes[0].Path, skip, func(c *client) error {
		defer func() { note = r.serverNote(c) }()
		pull := c.pull()
		before := make([][]diag, len(changes))
		for i, ch := range changes {
			if ch.Before == "" {
				if _, _, open := c.docText(ch.Path); !open {
					continue // a new file: nothing before it
				}
			}
			ds, err := r.settled(ctx, c, ch.Path, ch.Before)
			if err != nil {
				return err
			}
			before[i] = ds
		}
		others := r.otherDiags(ctx, c, pull, skip)
		seq := c.pubSeqNow()
		// Headers first: clangd builds a file with the headers' text as it
		// holds them at that moment.
		order := headersFirst(changes)
		for _, ch := range order {
			if _, _, err := c.syncDoc(ctx, ch.Path, ch.After); err != nil {
				return err
			}
		}
		// A push server may answer for a file changed first from a state
		// without the later changes (gopls: a rename's caller published
		// "undefined: Sum" before the renamed definition arrived, for the
		// version it then kept): the files sent before the last one are
		// sent again, and the answers for those versions hold every
		// change. clangd needs no second round (headers go first, and
		// sources do not include each other), and a header sent twice
		// would wait for a new stamp.
		if !pull && c.cfg.Name != "clangd" {
			for _, ch := range order[:len(order)-1] {
				if err := c.resend(ctx, ch.Path); err != nil {
					return err
				}
			}
		}
		headers := c.rebuildDependents(ctx, skip)
		c.goplsDiagnosed(ctx, skip)
		for i, ch := range changes {
			after, err := r.settledAfter(ctx, c, ch.Path, seq)
			if err != nil {
				return err
			}
			out = append(out, r.record(ch.Path, c.enc, before[i], ch.Before, after, ch.After))
		}
		out = append(out, r.otherIntroduced(ctx, c, pull, skip, seq, others, headers)...)
		return nil
	})
	return out, note, err
}

// settled makes the server hold content for path and returns its settled
// diagnostics for it.
func (r *Run) settled(ctx context.Context, c *client, path, content string) ([]diag, error) {
	seq := c.pubSeqNow()
	v, sent, err := c.syncDoc(ctx, path, content)
	if err != nil {
		return nil, err
	}
	if !sent && !c.pull() {
		if pub, ok := c.published(path, v); ok {
			return pub.items, nil
		}
		seq = 0
	}
	return c.diagnosticsOf(ctx, path, v, seq)
}

// settledAfter returns path's settled diagnostics for the version the
// server holds, the change having been sent after publication seq.
func (r *Run) settledAfter(ctx context.Context, c *client, path string, seq uint64) ([]diag, error) {
	_, v, _ := c.docText(path)
	return c.diagnosticsOf(ctx, path, v, seq)
}

// otherState is what the server said of a file other than the changed
// ones before the change.
type otherState struct {
	diags []diag
	text  string
}

// otherDiags snapshots the diagnostics of the other files: the last
// publication of each (push), or a pull of each open dependent that was
// never pulled (pull).
func (r *Run) otherDiags(ctx context.Context, c *client, pull bool, skip []string) map[string]otherState {
	out := map[string]otherState{}
	if pull {
		for _, p := range r.dependents(c, skip) {
			c.mu.Lock()
			d := c.docs[p]
			has, ds, txt := d != nil && d.hasPulled && d.pulledAt == d.version, []diag(nil), ""
			if d != nil {
				ds, txt = d.pulled, d.text
			}
			c.mu.Unlock()
			if !has {
				var err error
				if ds, _, err = c.pullDiags(ctx, p); err != nil {
					continue
				}
			}
			out[p] = otherState{ds, txt}
		}
		return out
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	for p, pub := range c.pubs {
		if slices.Contains(skip, p) {
			continue
		}
		txt := ""
		if d := c.docs[p]; d != nil {
			txt = d.text
		}
		out[p] = otherState{pub.items, txt}
	}
	return out
}

// dependents are the open documents other than the changed ones, most
// recently used first, at most maxDependents.
func (c *client) dependentsLocked(skip []string) []string {
	var ps []string
	for p := range c.docs {
		if !slices.Contains(skip, p) {
			ps = append(ps, p)
		}
	}
	slices.SortFunc(ps, func(a, b string) int { return int(c.docs[b].used) - int(c.docs[a].used) })
	if len(ps) > maxDependents {
		ps = ps[:maxDependents]
	}
	return ps
}

func (r *Run) dependents(c *client, skip []string) []string {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.dependentsLocked(skip)
}

// othersGrace is how long a push server's re-check of other open files may
// trail the changed file's answer before it is left out (tsls publishes
// each open file separately).
const othersGrace = 150 * time.Millisecond

// otherIntroduced compares the other files' diagnostics after the change
// with before: pulled again (pull), or as published since seq (push).
// Files with nothing known from before are left out: their problems
// cannot be told apart from old ones.
func (r *Run) otherIntroduced(ctx context.Context, c *client, pull bool, skip []string, seq uint64, before map[string]otherState, headers []string) []found {
	after := map[string][]diag{}
	if pull {
		var mu sync.Mutex
		var wg sync.WaitGroup
		for p := range before {
			wg.Go(func() {
				if ds, _, err := c.pullDiags(ctx, p); err == nil {
					mu.Lock()
					after[p] = ds
					mu.Unlock()
				}
			})
		}
		wg.Wait()
	} else {
		if c.cfg.Name != "gopls" { // gopls publishes the packages it re-checked together
			grace, deps := othersGrace, r.dependents(c, skip)
			if c.cfg.Name == "clangd" {
				grace, deps = clangdOthersGrace, includers(c, deps, headers)
			}
			wctx, cancel := context.WithTimeout(ctx, grace)
			for _, p := range deps {
				_, v, _ := c.docText(p)
				_, _ = c.waitPublished(wctx, p, v, seq)
			}
			cancel()
		}
		for p, pub := range c.pubsSince(seq) {
			if !slices.Contains(skip, p) {
				after[p] = pub.items
			}
		}
	}
	var out []found
	for _, p := range slices.Sorted(maps.Keys(after)) {
		prev, ok := before[p]
		if !ok {
			continue
		}
		txt := prev.text
		if t, _, open := c.docText(p); open {
			txt = t
		}
		f := r.record(p, c.enc, prev.diags, txt, after[p], txt)
		if len(f.introduced) > 0 || f.changed {
			out = append(out, f)
		}
	}
	return out
}

// record notes a file's diagnostics before and after a change in the
// run's memory (the first before is the file's baseline) and returns the
// problems the change introduced.
func (r *Run) record(path string, enc text.Encoding, before []diag, beforeText string, after []diag, afterText string) found {
	r.mu.Lock()
	st := r.files[path]
	if st == nil {
		st = &fileState{baseline: before, baseText: beforeText, hasBaseline: true}
		r.files[path] = st
	}
	st.latest, st.latestText, st.enc, st.checkedOnce = after, afterText, enc, true
	f := found{path: path, text: afterText, enc: enc,
		introduced:  introduced(before, beforeText, after, afterText),
		outstanding: introduced(st.baseline, st.baseText, after, afterText)}
	f.changed = len(f.outstanding) != st.outstanding
	st.outstanding = len(f.outstanding)
	r.mu.Unlock()
	return f
}

// Outstanding counts the problems the run introduced that were still there
// at its last check of each file (relative to the file before the run
// changed it), for the run's end (finished event). It asks no server.
func (r *Run) Outstanding() int {
	r.mu.Lock()
	defer r.mu.Unlock()
	n := 0
	for _, st := range r.files {
		if st.checkedOnce {
			n += len(introduced(st.baseline, st.baseText, st.latest, st.latestText))
		}
	}
	return n
}

// introduced returns the problems (errors and warnings) of after that
// before did not have. Diagnostics match by severity, message, source and
// code: first those whose line maps onto each other through the change
// (lines above the change keep their number, lines below shift by what it
// added), then any left with the same text, wherever it moved. What is
// left of after is new; errors first, then by line.
func introduced(before []diag, beforeText string, after []diag, afterText string) []diag {
	type key struct {
		sev               int
		msg, source, code string
	}
	keyOf := func(d diag) key { return key{int(d.sev()), d.message, d.source, d.code} }
	lineMap := mapLines(beforeText, afterText)
	used := make([]bool, len(before))
	var rest []diag
	for _, a := range after {
		if !a.isProblem() {
			continue
		}
		matched := false
		for j, b := range before {
			if !used[j] && keyOf(b) == keyOf(a) {
				if nl, ok := lineMap(int(b.rng.Start.Line)); ok && nl == int(a.rng.Start.Line) {
					used[j], matched = true, true
					break
				}
			}
		}
		if !matched {
			rest = append(rest, a)
		}
	}
	var out []diag
	for _, a := range rest {
		matched := false
		for j, b := range before {
			if !used[j] && keyOf(b) == keyOf(a) {
				used[j], matched = true, true
				break
			}
		}
		if !matched {
			out = append(out, a)
		}
	}
	slices.SortStableFunc(out, func(a, b diag) int {
		if a.sev() != b.sev() {
			return int(a.sev()) - int(b.sev())
		}
		return int(a.rng.Start.Line) - int(b.rng.Start.Line)
	})
	return out
}

// mapLines returns where a line of before is in after: lines above the
// first changed line stay, lines below the last changed line shift by the
// number of lines added; lines inside the change have no place.
func mapLines(before, after string) func(int) (int, bool) {
	a, b := strings.Split(before, "\n"), strings.Split(after, "\n")
	pre := 0
	for pre < len(a) && pre < len(b) && a[pre] == b[pre] {
		pre++
	}
	suf := 0
	for suf < len(a)-pre && suf < len(b)-pre && a[len(a)-1-suf] == b[len(b)-1-suf] {
		suf++
	}
	delta := len(b) - len(a)
	return func(l int) (int, bool) {
		switch {
		case l < pre:
			return l, true
		case l >= len(a)-suf:
			return l + delta, true
		}
		return 0, false
	}
}

// goplsDiagnosed has gopls diagnose the changed files' workspace and
// publish what changed before it answers (its gopls.diagnose_files
// command), so the publications held afterwards are those of the text
// after every change. Without it the answer was taken from whatever gopls
// had published for the new version: a change to two files (a rename) is
// two didChange notifications, and gopls could diagnose and publish the
// snapshot between them (main.go's new text against util.go's old one:
// "undefined: Sum"); a dependent's re-check could also come after the
// changed file's answer and be missed. On a loaded machine both happened
// (TestGopls failed 2 of 10 runs). An error (an older gopls) leaves the
// publications as they come.
func (c *client) goplsDiagnosed(ctx context.Context, changed []string) {
	if c.cfg.Name != "gopls" || len(changed) == 0 {
		return
	}
	var args struct {
		Files []string `json:"Files"`
	}
	c.mu.Lock()
	for _, p := range changed {
		if d := c.docs[p]; d != nil {
			args.Files = append(args.Files, string(d.uri))
		}
	}
	c.mu.Unlock()
	raw, err := json.Marshal(args)
	if err != nil || len(args.Files) == 0 {
		return
	}
	if _, err := c.srv.ExecuteCommand(ctx, &protocol.ExecuteCommandParams{Command: "gopls.diagnose_files", Arguments: []protocol.LSPAny{raw}}); err != nil {
		c.log.Debug("gopls.diagnose_files", "err", err)
	}
}

// clangdOthersGrace bounds the wait for clangd's rebuild of the open files
// that include a changed header.
const clangdOthersGrace = 2 * time.Second

// rebuildDependents makes clangd re-check the other open files against the
// changed headers and returns their paths: clangd rebuilds open files only
// when a file is saved, and with --use-dirty-headers builds them with the
// headers' overlays, so a didSave of each changed header (nothing is
// written) lets a changed signature show in its callers.
func (c *client) rebuildDependents(ctx context.Context, changed []string) []string {
	if c.cfg.Name != "clangd" {
		return nil
	}
	var out []string
	for _, p := range changed {
		if !isHeader(p) {
			continue
		}
		c.mu.Lock()
		d := c.docs[p]
		c.mu.Unlock()
		if d != nil {
			_ = c.srv.DidSave(ctx, &protocol.DidSaveTextDocumentParams{TextDocument: protocol.TextDocumentIdentifier{URI: d.uri}})
			out = append(out, p)
		}
	}
	return out
}

// includers are the documents among deps whose text names one of headers
// (an #include of it, directly): clangd republishes a file only when its
// rebuild changed something, so waiting for every open file would wait
// the whole grace for those the header does not reach. Files including it
// through another header are taken when they publish within the grace.
func includers(c *client, deps, headers []string) []string {
	var out []string
	for _, p := range deps {
		t, _, _ := c.docText(p)
		for _, h := range headers {
			if strings.Contains(t, filepath.Base(h)) {
				out = append(out, p)
				break
			}
		}
	}
	return out
}

// headersFirst orders changes with C and C++ headers first, keeping the
// order otherwise.
func headersFirst(changes []tools.FileChange) []tools.FileChange {
	out := slices.Clone(changes)
	slices.SortStableFunc(out, func(a, b tools.FileChange) int {
		ha, hb := isHeader(a.Path), isHeader(b.Path)
		switch {
		case ha == hb:
			return 0
		case ha:
			return -1
		}
		return 1
	})
	return out
}

// isHeader reports C and C++ header files, which other files include.
func isHeader(p string) bool {
	switch filepath.Ext(p) {
	case ".h", ".hh", ".hpp", ".hxx", ".inc", ".ipp", ".tcc":
		return true
	}
	return false
}
