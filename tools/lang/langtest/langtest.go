// Package langtest finds the real language servers that tests drive
// (gopls, pyright, typescript-language-server, clangd), where .ci/run
// installs them: gopls in $AGENTLS_GOBIN (default ~/.cache/agentls-ci/bin),
// the npm servers under $AGENTLS_LSP_DIR/node_modules/.bin (default
// ~/.cache/agentls-ci/lsp), clangd from Debian's package on PATH (or
// $AGENTLS_CLANGD). A missing one skips the test, or fails it in CI
// (internal/testpeers).
package langtest

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"testing"

	"github.com/agentls/agentls/internal/testpeers"
)

// Programs of the servers tests use, by built-in entry name.
var programs = map[string]string{
	"gopls":      "gopls",
	"pyright":    "pyright-langserver",
	"typescript": "typescript-language-server",
	"clangd":     "clangd",
}

// Path returns the absolute path of a language server's program
// ("gopls", "pyright-langserver", "typescript-language-server",
// "clangd"), or ends the test through testpeers.Missing.
func Path(tb testing.TB, program string) string {
	tb.Helper()
	home, _ := os.UserHomeDir()
	cache := filepath.Join(home, ".cache", "agentls-ci")
	var p string
	switch program {
	case "clangd":
		// Debian's clangd package (.ci/run installs it with apt) puts it
		// on PATH; AGENTLS_CLANGD names another one.
		if p = os.Getenv("AGENTLS_CLANGD"); p == "" {
			return testpeers.LookPath(tb, "clangd", ".ci/run installs it: apt-get install clangd; or set AGENTLS_CLANGD")
		}
	case "gopls":
		dir := os.Getenv("AGENTLS_GOBIN")
		if dir == "" {
			dir = filepath.Join(cache, "bin")
		}
		p = filepath.Join(dir, "gopls")
	default:
		dir := os.Getenv("AGENTLS_LSP_DIR")
		if dir == "" {
			dir = filepath.Join(cache, "lsp")
		}
		p = filepath.Join(dir, "node_modules", ".bin", program)
	}
	if _, err := os.Stat(p); err != nil {
		testpeers.Missing(tb, "%s is not installed at %s (.ci/run installs it; or set AGENTLS_GOBIN / AGENTLS_LSP_DIR)", program, p)
	}
	return p
}

// LookPath returns a lookPath for lang.Resolve that finds exactly the
// servers named (built-in entry names: "gopls", "pyright", "typescript",
// "clangd")
// where .ci/run installs them, and nothing else, so that whatever else is
// on the machine's PATH (a broken rust-analyzer proxy, say) stays out.
func LookPath(tb testing.TB, servers ...string) func(string) (string, error) {
	tb.Helper()
	found := map[string]string{}
	for _, s := range servers {
		prog, ok := programs[s]
		if !ok {
			tb.Fatalf("langtest: unknown server %q", s)
		}
		found[prog] = Path(tb, prog)
	}
	return func(name string) (string, error) {
		if p, ok := found[name]; ok {
			return p, nil
		}
		return "", errors.New("not found")
	}
}

// GoModule writes a Go module of 50 files into dir for measurements: five
// packages of ten files each (p0 … p4), every file with a type, methods
// and a function that calls into the package before it, and a cache
// package whose Cache and Store types both have a Get method (so a search
// for "Get" by text finds both, and only a language server tells them
// apart). It returns the path of the file benchmarks edit (p2/f5.go).
func GoModule(tb testing.TB, dir string) string {
	tb.Helper()
	write := func(rel, content string) {
		p := filepath.Join(dir, rel)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			tb.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
			tb.Fatal(err)
		}
	}
	write("go.mod", "module example.com/bench\n\ngo 1.22\n")
	write("cache/cache.go", `package cache

// Cache keeps values by key.
type Cache struct{ m map[string]string }

// New returns an empty cache.
func New() *Cache { return &Cache{m: map[string]string{}} }

// Get returns the value of k.
func (c *Cache) Get(k string) string { return c.m[k] }

// Put sets k.
func (c *Cache) Put(k, v string) { c.m[k] = v }

// Store is a slower place for values.
type Store struct{ Cache }

// Get returns the stored value of k.
func (s *Store) Get(k string) string { return s.Cache.Get(k) + "!" }
`)
	for p := range 5 {
		for f := range 10 {
			prev := ""
			call := "0"
			if p > 0 {
				prev = fmt.Sprintf("\t\"example.com/bench/p%d\"\n", p-1)
				call = fmt.Sprintf("p%d.Count%d(n)", p-1, f)
			}
			get := "s.Get(\"k\")"
			if f%2 == 0 {
				get = "c.Get(\"k\")"
			}
			src := fmt.Sprintf(`package p%[1]d

import (
	"strings"

	"example.com/bench/cache"
%[3]s)

// T%[2]d holds a name and a count.
type T%[2]d struct {
	Name  string
	Count int
}

// Upper returns the name in upper case.
func (t T%[2]d) Upper() string { return strings.ToUpper(t.Name) }

// Count%[2]d adds the counts of the package before.
func Count%[2]d(n int) int {
	c, s := cache.New(), &cache.Store{}
	_ = len(%[5]s)
	_ = c
	_ = s
	return n + %[4]s
}
`, p, f, prev, call, get)
			write(fmt.Sprintf("p%d/f%d.go", p, f), src)
		}
	}
	write("main.go", "package main\n\nimport (\n\t\"fmt\"\n\n\t\"example.com/bench/p4\"\n)\n\nfunc main() { fmt.Println(p4.Count0(1)) }\n")
	return filepath.Join(dir, "p2", "f5.go")
}
