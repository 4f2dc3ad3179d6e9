package lang

import (
	"context"
	_ "embed"
	"fmt"
	"maps"
	"regexp"
	"slices"
	"strings"
	"unicode/utf8"

	"go.lsp.dev/protocol"
	"go.lsp.dev/uri"

	"github.com/agentls/agentls/internal/text"
	"github.com/agentls/agentls/tools"
)

var (
	//go:embed descriptions/diagnostics.md
	diagnosticsDescription string
	//go:embed descriptions/definition.md
	definitionDescription string
	//go:embed descriptions/references.md
	referencesDescription string
	//go:embed descriptions/symbols.md
	symbolsDescription string
	//go:embed descriptions/rename.md
	renameDescription string
)

// Tools returns the run's language tools, the one registration list:
// diagnostics, definition, references and symbols (read-only) and rename
// (stages edits). Positions are a 1-based line plus the symbol's text on
// it, since models are poor at columns.
func (r *Run) Tools() []tools.Tool {
	return []tools.Tool{
		tools.New("diagnostics", diagnosticsDescription, true, r.diagnostics),
		tools.New("definition", definitionDescription, true, r.definition),
		tools.New("references", referencesDescription, true, r.references),
		tools.New("symbols", symbolsDescription, true, r.symbols),
		tools.New("rename", renameDescription, false, r.rename),
	}
}

// Bounds of the tools' results.
const (
	maxDiagLines = 50
	maxRefLines  = 100
	maxSymbols   = 100
	maxDefs      = 20
)

type diagnosticsParams struct {
	Path *string `json:"path,omitempty" jsonschema:"file path; omit for every file you changed"`
}

type positionParams struct {
	Path   string `json:"path" jsonschema:"file path"`
	Line   int    `json:"line" jsonschema:"1-based line"`
	Symbol string `json:"symbol" jsonschema:"the symbol's text on that line"`
}

type symbolsParams struct {
	Query *string `json:"query,omitempty" jsonschema:"symbol name or part of it"`
	Path  *string `json:"path,omitempty" jsonschema:"file to outline"`
}

type renameParams struct {
	Path    string `json:"path" jsonschema:"file path"`
	Line    int    `json:"line" jsonschema:"1-based line"`
	Symbol  string `json:"symbol" jsonschema:"the symbol's text on that line"`
	NewName string `json:"new_name" jsonschema:"new identifier"`
}

// servedPath resolves a model path to a file some language server serves.
func (r *Run) servedPath(pathArg string) (string, tools.Result, bool) {
	abs, err := r.env.Resolve(pathArg)
	if err != nil {
		return "", tools.Errorf("%v", err), false
	}
	if _, _, ok := r.server(abs); !ok {
		return "", tools.Errorf("no language server serves %s (served: %s); use grep or read_file", r.env.Display(abs), strings.Join(r.extensions(), " ")), false
	}
	if r.env.IsSecret(abs) {
		return "", tools.Errorf("%s looks like a secret file; it is not shown to the model", r.env.Display(abs)), false
	}
	return abs, tools.Result{}, true
}

func (r *Run) extensions() []string {
	var out []string
	for _, s := range r.served {
		out = append(out, s.Extensions...)
	}
	return out
}

// fail is the one-line tool error for a language-server failure.
func (r *Run) fail(abs string, err error) tools.Result {
	cfg, _, _ := r.server(abs)
	line := r.describe(cfg, err)
	if line == "" {
		line = fmt.Sprintf("language server %s is not available in this run", cfg.Name)
	}
	return tools.Errorf("%s", line)
}

// withWait bounds one tool call by the run's wait.
func (r *Run) withWait(ctx context.Context) (context.Context, context.CancelFunc) {
	return context.WithTimeout(ctx, r.m.opts.Wait)
}

func (r *Run) diagnostics(ctx context.Context, _ *tools.Env, p diagnosticsParams) (tools.Result, error) {
	var paths []string
	hidden := "" // why some changed files are not listed
	if p.Path != nil && strings.TrimSpace(*p.Path) != "" {
		abs, res, ok := r.servedPath(*p.Path)
		if !ok {
			return res, nil
		}
		paths = []string{abs}
	} else {
		// A secret file the run changed (one the model created) is left
		// out: a diagnostic's message quotes the code it is about.
		var secret []string
		for _, f := range r.env.Changes.Files() {
			if _, _, ok := r.server(f); ok {
				if r.env.IsSecret(f) {
					secret = append(secret, r.env.Display(f))
					continue
				}
				paths = append(paths, f)
			}
		}
		if len(secret) > 0 {
			hidden = secretNote(secret)
		}
		if len(paths) == 0 && hidden != "" {
			return tools.Errorf("%s", hidden), nil
		}
		if len(paths) == 0 {
			return tools.Errorf("you have changed no file a language server serves in this run; give a path"), nil
		}
	}
	data := tools.WantsData(ctx)
	values := []diagnosticValue{}
	finish := func(res tools.Result) tools.Result {
		if hidden != "" {
			res.Text = strings.TrimRight(res.Text, "\n") + "\n" + hidden
		}
		if data {
			return withData(res, "diagnostics", values)
		}
		return res
	}
	ctx, cancel := r.withWait(ctx)
	defer cancel()
	var lines, notes []string
	total := 0
	for _, abs := range paths {
		var ds []diag
		var content string
		var enc text.Encoding
		err := r.use(ctx, abs, nil, func(c *client) error {
			defer func() { notes = appendNote(notes, r.serverNote(c)) }()
			var err error
			content, _, _ = c.docText(abs)
			enc = c.enc
			ds, err = r.current(ctx, c, abs)
			return err
		})
		if err != nil {
			return r.fail(abs, err), nil
		}
		if data {
			values = append(values, diagnosticValues(r.env.Display(abs), content, ds, enc)...)
		}
		shown := 0
		for _, d := range sortDiags(ds) {
			if !d.isProblem() {
				continue
			}
			total++
			if len(lines) < maxDiagLines {
				col := column(content, d.rng.Start, enc)
				lines = append(lines, fmt.Sprintf("%s:%d:%d: %s: %s", r.env.Display(abs), d.rng.Start.Line+1, col, severityName(d.sev()), d.message))
				shown++
			}
		}
		if shown == 0 && len(paths) == 1 {
			return finish(withNotes(tools.Result{Text: fmt.Sprintf("%s: no errors or warnings", r.env.Display(abs)), Summary: "no problems in " + r.env.Display(abs)}, notes)), nil
		}
	}
	if total == 0 {
		return finish(withNotes(tools.Result{Text: fmt.Sprintf("no errors or warnings in the %d file(s) you changed", len(paths)), Summary: "no problems"}, notes)), nil
	}
	text := strings.Join(lines, "\n")
	if total > len(lines) {
		text += fmt.Sprintf("\n… and %d more", total-len(lines))
	}
	return finish(withNotes(tools.Result{Text: text, Summary: fmt.Sprintf("%d problem(s)", total)}, notes)), nil
}

// secretNote says which secret-looking files' diagnostics are left out,
// naming the files and nothing of what the server said of them.
func secretNote(paths []string) string {
	slices.Sort(paths)
	paths = slices.Compact(paths)
	return fmt.Sprintf("not shown: the diagnostics of %s, %s (%s not shown to the model)", strings.Join(paths, ", "), secretWords(len(paths)), map[bool]string{true: "its contents are", false: "their contents are"}[len(paths) == 1])
}

// secretWords is "which looks like a secret file" for n files.
func secretWords(n int) string {
	if n == 1 {
		return "which looks like a secret file"
	}
	return "which look like secret files"
}

// current returns the settled diagnostics of the text the server holds
// for abs (synced from the run's view).
func (r *Run) current(ctx context.Context, c *client, abs string) ([]diag, error) {
	_, v, _ := c.docText(abs)
	if pub, ok := c.published(abs, v); ok && !c.pull() {
		return pub.items, nil
	}
	return c.diagnosticsOf(ctx, abs, v, 0)
}

func sortDiags(ds []diag) []diag {
	out := slices.Clone(ds)
	slices.SortStableFunc(out, func(a, b diag) int {
		if a.sev() != b.sev() {
			return int(a.sev()) - int(b.sev())
		}
		return int(a.rng.Start.Line) - int(b.rng.Start.Line)
	})
	return out
}

// position resolves the model's line and symbol in the run's text of abs.
func (r *Run) position(abs string, line int, symbol string, c *client) (protocol.Position, error) {
	content, _, _ := c.docText(abs)
	return locate(content, line, symbol, c.enc)
}

// located is what locationsAt found: the file asked about, the
// locations (positions in enc) and the server's note.
type located struct {
	abs  string
	locs []protocol.Location
	enc  text.Encoding
	note string
}

// locationsAt is what definition and references share: it resolves p's
// path to a served file, bounds the call by the run's wait, finds p's line
// and symbol in the text the server holds, and asks the server with ask
// at that position. It returns what it found, or the tool error to return
// instead (ok false).
func (r *Run) locationsAt(ctx context.Context, p positionParams, ask func(ctx context.Context, c *client, at protocol.TextDocumentPositionParams) ([]protocol.Location, error)) (found located, res tools.Result, ok bool) {
	abs, res, ok := r.servedPath(p.Path)
	if !ok {
		return located{}, res, false
	}
	found.abs = abs
	ctx, cancel := r.withWait(ctx)
	defer cancel()
	var posErr error
	err := r.use(ctx, abs, nil, func(c *client) error {
		defer func() { found.note = r.serverNote(c) }()
		found.enc = c.enc
		pos, err := r.position(abs, p.Line, p.Symbol, c)
		if err != nil {
			posErr = err
			return nil
		}
		found.locs, err = ask(ctx, c, textPos(abs, pos))
		if err != nil {
			return c.callError(ctx, err)
		}
		return nil
	})
	if posErr != nil {
		return located{}, tools.Errorf("%s: %v", r.env.Display(abs), posErr), false
	}
	if err != nil {
		return located{}, r.fail(abs, err), false
	}
	return found, tools.Result{}, true
}

// withLocations gives a program found's locations as values.
func (r *Run) withLocations(ctx context.Context, res tools.Result, what string, found located) tools.Result {
	if !tools.WantsData(ctx) {
		return res
	}
	return withData(res, what, r.locationValues(found.locs, found.enc))
}

func (r *Run) definition(ctx context.Context, _ *tools.Env, p positionParams) (tools.Result, error) {
	found, res, ok := r.locationsAt(ctx, p, func(ctx context.Context, c *client, at protocol.TextDocumentPositionParams) ([]protocol.Location, error) {
		res, err := c.srv.Definition(ctx, &protocol.DefinitionParams{TextDocumentPositionParams: at})
		return definitionLocations(res), err
	})
	if !ok {
		return res, nil
	}
	locs, note := found.locs, found.note
	if len(locs) == 0 {
		return r.withLocations(ctx, withNotes(tools.Result{Text: fmt.Sprintf("no definition found for %s at %s:%d", p.Symbol, r.env.Display(found.abs), p.Line)}, []string{note}), "definition", found), nil
	}
	var b strings.Builder
	for i, l := range locs {
		if i == maxDefs {
			fmt.Fprintf(&b, "… and %d more\n", len(locs)-maxDefs)
			break
		}
		b.WriteString(r.locationLine(l) + "\n")
	}
	return r.withLocations(ctx, withNotes(tools.Result{Text: strings.TrimRight(b.String(), "\n"), Summary: fmt.Sprintf("definition of %s: %d location(s)", p.Symbol, len(locs))}, []string{note}), "definition", found), nil
}

func textPos(abs string, pos protocol.Position) protocol.TextDocumentPositionParams {
	return protocol.TextDocumentPositionParams{TextDocument: protocol.TextDocumentIdentifier{URI: uri.File(abs)}, Position: pos}
}

// definitionLocations flattens the three shapes of a definition result.
func definitionLocations(res protocol.DefinitionResult) []protocol.Location {
	switch v := res.(type) {
	case *protocol.Location:
		if v != nil {
			return []protocol.Location{*v}
		}
	case protocol.LocationSlice:
		return v
	case protocol.DefinitionLinkSlice:
		out := make([]protocol.Location, len(v))
		for i, l := range v {
			out[i] = protocol.Location{URI: l.TargetURI, Range: l.TargetSelectionRange}
		}
		return out
	}
	return nil
}

// locationLine shows a location as "path:line: text": the line's text as
// the run sees it when the file is in the workspace (and not a secret),
// else the path and line alone.
func (r *Run) locationLine(l protocol.Location) string {
	path, content, ok := r.fileOf(l.URI)
	if !ok {
		return fmt.Sprintf("%s:%d", path, l.Range.Start.Line+1)
	}
	n, line := lineAt(content, l.Range.Start)
	return fmt.Sprintf("%s:%d: %s", path, n, clipLine(line))
}

// seenFile is what fileOf said of one URI.
type seenFile struct {
	path, content string
	ok            bool
}

// filesOf is fileOf remembering its answers, for the many locations of one
// result (a file with 500 references is read once, not 500 times).
func (r *Run) filesOf() func(uri.URI) (string, string, bool) {
	seen := map[uri.URI]seenFile{}
	return func(u uri.URI) (string, string, bool) {
		f, ok := seen[u]
		if !ok {
			f.path, f.content, f.ok = r.fileOf(u)
			seen[u] = f
		}
		return f.path, f.content, f.ok
	}
}

// fileOf returns a location's path as shown to the model and, when the
// model may see it, the run's text of the file.
func (r *Run) fileOf(u uri.URI) (string, string, bool) {
	if !u.IsFile() {
		return string(u), "", false
	}
	p := u.FsPath()
	abs, err := r.env.Resolve(p)
	if err != nil {
		return p, "", false
	}
	if r.env.IsSecret(abs) {
		return r.env.Display(abs), "", false
	}
	content, exists, err := r.env.Text(abs)
	if err != nil || !exists {
		return r.env.Display(abs), "", false
	}
	return r.env.Display(abs), content, true
}

func (r *Run) references(ctx context.Context, _ *tools.Env, p positionParams) (tools.Result, error) {
	found, res, ok := r.locationsAt(ctx, p, func(ctx context.Context, c *client, at protocol.TextDocumentPositionParams) ([]protocol.Location, error) {
		return c.srv.References(ctx, &protocol.ReferenceParams{TextDocumentPositionParams: at, Context: protocol.ReferenceContext{IncludeDeclaration: true}})
	})
	if !ok {
		return res, nil
	}
	locs, note := found.locs, found.note
	if len(locs) == 0 {
		return r.withLocations(ctx, withNotes(tools.Result{Text: fmt.Sprintf("no references found for %s at %s:%d", p.Symbol, r.env.Display(found.abs), p.Line)}, []string{note}), "references", found), nil
	}
	type ref struct {
		line int
		text string
	}
	byFile := map[string][]ref{}
	var files []string
	fileOf := r.filesOf()
	for _, l := range locs {
		path, content, ok := fileOf(l.URI)
		if _, seen := byFile[path]; !seen {
			files = append(files, path)
		}
		rf := ref{line: int(l.Range.Start.Line) + 1}
		if ok {
			_, t := lineAt(content, l.Range.Start)
			rf.text = clipLine(t)
		}
		byFile[path] = append(byFile[path], rf)
	}
	slices.Sort(files)
	var b strings.Builder
	fmt.Fprintf(&b, "%d reference(s) in %d file(s):", len(locs), len(files))
	shown := 0
	for _, f := range files {
		refs := byFile[f]
		slices.SortFunc(refs, func(a, b ref) int { return a.line - b.line })
		refs = slices.CompactFunc(refs, func(a, b ref) bool { return a.line == b.line })
		if shown >= maxRefLines {
			break
		}
		b.WriteString("\n" + f)
		for _, rf := range refs {
			if shown >= maxRefLines {
				break
			}
			if rf.text != "" {
				fmt.Fprintf(&b, "\n  %d: %s", rf.line, rf.text)
			} else {
				fmt.Fprintf(&b, "\n  %d", rf.line)
			}
			shown++
		}
	}
	if left := len(locs) - shown; left > 0 && shown >= maxRefLines {
		fmt.Fprintf(&b, "\n… %d more not shown", left)
	}
	return r.withLocations(ctx, withNotes(tools.Result{Text: b.String(), Summary: fmt.Sprintf("%d reference(s) to %s in %d file(s)", len(locs), p.Symbol, len(files))}, []string{note}), "references", found), nil
}

func (r *Run) symbols(ctx context.Context, _ *tools.Env, p symbolsParams) (tools.Result, error) {
	ctx, cancel := r.withWait(ctx)
	defer cancel()
	if p.Path != nil && strings.TrimSpace(*p.Path) != "" {
		return r.outline(ctx, *p.Path), nil
	}
	if p.Query == nil || strings.TrimSpace(*p.Query) == "" {
		return tools.Errorf("give a query (a symbol name or part of it) or a path to outline"), nil
	}
	return r.workspaceSymbols(ctx, strings.TrimSpace(*p.Query)), nil
}

// outline lists a file's symbols, nested, one per line.
func (r *Run) outline(ctx context.Context, pathArg string) tools.Result {
	abs, res, ok := r.servedPath(pathArg)
	if !ok {
		return res
	}
	var note, content string
	var enc text.Encoding
	var syms protocol.DocumentSymbolResult
	err := r.use(ctx, abs, nil, func(c *client) error {
		defer func() { note = r.serverNote(c) }()
		content, _, _ = c.docText(abs)
		enc = c.enc
		var err error
		syms, err = c.srv.DocumentSymbol(ctx, &protocol.DocumentSymbolParams{TextDocument: protocol.TextDocumentIdentifier{URI: uri.File(abs)}})
		if err != nil {
			return c.callError(ctx, err)
		}
		return nil
	})
	if err != nil {
		return r.fail(abs, err)
	}
	var lines []string
	values := []symbolValue{}
	data := tools.WantsData(ctx)
	display := r.env.Display(abs)
	n := 0
	value := func(name string, kind protocol.SymbolKind, at protocol.Position, depth int, container string) {
		if data && len(values) <= tools.DataMaxMatches {
			values = append(values, symbolValue{Path: display, Line: int(at.Line) + 1, Column: columnIn(content, true, at, enc),
				Name: name, Kind: kindName(kind), Depth: depth, Container: container})
		}
	}
	var walk func(ds []protocol.DocumentSymbol, depth int, container string)
	walk = func(ds []protocol.DocumentSymbol, depth int, container string) {
		for _, d := range ds {
			n++
			if len(lines) < maxSymbols {
				lines = append(lines, fmt.Sprintf("%s%d: %s %s", strings.Repeat("  ", depth), d.SelectionRange.Start.Line+1, kindName(d.Kind), d.Name))
			}
			value(d.Name, d.Kind, d.SelectionRange.Start, depth, container)
			walk(d.Children, depth+1, d.Name)
		}
	}
	switch v := syms.(type) {
	case protocol.DocumentSymbolSlice:
		walk(v, 0, "")
	case protocol.SymbolInformationSlice:
		for _, s := range v {
			n++
			if len(lines) < maxSymbols {
				lines = append(lines, fmt.Sprintf("%d: %s %s", s.Location.Range.Start.Line+1, kindName(s.Kind), s.Name))
			}
			container := ""
			if s.ContainerName != nil {
				container = *s.ContainerName
			}
			value(s.Name, s.Kind, s.Location.Range.Start, 0, container)
		}
	}
	finish := func(res tools.Result) tools.Result {
		switch {
		case !data:
			return res
		case n > tools.DataMaxMatches:
			return tooMany("symbols", n)
		}
		return withData(res, "symbols", values)
	}
	if n == 0 {
		return finish(withNotes(tools.Result{Text: fmt.Sprintf("%s: no symbols", display)}, []string{note}))
	}
	text := display + ":\n" + strings.Join(lines, "\n")
	if n > len(lines) {
		text += fmt.Sprintf("\n… and %d more", n-len(lines))
	}
	return finish(withNotes(tools.Result{Text: text, Summary: fmt.Sprintf("outline of %s: %d symbol(s)", display, n)}, []string{note}))
}

// workspaceSymbols asks every served server (per workspace folder) for
// symbols matching query; only symbols in the workspace are listed.
func (r *Run) workspaceSymbols(ctx context.Context, query string) tools.Result {
	type hit struct {
		name, kind, where string
		// for a program: the place and the container's name; col 0 when
		// the file's text is not known
		path          string
		line, col     int
		containerName string
	}
	var hits []hit
	var fails []string
	// Symbols in secret-looking files are left out: their names are the
	// file's text, and outline refuses those files too.
	secretHits, secretFiles := 0, []string{}
	for _, cfg := range r.served {
		for _, folder := range r.env.View.Folders() {
			c, release, err := r.m.acquire(ctx, r, cfg, folder)
			if err != nil {
				if line := r.describe(cfg, err); line != "" {
					fails = append(fails, line)
				}
				continue
			}
			c.use.Lock()
			err = r.syncAll(ctx, c, cfg, folder, nil)
			var res protocol.WorkspaceSymbolResult
			if err == nil {
				res, err = c.srv.Symbols(ctx, &protocol.WorkspaceSymbolParams{Query: query})
				if err != nil {
					err = c.callError(ctx, err)
				}
			}
			c.use.Unlock()
			release()
			if err != nil {
				if line := r.describe(cfg, err); line != "" {
					fails = append(fails, line)
				}
				continue
			}
			add := func(s protocol.BaseSymbolInformation, loc protocol.Location) {
				if loc.URI.IsFile() {
					if abs, err := r.env.Resolve(loc.URI.FsPath()); err == nil && r.env.IsSecret(abs) {
						secretHits++
						secretFiles = append(secretFiles, r.env.Display(abs))
						return
					}
				}
				path, content, ok := r.fileOf(loc.URI)
				if !ok && content == "" {
					if _, err := r.env.Resolve(loc.URI.FsPath()); err != nil || !loc.URI.IsFile() {
						return // outside the workspace: the standard library, dependencies
					}
				}
				h := hit{name: s.Name, kind: kindName(s.Kind), where: fmt.Sprintf("%s:%d", path, loc.Range.Start.Line+1),
					path: path, line: int(loc.Range.Start.Line) + 1}
				if ok {
					h.col = column(content, loc.Range.Start, c.enc)
				}
				if s.ContainerName != nil {
					h.containerName = *s.ContainerName
				}
				hits = append(hits, h)
			}
			switch v := res.(type) {
			case protocol.SymbolInformationSlice:
				for _, s := range v {
					add(s.BaseSymbolInformation, s.Location)
				}
			case protocol.WorkspaceSymbolSlice:
				for _, s := range v {
					if l, ok := s.Location.(*protocol.Location); ok && l != nil {
						add(s.BaseSymbolInformation, *l)
					} else if lu, ok := s.Location.(*protocol.LocationUriOnly); ok && lu != nil {
						add(s.BaseSymbolInformation, protocol.Location{URI: lu.URI})
					}
				}
			}
		}
	}
	data := tools.WantsData(ctx)
	finish := func(res tools.Result) tools.Result {
		if !data {
			return res
		}
		values := make([]symbolValue, 0, len(hits))
		for _, h := range hits {
			v := symbolValue{Path: h.path, Line: h.line, Name: h.name, Kind: h.kind, Container: h.containerName}
			if h.col > 0 {
				v.Column = &h.col
			}
			values = append(values, v)
		}
		return withData(res, "symbols", values)
	}
	hidden := ""
	if secretHits > 0 {
		slices.Sort(secretFiles)
		secretFiles = slices.Compact(secretFiles)
		hidden = fmt.Sprintf("\nnot shown: %d symbol(s) in %s, %s", secretHits, strings.Join(secretFiles, ", "), secretWords(len(secretFiles)))
	}
	if len(hits) == 0 {
		if len(fails) > 0 {
			return tools.Errorf("%s%s", strings.Join(fails, "\n"), hidden)
		}
		return finish(tools.Result{Text: fmt.Sprintf("no symbols match %q in the workspace", query) + hidden})
	}
	// Exact names first, then by name and place.
	slices.SortStableFunc(hits, func(a, b hit) int {
		ea, eb := a.name == query, b.name == query
		if ea != eb {
			if ea {
				return -1
			}
			return 1
		}
		if c := strings.Compare(a.name, b.name); c != 0 {
			return c
		}
		return strings.Compare(a.where, b.where)
	})
	hits = slices.CompactFunc(hits, func(a, b hit) bool { return a.name == b.name && a.kind == b.kind && a.where == b.where })
	var b strings.Builder
	for i, h := range hits {
		if i == maxSymbols {
			fmt.Fprintf(&b, "… and %d more; refine the query\n", len(hits)-maxSymbols)
			break
		}
		fmt.Fprintf(&b, "%s %s %s\n", h.where, h.kind, h.name)
	}
	for _, f := range fails {
		b.WriteString(f + "\n")
	}
	return finish(tools.Result{Text: strings.TrimRight(b.String(), "\n") + hidden, Summary: fmt.Sprintf("%d symbol(s) match %s", len(hits), query)})
}

// kindName is an LSP SymbolKind in words.
func kindName(k protocol.SymbolKind) string {
	names := [...]string{"", "file", "module", "namespace", "package", "class", "method", "property", "field", "constructor",
		"enum", "interface", "function", "variable", "constant", "string", "number", "boolean", "array", "object", "key",
		"null", "enum member", "struct", "event", "operator", "type parameter"}
	if int(k) > 0 && int(k) < len(names) {
		return names[k]
	}
	return "symbol"
}

// identifier is what a new name must look like: languages differ, but a
// name that is not an identifier anywhere is refused before the server is
// asked (pyright and tsls accept "1bad name").
var identifier = regexp.MustCompile(`^[\p{L}_$][\p{L}\p{N}_$]*$`)

func (r *Run) rename(ctx context.Context, _ *tools.Env, p renameParams) (tools.Result, error) {
	abs, res, ok := r.servedPath(p.Path)
	if !ok {
		return res, nil
	}
	newName := strings.TrimSpace(p.NewName)
	if !identifier.MatchString(newName) {
		return tools.Errorf("new_name %q is not an identifier", p.NewName), nil
	}
	wctx, cancel := r.withWait(ctx)
	defer cancel()
	var changes []tools.FileChange
	var note string
	var posErr, editErr error
	err := r.use(wctx, abs, nil, func(c *client) error {
		defer func() { note = r.serverNote(c) }()
		pos, err := r.position(abs, p.Line, p.Symbol, c)
		if err != nil {
			posErr = err
			return nil
		}
		we, err := c.srv.Rename(wctx, &protocol.RenameParams{TextDocumentPositionParams: textPos(abs, pos), NewName: newName})
		if err != nil {
			if wctx.Err() == nil && !c.isDead() {
				posErr = fmt.Errorf("cannot rename %s here: %s", p.Symbol, oneLine(err.Error()))
				return nil
			}
			return c.callError(wctx, err)
		}
		if we == nil {
			posErr = fmt.Errorf("the language server cannot rename %s at line %d", p.Symbol, p.Line)
			return nil
		}
		changes, editErr = r.workspaceEditChanges(c, we)
		return nil
	})
	switch {
	case posErr != nil:
		return tools.Errorf("%s: %v", r.env.Display(abs), posErr), nil
	case err != nil:
		return r.fail(abs, err), nil
	case editErr != nil:
		return tools.Errorf("rename of %s not staged: %v", p.Symbol, editErr), nil
	case len(changes) == 0:
		return tools.Errorf("the language server proposed no change for renaming %s", p.Symbol), nil
	}
	return withNotes(r.env.StageComputed(ctx, fmt.Sprintf("Renamed %s to %s in", lastWord(p.Symbol), newName), changes), []string{note}), nil
}

// lastWord is the identifier the rename applies to, as locate picks it.
func lastWord(sym string) string {
	sym = strings.TrimSpace(sym)
	rest := sym[lastIdent(sym):]
	end := 0
	for end < len(rest) {
		r, size := utf8.DecodeRuneInString(rest[end:])
		if !isIdent(r) {
			break
		}
		end += size
	}
	if end == 0 {
		return sym
	}
	return rest[:end]
}

// workspaceEditChanges turns a rename's WorkspaceEdit into new file texts
// over the texts the server holds (or the run's view of files it does not
// hold). Edits to files outside the workspace, file operations, and edits
// against a document version the server no longer has are refused.
func (r *Run) workspaceEditChanges(c *client, we *protocol.WorkspaceEdit) ([]tools.FileChange, error) {
	edits := map[string][]protocol.TextEdit{}
	var order []string
	add := func(u uri.URI, es []protocol.TextEdit) error {
		if !u.IsFile() {
			return fmt.Errorf("it would change %s, which is not a file", u)
		}
		p := u.FsPath()
		abs, err := r.env.Resolve(p)
		if err != nil {
			return fmt.Errorf("it would change %s, outside the workspace", p)
		}
		if _, seen := edits[abs]; !seen {
			order = append(order, abs)
		}
		edits[abs] = append(edits[abs], es...)
		return nil
	}
	for _, dc := range we.DocumentChanges {
		switch d := dc.(type) {
		case *protocol.TextDocumentEdit:
			p := d.TextDocument.URI.FsPath()
			if v := d.TextDocument.Version; v != nil {
				if _, have, open := c.docText(p); open && have != *v {
					return nil, fmt.Errorf("the server answered for version %d of %s, but it holds %d", *v, r.env.Display(p), have)
				}
			}
			var es []protocol.TextEdit
			for _, e := range d.Edits {
				switch x := e.(type) {
				case *protocol.TextEdit:
					es = append(es, *x)
				case *protocol.AnnotatedTextEdit:
					es = append(es, x.TextEdit)
				default:
					return nil, fmt.Errorf("it uses an edit kind agentls does not stage (%T)", e)
				}
			}
			if err := add(d.TextDocument.URI, es); err != nil {
				return nil, err
			}
		default:
			return nil, fmt.Errorf("it would also create, rename or delete files, which a rename here does not stage")
		}
	}
	if len(we.DocumentChanges) == 0 {
		for _, u := range slices.SortedFunc(maps.Keys(we.Changes), func(a, b uri.URI) int { return strings.Compare(string(a), string(b)) }) {
			if err := add(u, we.Changes[u]); err != nil {
				return nil, err
			}
		}
	}
	var out []tools.FileChange
	for _, abs := range order {
		before, _, open := c.docText(abs)
		if !open {
			t, exists, err := r.env.Text(abs)
			if err != nil || !exists {
				return nil, fmt.Errorf("cannot read %s: %v", r.env.Display(abs), err)
			}
			before = t
		}
		after, err := applyEdits(before, edits[abs], c.enc)
		if err != nil {
			return nil, fmt.Errorf("%s: %w", r.env.Display(abs), err)
		}
		if after != before {
			out = append(out, tools.FileChange{Path: abs, Before: before, After: after})
		}
	}
	return out, nil
}

// withNotes ends res with the server's error messages (serverNote), if any.
func withNotes(res tools.Result, notes []string) tools.Result {
	for _, n := range notes {
		if n != "" {
			res.Text = strings.TrimRight(res.Text, "\n") + "\n" + n
		}
	}
	return res
}

func appendNote(notes []string, n string) []string {
	if n == "" {
		return notes
	}
	return append(notes, n)
}
