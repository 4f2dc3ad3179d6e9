//go:build eval

package complete

import (
	"context"
	"fmt"
	"go/ast"
	"go/parser"
	"go/token"
	"io/fs"
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/agentls/agentls/agent/config"
	"github.com/agentls/agentls/internal/workspace"
)

// The held-out evaluation of completion context (docs/completions.md,
// "Measuring completions"). It is out of default runs: build with -tags eval.
// Cases come from real code: functions of GOROOT/src and of the Python
// standard library, a seeded sample, with one to three lines of a body
// blanked out. Each case is asked with each context source on in turn:
// the windows only, + chunks of sibling files (as if the user had looked
// at them), + declarations of the symbols near the cursor. Without a
// model it reports what each source adds to the prompt and what building
// it costs; with AGENTLS_EVAL_BASEURL and AGENTLS_EVAL_MODEL (an
// OpenAI-compatible /completions endpoint) it also scores the model's
// answers: exact match and edit similarity against the blanked lines.
//
// The declarations here come from a stand-in for the language server's
// hover: a table of the case's package's declarations (go/parser for Go,
// def/class lines for Python), so that the run needs no server over
// GOROOT; what reaches the prompt is the same one-line signature gopls
// and pyright put in a hover's code block.

type evalCase struct {
	lang     string
	path     string
	text     string // with the middle removed
	off      int    // the cursor: where the middle was
	middle   string
	siblings []string
	decls    map[string]string // symbol → declaration (the stand-in's table)
}

type evalSource struct {
	name         string
	chunks, decl bool
}

var evalSources = []evalSource{{"prefix/suffix", false, false}, {"+ other files", true, false}, {"+ declarations", false, true}, {"+ both", true, true}}

func TestEvalCompletionContext(t *testing.T) {
	n := 25
	if v, err := strconv.Atoi(os.Getenv("AGENTLS_EVAL_N")); err == nil && v > 0 {
		n = v
	}
	cases := goCases(t, n)
	cases = append(cases, pyCases(t, n)...)
	base, model := os.Getenv("AGENTLS_EVAL_BASEURL"), os.Getenv("AGENTLS_EVAL_MODEL")
	if model == "" {
		model = "qwen2.5-coder:7b" // its template lays the prompt out
	}
	t.Logf("%d cases (%d per language), model %q at %q", len(cases), n, model, base)
	type stat struct {
		bytes, ctx, decl []int
		withDecl         int
		build            []time.Duration
		exact            int
		sim              float64
		asked            int
	}
	for _, lang := range []string{"go", "python", "all"} {
		stats := make([]stat, len(evalSources))
		for _, c := range cases {
			if lang != "all" && c.lang != lang {
				continue
			}
			for si, src := range evalSources {
				e, s := evalEngine(t, c, src, base, model)
				st := &stats[si]
				began := time.Now()
				var decls []string
				if src.decl {
					decls = tableDecls(e, c)
				}
				p := e.build(s, c.path, c.text[:c.off], c.text[c.off:], decls)
				st.build = append(st.build, time.Since(began))
				st.bytes = append(st.bytes, len(p.Text.Prompt)+len(p.Text.Suffix))
				st.ctx = append(st.ctx, p.Context)
				st.decl = append(st.decl, p.Decls)
				if p.Decls > 0 {
					st.withDecl++
				}
				if base == "" {
					continue
				}
				ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
				got, err := e.ask(ctx, s, Request{Path: c.path, Text: c.text, Offset: c.off}, c.text[:c.off], c.text[c.off:], decls)
				cancel()
				if err != nil {
					t.Logf("%s: %v", c.path, err)
					continue
				}
				st.asked++
				if strings.TrimSpace(got) == strings.TrimSpace(c.middle) {
					st.exact++
				}
				st.sim += similarity(strings.TrimSpace(got), strings.TrimSpace(c.middle))
			}
		}
		for si, src := range evalSources {
			st := stats[si]
			line := fmt.Sprintf("%-7s %-15s prompt p50 %5d B (~%4d tok), context p50 %5d B p95 %5d B, declarations p50 %4d B p95 %4d B (in %d of %d), build p50 %v p95 %v",
				lang, src.name, pct(st.bytes, 50), pct(st.bytes, 50)/bytesPerToken, pct(st.ctx, 50), pct(st.ctx, 95), pct(st.decl, 50), pct(st.decl, 95), st.withDecl, len(st.bytes), pct(st.build, 50), pct(st.build, 95))
			if st.asked > 0 {
				line += fmt.Sprintf(", exact %.1f%%, edit similarity %.3f (%d answers)", 100*float64(st.exact)/float64(st.asked), st.sim/float64(st.asked), st.asked)
			}
			t.Log(line)
		}
	}
}

// evalEngine is an engine over c's directory with src's context on.
func evalEngine(t *testing.T, c evalCase, src evalSource, base, model string) (*Engine, *settings) {
	view := workspace.New(workspace.Options{})
	view.SetFolders([]string{filepath.Dir(c.path)})
	e := New(view, nil)
	cfg := config.Defaults()
	cfg.Model.BaseURL, cfg.Model.Name = "http://127.0.0.1:1/v1", model
	if base != "" {
		cfg.Model.BaseURL = base
	}
	if !src.chunks && !src.decl {
		zero := 0
		cfg.Completion.ContextTokens = &zero
	}
	if err := e.Configure(cfg); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { e.set.client.Close() })
	s := e.set
	s.noChunks = !src.chunks
	view.Open(c.path, 1, c.text)
	if src.chunks {
		for _, p := range c.siblings {
			b, err := os.ReadFile(p)
			if err != nil {
				continue
			}
			view.Open(p, 1, string(b))
			e.notePlace(p, strings.Count(string(b), "\n")/2)
		}
	}
	return e, s
}

// tableDecls is what the declarations cache would hold for c: the
// stand-in's answers for the symbols near the cursor.
func tableDecls(e *Engine, c evalCase) []string {
	syms := symbolsNear(c.text, c.off)
	d := &docState{decls: &declCache{entries: map[string]declEntry{}}}
	for _, s := range syms {
		name := s.key[strings.LastIndexByte(s.key, '.')+1:]
		d.decls.entries[s.key] = declEntry{text: c.decls[name], at: time.Now()}
	}
	return e.cachedDecls(d, syms)
}

// goCases picks n functions of GOROOT/src with a seeded generator.
func goCases(t *testing.T, n int) []evalCase {
	var files []string
	goroot, err := exec.Command("go", "env", "GOROOT").Output()
	if err != nil {
		t.Fatalf("go env GOROOT: %v", err)
	}
	root := filepath.Join(strings.TrimSpace(string(goroot)), "src")
	_ = filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return nil
		}
		if d.IsDir() && (d.Name() == "testdata" || d.Name() == "vendor" || d.Name() == "cmd") {
			return filepath.SkipDir
		}
		if strings.HasSuffix(p, ".go") && !strings.HasSuffix(p, "_test.go") {
			files = append(files, p)
		}
		return nil
	})
	slices.Sort(files)
	rng := rand.New(rand.NewPCG(29, 1))
	var out []evalCase
	for tries := 0; len(out) < n && tries < 50*n; tries++ {
		p := files[rng.IntN(len(files))]
		b, err := os.ReadFile(p)
		if err != nil {
			continue
		}
		fset := token.NewFileSet()
		f, err := parser.ParseFile(fset, p, b, parser.SkipObjectResolution)
		if err != nil {
			continue
		}
		var bodies []*ast.BlockStmt
		for _, d := range f.Decls {
			if fd, ok := d.(*ast.FuncDecl); ok && fd.Body != nil && fset.Position(fd.Body.Rbrace).Line-fset.Position(fd.Body.Lbrace).Line >= 6 {
				bodies = append(bodies, fd.Body)
			}
		}
		if len(bodies) == 0 {
			continue
		}
		body := bodies[rng.IntN(len(bodies))]
		from, to := fset.Position(body.Lbrace).Line+1, fset.Position(body.Rbrace).Line-1
		c, ok := blank(string(b), from, to, rng)
		if !ok {
			continue
		}
		c.lang, c.path = "go", p
		c.siblings = siblings(p, ".go", rng)
		c.decls = goDecls(filepath.Dir(p))
		out = append(out, c)
	}
	return out
}

// blank removes one to three lines between lines from and to (1-based):
// the cursor goes after the first one's indentation.
func blank(text string, from, to int, rng *rand.Rand) (evalCase, bool) {
	lines := strings.SplitAfter(text, "\n")
	if to < from || to > len(lines) {
		return evalCase{}, false
	}
	first := from + rng.IntN(to-from+1) - 1 // 0-based
	k := 1 + rng.IntN(3)
	last := min(first+k, to) // exclusive, 0-based
	mid := strings.Join(lines[first:last], "")
	if strings.TrimSpace(mid) == "" || strings.HasPrefix(strings.TrimSpace(mid), "//") || strings.HasPrefix(strings.TrimSpace(mid), "#") {
		return evalCase{}, false
	}
	indent := len(lines[first]) - len(strings.TrimLeft(lines[first], " \t"))
	before := strings.Join(lines[:first], "") + lines[first][:indent]
	after := "\n" + strings.Join(lines[last:], "")
	return evalCase{text: before + after, off: len(before), middle: strings.TrimSuffix(mid[indent:], "\n")}, true
}

// siblings are up to three other files of p's directory.
func siblings(p, ext string, rng *rand.Rand) []string {
	ents, _ := os.ReadDir(filepath.Dir(p))
	var all []string
	for _, e := range ents {
		q := filepath.Join(filepath.Dir(p), e.Name())
		if !e.IsDir() && q != p && strings.HasSuffix(q, ext) && !strings.HasSuffix(q, "_test.go") {
			all = append(all, q)
		}
	}
	rng.Shuffle(len(all), func(i, j int) { all[i], all[j] = all[j], all[i] })
	return all[:min(3, len(all))]
}

var goDeclCache = map[string]map[string]string{}

// goDecls is the stand-in hover of a Go package: each top-level func,
// method and type's declaration line, as gopls shows it.
func goDecls(dir string) map[string]string {
	if m, ok := goDeclCache[dir]; ok {
		return m
	}
	m := map[string]string{}
	ents, _ := os.ReadDir(dir)
	for _, e := range ents {
		if !strings.HasSuffix(e.Name(), ".go") || strings.HasSuffix(e.Name(), "_test.go") {
			continue
		}
		b, err := os.ReadFile(filepath.Join(dir, e.Name()))
		if err != nil {
			continue
		}
		fset := token.NewFileSet()
		f, err := parser.ParseFile(fset, e.Name(), b, parser.SkipObjectResolution)
		if err != nil {
			continue
		}
		for _, d := range f.Decls {
			switch d := d.(type) {
			case *ast.FuncDecl:
				end := d.Type.End()
				line := string(b[fset.Position(d.Pos()).Offset:fset.Position(end).Offset])
				m[d.Name.Name] = strings.Join(strings.Fields(line), " ")
			case *ast.GenDecl:
				for _, s := range d.Specs {
					if ts, ok := s.(*ast.TypeSpec); ok {
						kind := "type " + ts.Name.Name
						switch ts.Type.(type) {
						case *ast.StructType:
							kind = "type " + ts.Name.Name + " struct"
						case *ast.InterfaceType:
							kind = "type " + ts.Name.Name + " interface"
						}
						m[ts.Name.Name] = kind
					}
				}
			}
		}
	}
	goDeclCache[dir] = m
	return m
}

var pyDef = regexp.MustCompile(`(?m)^[ \t]*((?:async )?def ([A-Za-z_]\w*)\([^)]*\)[^:]*|class ([A-Za-z_]\w*)[^:]*):`)

// pyCases picks n function bodies of the Python standard library.
func pyCases(t *testing.T, n int) []evalCase {
	dirs, _ := filepath.Glob("/usr/lib/python3*")
	var files []string
	for _, d := range dirs {
		fs, _ := filepath.Glob(filepath.Join(d, "*.py"))
		files = append(files, fs...)
	}
	if len(files) == 0 {
		t.Log("no Python standard library under /usr/lib/python3*: Go cases only")
		return nil
	}
	slices.Sort(files)
	rng := rand.New(rand.NewPCG(29, 2))
	var out []evalCase
	for tries := 0; len(out) < n && tries < 50*n; tries++ {
		p := files[rng.IntN(len(files))]
		b, err := os.ReadFile(p)
		if err != nil {
			continue
		}
		text := string(b)
		defs := pyDef.FindAllStringSubmatchIndex(text, -1)
		if len(defs) == 0 {
			continue
		}
		d := defs[rng.IntN(len(defs))]
		if text[d[2]:d[2]+5] == "class" {
			continue
		}
		start := lineOf(text, d[1]) + 2 // 1-based: the line after the def's
		lines := strings.Split(text, "\n")
		defIndent := len(lines[start-2]) - len(strings.TrimLeft(lines[start-2], " "))
		end := start
		for end < len(lines) && (strings.TrimSpace(lines[end]) == "" || len(lines[end])-len(strings.TrimLeft(lines[end], " ")) > defIndent) {
			end++
		}
		if end-start < 5 {
			continue
		}
		c, ok := blank(text, start+1, end-1, rng) // not the docstring's line
		if !ok || strings.Contains(c.middle, `"""`) {
			continue
		}
		c.lang, c.path = "python", p
		c.siblings = siblings(p, ".py", rng)
		c.decls = map[string]string{}
		for _, m := range pyDef.FindAllStringSubmatch(text, -1) {
			name := m[2] + m[3]
			c.decls[name] = strings.Join(strings.Fields(m[1]), " ")
		}
		out = append(out, c)
	}
	return out
}

// similarity is 1 - Levenshtein(a, b) / max(len), over runes.
func similarity(a, b string) float64 {
	ra, rb := []rune(a), []rune(b)
	if len(ra) == 0 && len(rb) == 0 {
		return 1
	}
	prev := make([]int, len(rb)+1)
	cur := make([]int, len(rb)+1)
	for j := range prev {
		prev[j] = j
	}
	for i := 1; i <= len(ra); i++ {
		cur[0] = i
		for j := 1; j <= len(rb); j++ {
			cost := 1
			if ra[i-1] == rb[j-1] {
				cost = 0
			}
			cur[j] = min(prev[j]+1, cur[j-1]+1, prev[j-1]+cost)
		}
		prev, cur = cur, prev
	}
	return 1 - float64(prev[len(rb)])/float64(max(len(ra), len(rb)))
}

func pct[T int | time.Duration](xs []T, p int) T {
	if len(xs) == 0 {
		return 0
	}
	s := slices.Clone(xs)
	slices.Sort(s)
	return s[min(len(s)-1, len(s)*p/100)]
}

func TestSimilarity(t *testing.T) {
	if s := similarity("kitten", "sitting"); s < 0.57 || s > 0.58 {
		t.Fatalf("similarity = %v, want 1-3/7", s)
	}
	if similarity("", "") != 1 || similarity("a", "") != 0 {
		t.Fatal("edge cases")
	}
}
