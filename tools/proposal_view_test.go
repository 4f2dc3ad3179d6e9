package tools

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/agentls/agentls/internal/overlay"
	scratchcopy "github.com/agentls/agentls/internal/scratch"
	"github.com/agentls/agentls/internal/testtree"
)

// viewEnv is a run over a small project whose proposal view goes to a
// temporary base directory; run_command is allowed.
func viewEnv(t *testing.T, files map[string]string) (*Env, string, string) {
	t.Helper()
	root := newWorkspace(t, files)
	env := newEnv(t, root, Policy{RunCommand: "ask"})
	env.Approver = &fakeApprover{decision: AllowAlways}
	base := t.TempDir()
	env.Proposal.BaseDir = base
	t.Cleanup(func() { env.Proposal.Close() })
	return env, root, base
}

func run(t *testing.T, env *Env, cmd string) Result {
	t.Helper()
	res, err := runCmd(t, context.Background(), env, map[string]any{"command": cmd})
	if err != nil {
		t.Fatal(err)
	}
	return res
}

// run_command sees the run's staged text, unsaved buffers and later
// stages, while the user's files stay byte for byte what they were: in an
// overlay view (at the workspace's own path) where the kernel allows one,
// and in a copy (under the view directory) when overlays are off.
func TestRunCommandSeesTheProposal(t *testing.T) {
	t.Run(ViewOverlay, func(t *testing.T) {
		if err := overlay.Supported(); err != nil {
			t.Fatalf("this machine cannot mount an overlay view, which CI must prove works: %v", err)
		}
		testRunCommandSeesTheProposal(t, ViewOverlay)
	})
	t.Run(ViewCopy, func(t *testing.T) {
		t.Setenv(overlay.EnvMode, "copy")
		testRunCommandSeesTheProposal(t, ViewCopy)
	})
}

func testRunCommandSeesTheProposal(t *testing.T, kind string) {
	env, root, base := viewEnv(t, map[string]string{
		"calc.py":     "def add(a, b):\n    return a - b\n",
		"notes.txt":   "disk notes\n",
		"pkg/util.py": "X = 1\n",
	})
	before := testtree.Take(t, root)

	// Nothing staged: the command runs in the workspace itself.
	res := run(t, env, "pwd; cat calc.py")
	if got := mustOK(t, res); !strings.HasPrefix(got, root+"\n") || !strings.Contains(got, "ran in the workspace folder") || env.Proposal.Made() {
		t.Fatalf("unstaged run: %q", got)
	}

	mustOK(t, call(t, env, "read_file", map[string]any{"path": "calc.py"}))
	mustOK(t, call(t, env, "edit_file", map[string]any{"path": "calc.py", "old_string": "a - b", "new_string": "a + b"}))
	env.View.Open(filepath.Join(root, "notes.txt"), 3, "unsaved buffer notes\n")
	res = run(t, env, "pwd; cat calc.py notes.txt; ls")
	got := mustOK(t, res)
	if !strings.Contains(got, "return a + b") || !strings.Contains(got, "unsaved buffer notes") || !strings.Contains(got, "ran in the proposal view") {
		t.Fatalf("in the view: %q", got)
	}
	wantDir, wantWhere := base+"/", "a copy of the workspace"
	if kind == ViewOverlay {
		wantDir, wantWhere = root+"\n", "an overlay view of the workspace"
	}
	if !strings.HasPrefix(got, wantDir) || !strings.Contains(res.Summary, "proposal view") || !strings.Contains(got, wantWhere) || env.Proposal.Kind() != kind {
		t.Fatalf("ran in %q (summary %q, kind %q), want %s in %s", got, res.Summary, env.Proposal.Kind(), wantWhere, wantDir)
	}

	// Incremental: a new file staged, the buffer edited again.
	mustOK(t, call(t, env, "write_file", map[string]any{"path": "pkg/new.py", "content": "Y = 2\n"}))
	env.View.Open(filepath.Join(root, "notes.txt"), 4, "edited again\n")
	got = mustOK(t, run(t, env, "cat pkg/new.py notes.txt calc.py"))
	if !strings.HasPrefix(got, "Y = 2\nedited again\ndef add(a, b):\n    return a + b\n") {
		t.Fatalf("after more staging: %q", got)
	}

	// A command that destroys the copy harms nothing; the next one sees
	// the whole proposal again.
	got = mustOK(t, run(t, env, "rm -rf ./* && echo > calc.py && ls -A"))
	if strings.Contains(got, "notes.txt") {
		t.Fatalf("rm did not run: %q", got)
	}
	testtree.Same(t, before, root)
	got = mustOK(t, run(t, env, "cat calc.py pkg/util.py pkg/new.py"))
	if !strings.HasPrefix(got, "def add(a, b):\n    return a + b\nX = 1\nY = 2\n") {
		t.Fatalf("after repair: %q", got)
	}

	// The user rejects the edit of calc.py: the view shows the disk again.
	env.Changes.Discard(filepath.Join(root, "calc.py"))
	got = mustOK(t, run(t, env, "cat calc.py"))
	if !strings.HasPrefix(got, "def add(a, b):\n    return a - b\n") {
		t.Fatalf("after discard: %q", got)
	}
	// The disk changes under the run (the watcher tells the view).
	writeFileT(t, filepath.Join(root, "pkg/util.py"), "X = 42\n")
	env.View.Invalidate(filepath.Join(root, "pkg/util.py"))
	got = mustOK(t, run(t, env, "cat pkg/util.py"))
	if !strings.HasPrefix(got, "X = 42\n") {
		t.Fatalf("after a disk change: %q", got)
	}
	os.WriteFile(filepath.Join(root, "pkg/util.py"), []byte("X = 1\n"), 0o644)

	if err := env.Proposal.Close(); err != nil {
		t.Fatal(err)
	}
	scratchcopy.WaitRemovals() // both kinds are deleted in the background
	if entries, _ := os.ReadDir(base); len(entries) != 0 {
		t.Fatalf("the proposal view was left behind: %v", entries)
	}
	res = run(t, env, "true")
	mustErr(t, res, "run is over", "not run")
}

// A view that cannot be made: the command is not run on the old files,
// and the model is told why.
func TestRunCommandWithoutAView(t *testing.T) {
	env, root, _ := viewEnv(t, map[string]string{"a.txt": "old\n"})
	blocker := filepath.Join(t.TempDir(), "file")
	os.WriteFile(blocker, nil, 0o644)
	env.Proposal.BaseDir = filepath.Join(blocker, "views")
	before := testtree.Take(t, root)
	mustOK(t, call(t, env, "read_file", map[string]any{"path": "a.txt"}))
	mustOK(t, call(t, env, "edit_file", map[string]any{"path": "a.txt", "old_string": "old", "new_string": "new"}))
	res := run(t, env, "echo ran > ran.txt")
	mustErr(t, res, "could not be made", "not a directory", "the command was not run")
	testtree.Same(t, before, root)
}

// Prewarm makes the copy in the background; Close stops it and waits, so
// nothing is left behind even when the run ends mid-copy.
func TestProposalViewPrewarm(t *testing.T) {
	t.Setenv(overlay.EnvMode, "copy")
	files := map[string]string{}
	for i := range 300 {
		files[filepath.Join("pkg", string(rune('a'+i%26)), strings.Repeat("f", 1+i%7)+".txt")] = strings.Repeat("x", i)
	}
	env, _, base := viewEnv(t, files)
	mustOK(t, call(t, env, "write_file", map[string]any{"path": "new.txt", "content": "staged\n"}))
	env.Proposal.Prewarm(context.Background())
	env.Proposal.Prewarm(context.Background()) // once is enough
	got := mustOK(t, run(t, env, "cat new.txt"))
	if !strings.HasPrefix(got, "staged\n") || !env.Proposal.Made() {
		t.Fatalf("after prewarm: %q", got)
	}
	env.Proposal.Close()
	scratchcopy.WaitRemovals()
	if entries, _ := os.ReadDir(base); len(entries) != 0 {
		t.Fatalf("left behind: %v", entries)
	}

	// Closed while the copy is being made.
	env2, _, base2 := viewEnv(t, files)
	mustOK(t, call(t, env2, "write_file", map[string]any{"path": "new.txt", "content": "staged\n"}))
	env2.Proposal.Prewarm(context.Background())
	if err := env2.Proposal.Close(); err != nil {
		t.Fatal(err)
	}
	scratchcopy.WaitRemovals()
	if entries, _ := os.ReadDir(base2); len(entries) != 0 {
		t.Fatalf("left behind after a close mid-copy: %v", entries)
	}
	mustErr(t, run(t, env2, "true"), "run is over")
}
