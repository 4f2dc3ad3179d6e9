package skills

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
)

func write(t *testing.T, path, content string) {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, []byte(content), 0o644); err != nil {
		t.Fatal(err)
	}
}

func TestFrontMatterProblemsAreWarningsNamingTheFile(t *testing.T) {
	ws := t.TempDir()
	dir := filepath.Join(ws, ".agentls", "skills")
	cases := map[string]string{
		"good":       "---\r\nname: good\r\ndescription: >\r\n  Folded\r\n  description.\r\n---\r\nBODY\r\n",
		"nofm":       "# just markdown\n",
		"unclosed":   "---\nname: unclosed\ndescription: x\n",
		"badyaml":    "---\nname: [unclosed\n---\n",
		"mismatch":   "---\nname: other\ndescription: x\n---\n",
		"Upper":      "---\nname: Upper\ndescription: x\n---\n",
		"nodesc":     "---\nname: nodesc\n---\n",
		"longdesc":   "---\nname: longdesc\ndescription: " + strings.Repeat("x", MaxDescriptionLen+1) + "\n---\n",
		"extra-keys": "---\nname: extra-keys\ndescription: ok\nlicense: MIT\nallowed-tools: [read_file]\n---\nB\n",
	}
	for name, body := range cases {
		write(t, filepath.Join(dir, name, "SKILL.md"), body)
	}
	if err := os.MkdirAll(filepath.Join(dir, "fifo"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := syscall.Mkfifo(filepath.Join(dir, "fifo", "SKILL.md"), 0o644); err != nil {
		t.Fatal(err)
	}
	s := Discover("", []string{ws})
	var names []string
	for _, sk := range s.All() {
		names = append(names, sk.Name)
	}
	if strings.Join(names, ",") != "extra-keys,good" {
		t.Fatalf("skills = %v, warnings:\n%s", names, strings.Join(s.Warnings, "\n"))
	}
	if got := s.All()[1].Description; got != "Folded description." {
		t.Fatalf("description = %q", got)
	}
	warn := strings.Join(s.Warnings, "\n")
	for _, want := range []string{
		filepath.Join(dir, "nofm", "SKILL.md") + ": no YAML front matter",
		filepath.Join(dir, "unclosed", "SKILL.md") + ": front matter is not closed",
		filepath.Join(dir, "badyaml", "SKILL.md") + ": bad front matter",
		filepath.Join(dir, "mismatch", "SKILL.md") + `: name "other" does not match its folder "mismatch"`,
		filepath.Join(dir, "Upper", "SKILL.md") + `: name "Upper" must be lowercase`,
		filepath.Join(dir, "nodesc", "SKILL.md") + ": front matter has no description",
		filepath.Join(dir, "longdesc", "SKILL.md") + ": description is 1025 characters",
		"not a regular file: it is a named pipe (FIFO)",
	} {
		if !strings.Contains(warn, want) {
			t.Errorf("warnings lack %q:\n%s", want, warn)
		}
	}
	_, body, err := s.Load("good")
	if err != nil || !strings.Contains(body, "BODY") {
		t.Fatalf("Load = %q, %v", body, err)
	}
}

func TestListingIsBounded(t *testing.T) {
	user := t.TempDir()
	for i := range MaxSkills + 5 {
		name := fmt.Sprintf("skill-%03d", i)
		write(t, filepath.Join(user, name, "SKILL.md"), fmt.Sprintf("---\nname: %s\ndescription: %s\n---\n", name, strings.Repeat("word ", 150)))
	}
	s := Discover(user, nil)
	if s.Len() != MaxSkills || !strings.Contains(strings.Join(s.Warnings, "\n"), "more than 64 skills") {
		t.Fatalf("%d skills, warnings %v", s.Len(), s.Warnings)
	}
	l := s.Listing()
	if len(l) > maxListingBytes+200 || !strings.Contains(l, "more skills not listed") {
		t.Fatalf("listing is %d bytes:\n%s", len(l), l)
	}
}

func TestReadFileStaysInsideTheSkillFolder(t *testing.T) {
	user := t.TempDir()
	write(t, filepath.Join(user, "s", "SKILL.md"), "---\nname: s\ndescription: d\n---\n")
	write(t, filepath.Join(user, "s", "ref.md"), "REF")
	write(t, filepath.Join(user, "outside.txt"), "OUT")
	if err := os.Symlink(filepath.Join(user, "outside.txt"), filepath.Join(user, "s", "link.md")); err != nil {
		t.Fatal(err)
	}
	s := Discover(user, nil)
	sk, ok := s.Contains(filepath.Join(s.All()[0].Dir, "ref.md"))
	if !ok {
		t.Fatal("ref.md not in the skill")
	}
	if got, err := ReadFile(sk, filepath.Join(sk.Dir, "ref.md")); err != nil || got != "REF" {
		t.Fatalf("ReadFile = %q, %v", got, err)
	}
	if got, err := ReadFile(sk, filepath.Join(sk.Dir, "link.md")); err == nil || !strings.Contains(err.Error(), "leaves the folder of skill s") {
		t.Fatalf("symlink out of the folder read: %q, %v", got, err)
	}
	if _, ok := s.Contains(filepath.Join(user, "outside.txt")); ok {
		t.Fatal("a file outside every skill folder counted as inside")
	}
}

// N2: a workspace skill folder, or its SKILL.md, symlinked outside the
// workspace is not followed: neither its body nor its file list reaches the
// model. A symlink that stays inside the workspace still works, and the
// user's own skills may live anywhere.
func TestWorkspaceSkillsSymlinkedOutsideAreRefused(t *testing.T) {
	ws, outside, user := t.TempDir(), t.TempDir(), t.TempDir()
	skillsDir := filepath.Join(ws, ".agentls", "skills")
	write(t, filepath.Join(outside, "evil", "SKILL.md"), "---\nname: evil\ndescription: d\n---\nOUTSIDE-BODY\n")
	write(t, filepath.Join(outside, "evil", "notes.txt"), "outside notes")
	write(t, filepath.Join(outside, "md.md"), "---\nname: md\ndescription: d\n---\nOUTSIDE-MD\n")
	write(t, filepath.Join(ws, "shared", "inner", "SKILL.md"), "---\nname: inner\ndescription: d\n---\nINNER-BODY\n")
	write(t, filepath.Join(ws, "shared", "inner", "ref.txt"), "r")
	write(t, filepath.Join(user, "mine", "SKILL.md"), "---\nname: mine\ndescription: d\n---\nMINE\n")
	if err := os.MkdirAll(filepath.Join(skillsDir, "md"), 0o755); err != nil {
		t.Fatal(err)
	}
	for link, target := range map[string]string{
		filepath.Join(skillsDir, "evil"):            filepath.Join(outside, "evil"),
		filepath.Join(skillsDir, "md", "SKILL.md"):  filepath.Join(outside, "md.md"),
		filepath.Join(skillsDir, "inner"):           filepath.Join(ws, "shared", "inner"),
		filepath.Join(user, "mine", "outside-link"): filepath.Join(outside, "evil", "notes.txt"),
	} {
		if err := os.Symlink(target, link); err != nil {
			t.Fatal(err)
		}
	}
	s := Discover(user, []string{ws})
	var names []string
	for _, sk := range s.All() {
		names = append(names, sk.Name)
	}
	if strings.Join(names, ",") != "inner,mine" {
		t.Fatalf("skills = %v, warnings:\n%s", names, strings.Join(s.Warnings, "\n"))
	}
	warn := strings.Join(s.Warnings, "\n")
	for _, want := range []string{
		filepath.Join(skillsDir, "evil", "SKILL.md") + ": the skill folder is a symlink leading outside the workspace",
		filepath.Join(skillsDir, "md", "SKILL.md") + ": path is outside the workspace",
		"leads outside the workspace (to " + filepath.Join(outside, "md.md"),
	} {
		if !strings.Contains(warn, want) {
			t.Errorf("warnings lack %q:\n%s", want, warn)
		}
	}
	if _, _, err := s.Load("evil"); err == nil {
		t.Fatal("the outside skill loads")
	}
	_, body, err := s.Load("inner")
	if err != nil || !strings.Contains(body, "INNER-BODY") || !strings.Contains(body, "ref.txt") {
		t.Fatalf("inner skill: %q, %v", body, err)
	}
	_, body, err = s.Load("mine")
	if err != nil || !strings.Contains(body, "MINE") || strings.Contains(body, "outside-link") {
		t.Fatalf("user skill: %q, %v (a symlink is not listed)", body, err)
	}

	// A skill swapped for a symlink after discovery is refused on Load.
	if err := os.Rename(filepath.Join(ws, "shared", "inner"), filepath.Join(ws, "shared", "inner.old")); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(filepath.Join(outside, "evil"), filepath.Join(ws, "shared", "inner")); err != nil {
		t.Fatal(err)
	}
	write(t, filepath.Join(outside, "evil", "SKILL.md"), "---\nname: inner\ndescription: d\n---\nOUTSIDE-BODY\n")
	if _, body, err := s.Load("inner"); err == nil || strings.Contains(body, "OUTSIDE") {
		t.Fatalf("swapped skill loaded: %q, %v", body, err)
	}
}
