package lang

import (
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/agentls/agentls/tools/lang/langtest"
)

// BenchmarkWarmCheckGopls measures what a language server adds to an edit
// on a 52-file module with gopls warm: the edit_file call from staging to
// its problems line, alternating an edit that introduces an undefined name
// (gopls answers with the type error) and one that removes it (gopls also
// runs its analyzers, which it skips while there are type errors). It
// reports p50 and p99 of each kind, and the RSS of gopls (with its
// children) and of this process.
//
//	go test ./tools/lang -run '^$' -bench WarmCheckGopls -benchtime 200x
func BenchmarkWarmCheckGopls(b *testing.B) {
	root := b.TempDir()
	file := langtest.GoModule(b, root)
	s := realSetup(b, root, "gopls")
	rel, _ := filepath.Rel(root, file)
	s.mustCall(b, "read_file", fmtArgs("path", rel))
	// Warm up: the first edits load the module and type-check it.
	for range 3 {
		breakIt(b, s, rel)
		fixIt(b, s, rel)
	}
	var broke, fixed []time.Duration
	b.ResetTimer()
	for i := range b.N {
		start := time.Now()
		if i%2 == 0 {
			breakIt(b, s, rel)
			broke = append(broke, time.Since(start))
		} else {
			fixIt(b, s, rel)
			fixed = append(fixed, time.Since(start))
		}
	}
	b.StopTimer()
	if i := b.N; i%2 == 1 {
		fixIt(b, s, rel)
	}
	report(b, "introduce", broke)
	report(b, "fix", fixed)
	var pids []int
	for _, p := range s.m.Running() {
		pids = append(pids, p.Pid)
	}
	b.ReportMetric(float64(treeRSS(pids))/1024, "gopls-MB")
	b.ReportMetric(float64(rss(os.Getpid()))/1024, "self-MB")
}

// BenchmarkColdCheckGopls measures the first edit of a run in the 52-file
// module with no gopls running: start, initialize, loading the module and
// the first two answers (before and after the change). The Go build cache
// is warm (as on a developer's machine).
//
//	go test ./tools/lang -run '^$' -bench ColdCheckGopls -benchtime 5x
func BenchmarkColdCheckGopls(b *testing.B) {
	root := b.TempDir()
	file := langtest.GoModule(b, root)
	rel, _ := filepath.Rel(root, file)
	var took []time.Duration
	for range b.N {
		b.StopTimer()
		s := realSetup(b, root, "gopls")
		s.mustCall(b, "read_file", fmtArgs("path", rel))
		b.StartTimer()
		start := time.Now()
		breakIt(b, s, rel)
		took = append(took, time.Since(start))
		b.StopTimer()
		s.m.Close()
		b.StartTimer()
	}
	report(b, "cold", took)
}

func breakIt(b *testing.B, s *setup, rel string) {
	res := s.mustCall(b, "edit_file", fmtArgs("path", rel, "old_string", "return n + p1.Count5(n)", "new_string", "return n + p1.Count5(undefinedThing)"))
	if !strings.HasSuffix(res.Text, "undefined: undefinedThing") {
		b.Fatalf("edit result:\n%s", res.Text)
	}
}

func fixIt(b *testing.B, s *setup, rel string) {
	res := s.mustCall(b, "edit_file", fmtArgs("path", rel, "old_string", "return n + p1.Count5(undefinedThing)", "new_string", "return n + p1.Count5(n)"))
	if !strings.HasSuffix(res.Text, "no new problems") {
		b.Fatalf("edit result:\n%s", res.Text)
	}
}

// report adds p50 and p99 (ms) of ds as metrics named what-p50-ms, …
func report(b *testing.B, what string, ds []time.Duration) {
	if len(ds) == 0 {
		return
	}
	slices.Sort(ds)
	q := func(p float64) float64 {
		return float64(ds[min(len(ds)-1, int(p*float64(len(ds))))].Microseconds()) / 1000
	}
	b.ReportMetric(q(0.50), what+"-p50-ms")
	b.ReportMetric(q(0.99), what+"-p99-ms")
}

// rss is a process's VmRSS in KiB (0 when it is gone).
func rss(pid int) int {
	b, err := os.ReadFile(filepath.Join("/proc", strconv.Itoa(pid), "status"))
	if err != nil {
		return 0
	}
	for _, l := range strings.Split(string(b), "\n") {
		if f := strings.Fields(l); len(f) >= 2 && f[0] == "VmRSS:" {
			n, _ := strconv.Atoi(f[1])
			return n
		}
	}
	return 0
}

// treeRSS sums the RSS of pids and all their descendants (gopls starts a
// telemetry child; tsserver several).
func treeRSS(pids []int) int {
	children := map[int][]int{}
	ents, _ := os.ReadDir("/proc")
	for _, e := range ents {
		pid, err := strconv.Atoi(e.Name())
		if err != nil {
			continue
		}
		st, err := os.ReadFile(filepath.Join("/proc", e.Name(), "stat"))
		if err != nil {
			continue
		}
		s := string(st)
		f := strings.Fields(s[strings.LastIndexByte(s, ')')+1:])
		if len(f) > 1 {
			ppid, _ := strconv.Atoi(f[1])
			children[ppid] = append(children[ppid], pid)
		}
	}
	total := 0
	seen := map[int]bool{}
	var walk func(int)
	walk = func(p int) {
		if seen[p] {
			return
		}
		seen[p] = true
		total += rss(p)
		for _, c := range children[p] {
			walk(c)
		}
	}
	for _, p := range pids {
		walk(p)
	}
	return total
}

// BenchmarkWarmCheckPyright and BenchmarkWarmCheckTypeScript measure the
// same warm edit-to-verdict time with pyright (pull diagnostics) and
// typescript-language-server (tsserver's diagnostics requests), on the
// two-file projects of the tests.
//
//	go test ./tools/lang -run '^$' -bench 'WarmCheck(Pyright|TypeScript)' -benchtime 100x
func BenchmarkWarmCheckPyright(b *testing.B) {
	warmSmall(b, "pyright", pyProject, "main.py", "add(1, 2)", "add(1, undefined_thing)", `"undefined_thing" is not defined`)
}

func BenchmarkWarmCheckTypeScript(b *testing.B) {
	warmSmall(b, "typescript", tsProject, "main.ts", "add(1, 2)", "add(1, undefinedThing)", "Cannot find name 'undefinedThing'.")
}

// BenchmarkWarmCheckClangd: the same with clangd on the C project of
// TestClangdC (one file, main.c, changed); BenchmarkWarmCheckClangdHeader
// changes util.h's signature instead, so that clangd also rebuilds the two
// files including it (a didSave of the header, then their answers).
//
//	go test ./tools/lang -run '^$' -bench 'WarmCheckClangd' -benchtime 100x
func BenchmarkWarmCheckClangd(b *testing.B) {
	warmSmall(b, "clangd", cProject, "main.c", "add(1, 2)", "add(1, undefinedThing)", "Use of undeclared identifier 'undefinedThing'")
}

func BenchmarkWarmCheckClangdHeader(b *testing.B) {
	warmSmall(b, "clangd", cProject, "include/util.h", "int add(int a, int b);", "int add(int a, int b, int c);",
		"main.c:4: Too few arguments to function call, expected 3, have 2\nutil.c:3: Conflicting types for 'add'", "main.c", "util.c")
}

// warmSmall alternates an edit of path from good to bad (the result ends
// with want) and back; the run has read path and the files in also.
func warmSmall(b *testing.B, server string, files map[string]string, path, good, bad, want string, also ...string) {
	root := workspaceOf(b, files)
	s := realSetup(b, root, server)
	for _, p := range append([]string{path}, also...) {
		s.mustCall(b, "read_file", fmtArgs("path", p))
	}
	edit := func(from, to, suffix string) {
		res := s.mustCall(b, "edit_file", fmtArgs("path", path, "old_string", from, "new_string", to))
		if !strings.HasSuffix(res.Text, suffix) {
			b.Fatalf("edit result:\n%s", res.Text)
		}
	}
	for range 3 {
		edit(good, bad, want)
		edit(bad, good, "no new problems")
	}
	var broke, fixed []time.Duration
	b.ResetTimer()
	for i := range b.N {
		start := time.Now()
		if i%2 == 0 {
			edit(good, bad, want)
			broke = append(broke, time.Since(start))
		} else {
			edit(bad, good, "no new problems")
			fixed = append(fixed, time.Since(start))
		}
	}
	b.StopTimer()
	report(b, "introduce", broke)
	report(b, "fix", fixed)
	var pids []int
	for _, p := range s.m.Running() {
		pids = append(pids, p.Pid)
	}
	b.ReportMetric(float64(treeRSS(pids))/1024, "server-MB")
}
