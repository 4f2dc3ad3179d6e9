package tools

import (
	"context"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/agentls/agentls/internal/testpeers"
	"github.com/agentls/agentls/internal/workspace"
)

// The grep tool is measured against ripgrep on $(go env GOROOT)/src, a real
// corpus of ~11k files present on every machine with Go:
//
//	go test ./tools -run TestGrepVsRipgrep -v        # counts + wall-time ratio
//	go test ./tools -run '^$' -bench GrepGoroot      # Go benchmark
//
// Counts must be identical (matching lines). ripgrep is run with the flags
// that make it search what agentls searches: hidden files too, .gitignore
// honoured outside git repositories (the view applies ignore files
// everywhere).

type grepCase struct {
	name, pattern string
	ignoreCase    bool
}

var gorootCases = []grepCase{
	{"absent", "zqxjzqxj", false},
	{"literal", "func main", false},
	{"regex-inner-literal", `func \w+Reader\(`, false},
	{"ignore-case", "deadline exceeded", true},
	{"short-literal", `[0-9]{4}-[0-9]{2}-[0-9]{2}`, false},
	{"no-literal", `[A-Z]{5}[0-9]+`, false},
	{"alternation", `errors\.New|fmt\.Errorf`, false},
	// More patterns without a literal (searched by the lazy DFA), with
	// assertions, Unicode and many matching lines. (ripgrep's \b is
	// Unicode-aware, RE2's is ASCII: the \b pattern is one on which they
	// agree over GOROOT/src.)
	{"no-literal-end", `[ \t]+$`, false},
	{"no-literal-start", `^[A-Z][a-z]+[A-Z]`, false},
	{"no-literal-word", `\b[0-9]+[a-f]+[0-9]+\b`, false},
	{"no-literal-unicode", `\p{Greek}+`, false},
	{"no-literal-blank", `^[ \t]*$`, false},
}

func gorootSrc(tb testing.TB) string {
	out, err := exec.Command("go", "env", "GOROOT").Output()
	if err != nil {
		testpeers.Missing(tb, "go env GOROOT: %v", err)
	}
	dir := filepath.Join(strings.TrimSpace(string(out)), "src")
	if _, err := os.Stat(dir); err != nil {
		testpeers.Missing(tb, "GOROOT/src not available: %v", err)
	}
	return dir
}

func gorootEnv(tb testing.TB) *Env {
	return NewEnv("bench", workspace.New(workspace.Options{Folders: []string{gorootSrc(tb)}}), nil, Policy{AllowSecrets: true})
}

var totalRE = regexp.MustCompile(`\[showing \d+ of (\d+) matching lines`)

// grepCount runs the grep tool and returns the number of matching lines.
func grepCount(tb testing.TB, env *Env, c grepCase) int {
	args, _ := json.Marshal(map[string]any{"pattern": c.pattern, "ignore_case": c.ignoreCase})
	res, err := Grep().Call(context.Background(), env, args)
	if err != nil || res.IsError {
		tb.Fatalf("grep %s: %v %s", c.pattern, err, res.Text)
	}
	if m := totalRE.FindStringSubmatch(res.Text); m != nil {
		n, _ := strconv.Atoi(m[1])
		return n
	}
	if strings.HasPrefix(res.Text, "no matches") {
		return 0
	}
	n := 0
	for _, l := range strings.Split(res.Text, "\n") {
		if l != "" && !strings.HasPrefix(l, "[") {
			n++
		}
	}
	return n
}

// cpuTime is the user+system CPU time this process has used.
func cpuTime() time.Duration {
	var ru syscall.Rusage
	_ = syscall.Getrusage(syscall.RUSAGE_SELF, &ru)
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}

// rgCount runs ripgrep and returns its matching-line count and CPU time.
func rgCount(tb testing.TB, dir string, c grepCase) (int, time.Duration) {
	args := []string{"--no-require-git", "--hidden", "--no-messages", "-c", "--no-config"}
	if c.ignoreCase {
		args = append(args, "-i")
	}
	args = append(args, "-e", c.pattern, dir)
	cmd := exec.Command("rg", args...)
	out, err := cmd.Output()
	cpu := cmd.ProcessState.UserTime() + cmd.ProcessState.SystemTime()
	if err != nil && len(out) == 0 {
		return 0, cpu // exit 1: no matches
	}
	n := 0
	for _, l := range strings.Split(strings.TrimSpace(string(out)), "\n") {
		i := strings.LastIndexByte(l, ':')
		v, _ := strconv.Atoi(l[i+1:])
		n += v
	}
	return n, cpu
}

func TestGrepVsRipgrep(t *testing.T) {
	if testing.Short() || raceEnabled {
		t.Skip("reads all of GOROOT/src several times; a measurement, not for -short or -race")
	}
	testpeers.LookPath(t, "rg", "ripgrep; .ci/run installs it")
	dir := gorootSrc(t)
	env := gorootEnv(t)
	grepCount(t, env, gorootCases[0]) // warm the page cache for both
	rgCount(t, dir, gorootCases[0])
	for _, c := range gorootCases {
		// Best of 3, alternating, so a burst of load from other processes
		// does not decide the ratio. CPU time (user+system) is reported
		// too: it is what a loaded machine cannot distort.
		var want, got int
		inf := time.Duration(1 << 62)
		rgWall, ourWall, rgCPU, ourCPU := inf, inf, inf, inf
		for range 3 {
			t0 := time.Now()
			n, cpu := rgCount(t, dir, c)
			want, rgWall, rgCPU = n, min(rgWall, time.Since(t0)), min(rgCPU, cpu)
			t0, c0 := time.Now(), cpuTime()
			got = grepCount(t, env, c)
			ourWall, ourCPU = min(ourWall, time.Since(t0)), min(ourCPU, cpuTime()-c0)
		}
		t.Logf("%-20s matches %5d (rg %5d)  wall %6v vs rg %6v = %.2fx  cpu %6v vs rg %6v = %.2fx", c.name, got, want,
			ourWall.Round(time.Millisecond), rgWall.Round(time.Millisecond), float64(ourWall)/float64(rgWall),
			ourCPU.Round(time.Millisecond), rgCPU.Round(time.Millisecond), float64(ourCPU)/float64(rgCPU))
		if got != want {
			t.Errorf("%s: %d matching lines, ripgrep finds %d", c.name, got, want)
		}
	}
}

func BenchmarkGrepGoroot(b *testing.B) {
	env := gorootEnv(b)
	for _, c := range gorootCases {
		b.Run(c.name, func(b *testing.B) {
			for b.Loop() {
				grepCount(b, env, c)
			}
		})
	}
}
