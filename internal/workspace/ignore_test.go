package workspace

import (
	"context"
	"io/fs"
	"os/exec"
	"path/filepath"
	"reflect"
	"slices"
	"strings"
	"testing"

	"github.com/agentls/agentls/internal/testpeers"
)

// buildTree creates files (content = path) and the given ignore files.
func buildTree(t *testing.T, root string, files []string, extra map[string]string) {
	t.Helper()
	for _, f := range files {
		writeFile(t, filepath.Join(root, f), f+"\n")
	}
	for f, content := range extra {
		writeFile(t, filepath.Join(root, f), content)
	}
}

// walkFiles lists the regular files Walk yields under root, relative.
func walkFiles(t *testing.T, v *View, root, start string) []string {
	t.Helper()
	var out []string
	err := v.Walk(context.Background(), start, func(p string, d fs.DirEntry) error {
		if d.Type().IsRegular() {
			rel, _ := filepath.Rel(root, p)
			out = append(out, rel)
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return out
}

var semanticsFiles = []string{
	"keep.log", "other.log", "sub/keep.log", "sub/other.log",
	"anchored.txt", "sub/anchored.txt",
	"a/build/f.txt", "b/build", "build/x.go",
	"docs/a.tmp", "docs/sub/a.tmp",
	"cache/important.txt", "cache/junk.txt",
	"x.gen.go", "sub/x.gen.go", "sub/deeper/y.gen.go",
	"sub/local-only.txt", "sub/deeper/local-only.txt",
	"secret-notes.md", "sub/secret-notes.md",
	"excluded-by-info.txt",
	"main.go", "sub/main.go", "weird name.txt", ".hidden/h.txt",
	"nested/a.log", "nested/n.dat", "nested/ok.go",
	"sub/re/dir/file.txt", "sub/re/dir/other.txt",
}

var semanticsIgnores = map[string]string{
	".gitignore": "# comment\n\n*.log\n!keep.log\nbuild/\n/anchored.txt\ndocs/*.tmp\ncache/\n!cache/important.txt\r\n",
	".ignore":    "secret-notes.md\n",
	"sub/.gitignore": "*.gen.go\n/local-only.txt\n" +
		"re/**/file.txt\n",
	".git/info/exclude": "excluded-by-info.txt\n",
	"nested/.git/HEAD":  "ref: refs/heads/main\n",
	"nested/.gitignore": "*.dat\n",
}

var semanticsWant = []string{
	".hidden/h.txt",
	".ignore",
	"b/build", // dir-only pattern does not match a file
	"docs/sub/a.tmp",
	"keep.log",
	"main.go",
	"nested/.gitignore",
	"nested/a.log", // parent repo's rules stop at a nested repository
	"nested/ok.go",
	"sub/.gitignore",
	"sub/anchored.txt", // "/anchored.txt" is anchored to the root
	"sub/deeper/local-only.txt",
	"sub/keep.log",
	"sub/main.go",
	"sub/re/dir/other.txt",
	"weird name.txt",
	"x.gen.go", // sub/.gitignore does not apply above sub
	".gitignore",
}

func TestWalkGitignoreSemantics(t *testing.T) {
	v, root := newTestView(t, Options{})
	buildTree(t, root, semanticsFiles, semanticsIgnores)
	got := walkFiles(t, v, root, ".")
	want := slices.Clone(semanticsWant)
	slices.Sort(want)
	if !slices.IsSorted(got) {
		t.Errorf("walk order not lexical: %v", got)
	}
	slices.Sort(got)
	if !reflect.DeepEqual(got, want) {
		t.Fatalf("walk files:\n got %q\nwant %q", got, want)
	}
	// Ignored agrees, including negation under an excluded directory.
	for p, want := range map[string]bool{
		"other.log": true, "keep.log": false, "cache/important.txt": true, "cache": true,
		"build": true, "b/build": false, "a/build/f.txt": true, "sub/x.gen.go": true,
		"sub/deeper/y.gen.go": true, "x.gen.go": false, "anchored.txt": true,
		"sub/anchored.txt": false, "secret-notes.md": true, "excluded-by-info.txt": true,
		"nested/a.log": false, "nested/n.dat": true, ".git": true, ".git/config": true,
		"sub/re/dir/file.txt": true, "main.go": false, "/not/in/workspace.log": false, ".": false,
	} {
		isDir := p == "cache" || p == "build"
		if got := v.Ignored(p, isDir); got != want {
			t.Errorf("Ignored(%q) = %v, want %v", p, got, want)
		}
	}
	if v.Ignored("b/build", true) != true {
		t.Error("dir-only pattern must match a directory")
	}
	// Walking from a subdirectory applies the rules above it.
	if got := walkFiles(t, v, root, "sub"); !reflect.DeepEqual(got, []string{
		"sub/.gitignore", "sub/anchored.txt", "sub/deeper/local-only.txt", "sub/keep.log", "sub/main.go", "sub/re/dir/other.txt",
	}) {
		t.Fatalf("walk of sub: %q", got)
	}
	// An ignored directory asked for explicitly is walked.
	if got := walkFiles(t, v, root, "cache"); !reflect.DeepEqual(got, []string{"cache/important.txt", "cache/junk.txt"}) {
		t.Fatalf("walk of ignored dir: %q", got)
	}
}

// The same rules through git itself: our walk must list exactly what
// `git ls-files --others --exclude-standard` lists.
func TestWalkMatchesGit(t *testing.T) {
	git := testpeers.LookPath(t, "git", "apt-get install git")
	v, root := newTestView(t, Options{})
	ignores := map[string]string{}
	for k, c := range semanticsIgnores {
		if k != ".ignore" && !strings.HasPrefix(k, "nested/") && k != ".git/info/exclude" {
			ignores[k] = c
		}
	}
	ignores["lib/.gitignore"] = "!*.log\n*.o\n/top-only/\n**/deep/*.x\n"
	files := append(slices.Clone(semanticsFiles),
		"lib/a.log", "lib/a.o", "lib/top-only/f", "lib/x/top-only/f", "lib/deep/k.x", "lib/m/deep/k.x", "lib/m/deep/k.y", "z/deep/k.x")
	files = slices.DeleteFunc(files, func(f string) bool { return strings.HasPrefix(f, "nested/") })
	buildTree(t, root, files, ignores)
	cmd := exec.Command(git, "init", "-q", root)
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("git init: %v %s", err, out)
	}
	writeFile(t, filepath.Join(root, ".git/info/exclude"), "excluded-by-info.txt\n")
	cmd = exec.Command(git, "-c", "core.excludesFile=/dev/null", "ls-files", "--others", "--exclude-standard")
	cmd.Dir = root
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("git ls-files: %v", err)
	}
	wantSet := strings.Split(strings.TrimSpace(string(out)), "\n")
	if len(wantSet) < 20 {
		t.Fatalf("git listed too little to compare: %q", wantSet)
	}
	got := walkFiles(t, v, root, ".")
	slices.Sort(got)
	slices.Sort(wantSet)
	for i := range wantSet {
		wantSet[i] = strings.Trim(wantSet[i], "\"")
	}
	if !reflect.DeepEqual(got, wantSet) {
		t.Fatalf("walk vs git:\n got %q\n git %q", got, wantSet)
	}
}

func TestIgnoredCacheTrustAndValidation(t *testing.T) {
	v, root := newTestView(t, Options{})
	buildTree(t, root, []string{"a.txt", "b.txt"}, map[string]string{".gitignore": "a.txt\n"})
	if !v.Ignored("a.txt", false) || v.Ignored("b.txt", false) {
		t.Fatal("initial rules")
	}
	// Validate-always (default, no watcher): edits to .gitignore are seen at once.
	writeFile(t, filepath.Join(root, ".gitignore"), "b.txt\n")
	if v.Ignored("a.txt", false) || !v.Ignored("b.txt", false) {
		t.Fatal("changed .gitignore not seen in validate-always mode")
	}
	// Healthy watcher: cached rules are trusted until the watcher invalidates.
	v.SetValidateAlways(false)
	writeFile(t, filepath.Join(root, ".gitignore"), "*.txt\n")
	if v.Ignored("a.txt", false) {
		t.Fatal("trusted mode re-read rules without an invalidation")
	}
	v.Invalidate(filepath.Join(root, ".gitignore"))
	if !v.Ignored("a.txt", false) || !v.Ignored("b.txt", false) {
		t.Fatal("rules not refreshed after Invalidate")
	}
	// Walk always validates (it lists directories anyway).
	writeFile(t, filepath.Join(root, ".gitignore"), "")
	if got := walkFiles(t, v, root, "."); !reflect.DeepEqual(got, []string{".gitignore", "a.txt", "b.txt"}) {
		t.Fatalf("walk after emptying .gitignore: %q", got)
	}
	// A .gitignore that appears later (dir created → Invalidate of the dir).
	writeFile(t, filepath.Join(root, "d", "x.txt"), "")
	writeFile(t, filepath.Join(root, "d", ".gitignore"), "x.txt\n")
	if got := walkFiles(t, v, root, "d"); !reflect.DeepEqual(got, []string{"d/.gitignore"}) {
		t.Fatalf("walk of d: %q", got)
	}
	v.Invalidate(filepath.Join(root, "d"))
	if !v.Ignored("d/x.txt", false) {
		t.Fatal("new nested .gitignore not applied")
	}
}

func TestIgnoreFromRepoAboveFolder(t *testing.T) {
	repo := tempRoot(t)
	buildTree(t, repo, []string{"proj/a.log", "proj/a.go", "hidden/x/b.log", "hidden/x/b.go"}, map[string]string{
		".git/HEAD": "x", ".gitignore": "*.log\nhidden/\n",
	})
	v := New(Options{Folders: []string{filepath.Join(repo, "proj")}})
	// The repository's rules apply below a folder inside it.
	if got := walkFiles(t, v, filepath.Join(repo, "proj"), "."); !reflect.DeepEqual(got, []string{"a.go"}) {
		t.Fatalf("walk: %q", got)
	}
	if !v.Ignored("a.log", false) || v.Ignored("a.go", false) {
		t.Fatal("Ignored with rules from above the folder")
	}
	// A folder the repository ignores is still usable: its rules are dropped.
	v = New(Options{Folders: []string{filepath.Join(repo, "hidden/x")}})
	if got := walkFiles(t, v, filepath.Join(repo, "hidden/x"), "."); !reflect.DeepEqual(got, []string{"b.go", "b.log"}) {
		t.Fatalf("walk of ignored folder: %q", got)
	}
	if v.Ignored("b.go", false) {
		t.Fatal("file in an opened-but-ignored folder reported ignored")
	}
}
