// Package skills finds and loads agent skills: folders holding a SKILL.md
// whose YAML front matter gives a name and a description (the common Agent
// Skills layout). Skills are disclosed progressively: the system prompt
// lists only names and descriptions (Set.Listing, bounded), the model loads
// a skill's body on demand with the skill tool, and files inside a skill's
// folder are readable (read-only) with read_file.
//
// Two sources, in this order of precedence:
//
//   - the user's skills, $XDG_CONFIG_HOME/agentls/skills/NAME/SKILL.md;
//   - the workspace's skills, .agentls/skills/NAME/SKILL.md in each
//     workspace folder.
//
// A workspace skill never silently replaces a user skill of the same name:
// the user's keeps the name, and the workspace one is offered as
// "workspace:NAME" with a note in the listing. A cloned repository can add
// skills (as it can add AGENTS.md), but cannot change what a skill the
// user wrote says.
package skills

import (
	"bytes"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"sort"
	"strings"

	"go.yaml.in/yaml/v3"

	"github.com/agentls/agentls/internal/statedir"
	"github.com/agentls/agentls/internal/workspace"
)

// Bounds, so a repository with many or huge skills cannot flood the
// prompt or the model's context.
const (
	MaxSkills          = 64        // skills offered; the rest are skipped with a warning
	MaxDescriptionLen  = 1024      // longer descriptions are a front-matter error (Agent Skills limit)
	listingDescription = 200       // description characters shown in the prompt listing
	maxListingBytes    = 6 << 10   // the whole listing in the system prompt
	maxSkillFileBytes  = 256 << 10 // SKILL.md larger than this is refused
	maxBodyBytes       = 64 << 10  // body returned by Load (the rest is cut with a note)
	maxListedFiles     = 50        // files of a skill folder listed by Load
	maxListedDirs      = 100       // folders of a skill looked into for that list
)

// nameRE is the Agent Skills name rule: lowercase letters, digits and
// hyphens, no leading, trailing or doubled hyphen, at most 64 characters.
var nameRE = regexp.MustCompile(`^[a-z0-9]+(-[a-z0-9]+)*$`)

// Source says where a skill was found.
type Source string

// Skill sources.
const (
	User      Source = "user"
	Workspace Source = "workspace"
)

// Skill is one discovered skill. Its body is read only when loaded.
type Skill struct {
	Name        string // name the model uses with the skill tool
	Description string // from the front matter
	Dir         string // absolute folder holding SKILL.md (symlinks resolved)
	Source      Source
	Note        string // shown in the listing, e.g. why it is namespaced

	// root anchors every read of the skill's files: the workspace folder
	// for a workspace skill (its files are workspace files: symlinks may
	// not lead out of the workspace), the skill's own resolved folder for
	// a user skill (which the user may keep anywhere).
	root string
}

// Set is the skills available to a run, with the warnings found while
// loading them (bad front matter, duplicates, too many).
type Set struct {
	skills   []Skill // sorted by name
	byName   map[string]int
	Warnings []string
}

// Discover reads the user's skills folder (userDir, usually
// $XDG_CONFIG_HOME/agentls/skills; empty to skip) and the workspace
// folders' .agentls/skills. A missing folder is not an error. Problems
// with single skills become Warnings and the skill is skipped.
func Discover(userDir string, workspaceFolders []string) *Set {
	s := &Set{byName: map[string]int{}}
	if userDir != "" {
		s.addDir(userDir, User, "")
	}
	for _, f := range workspaceFolders {
		s.addDir(filepath.Join(f, ".agentls", "skills"), Workspace, f)
	}
	sort.Slice(s.skills, func(i, j int) bool { return s.skills[i].Name < s.skills[j].Name })
	for i, sk := range s.skills {
		s.byName[sk.Name] = i
	}
	return s
}

// UserDir returns the user's skills folder in the environment env (nil:
// os.Getenv): $XDG_CONFIG_HOME/agentls/skills, or
// ~/.config/agentls/skills (statedir.ConfigDir). Empty when neither can
// be found.
func UserDir(env func(string) string) string {
	dir := statedir.ConfigDir(env)
	if dir == "" {
		return ""
	}
	return filepath.Join(dir, "skills")
}

// addDir adds the skills in dir. root is the workspace folder holding a
// workspace skills folder ("" for the user's): every read of a workspace
// skill goes through the workspace's confined open with root as anchor,
// so a skill folder or SKILL.md symlinked out of the workspace is refused,
// like any other read of a workspace file.
func (s *Set) addDir(dir string, src Source, root string) {
	var entries []fs.DirEntry
	var err error
	if root != "" {
		entries, err = workspace.ReadDirIn(root, dir)
	} else {
		entries, err = os.ReadDir(dir)
	}
	if err != nil {
		if !errors.Is(err, fs.ErrNotExist) {
			s.Warnings = append(s.Warnings, fmt.Sprintf("skills: cannot read %s: %v", dir, err))
		}
		return
	}
	sort.Slice(entries, func(i, j int) bool { return entries[i].Name() < entries[j].Name() })
	for _, e := range entries {
		if !e.IsDir() && e.Type()&fs.ModeSymlink == 0 {
			continue
		}
		if len(s.skills) >= MaxSkills {
			s.Warnings = append(s.Warnings, fmt.Sprintf("skills: more than %d skills; %s and later ones skipped", MaxSkills, filepath.Join(dir, e.Name())))
			return
		}
		sk, err := readSkill(filepath.Join(dir, e.Name()), e.Name(), src, root)
		if err != nil {
			s.Warnings = append(s.Warnings, "skills: "+err.Error())
			continue
		}
		if _, dup := s.find(sk.Name); dup {
			if src == Workspace {
				sk.Note = fmt.Sprintf("a workspace skill also named %q; your user skill of that name takes precedence", sk.Name)
				sk.Name = "workspace:" + sk.Name
			} else {
				s.Warnings = append(s.Warnings, fmt.Sprintf("skills: %s: a skill named %q already exists; skipped", sk.Dir, sk.Name))
				continue
			}
		}
		s.skills = append(s.skills, sk)
	}
}

func (s *Set) find(name string) (Skill, bool) {
	for _, sk := range s.skills {
		if sk.Name == name {
			return sk, true
		}
	}
	return Skill{}, false
}

// frontMatter is the part of SKILL.md's YAML header we use; other keys
// (license, allowed-tools, metadata) are allowed and ignored.
type frontMatter struct {
	Name        string `yaml:"name"`
	Description string `yaml:"description"`
}

// readSkill parses dir/SKILL.md. The folder name must equal the front
// matter's name, as in the Agent Skills layout. root is the workspace
// folder of a workspace skill ("" for a user skill): the skill folder,
// symlinks resolved, must be inside it.
func readSkill(dir, folder string, src Source, root string) (Skill, error) {
	file := filepath.Join(dir, "SKILL.md")
	real, err := filepath.EvalSymlinks(dir)
	if err != nil {
		return Skill{}, fmt.Errorf("%s: %w", file, err)
	}
	anchor := real
	if root != "" {
		realRoot, err := filepath.EvalSymlinks(root)
		if err != nil {
			return Skill{}, fmt.Errorf("%s: %w", file, err)
		}
		if rel, err := filepath.Rel(realRoot, real); err != nil || !filepath.IsLocal(rel) {
			return Skill{}, fmt.Errorf("%s: the skill folder is a symlink leading outside the workspace (to %s); "+
				"workspace skills must live inside the workspace (skipped)", file, real)
		}
		anchor = realRoot
	}
	fm, _, err := parseFile(anchor, filepath.Join(real, "SKILL.md"))
	if err != nil {
		return Skill{}, fmt.Errorf("%s: %w", file, err)
	}
	switch {
	case fm.Name == "":
		return Skill{}, fmt.Errorf("%s: front matter has no name", file)
	case !nameRE.MatchString(fm.Name) || len(fm.Name) > 64:
		return Skill{}, fmt.Errorf("%s: name %q must be lowercase letters, digits and single hyphens, at most 64 characters", file, fm.Name)
	case fm.Name != folder:
		return Skill{}, fmt.Errorf("%s: name %q does not match its folder %q", file, fm.Name, folder)
	case strings.TrimSpace(fm.Description) == "":
		return Skill{}, fmt.Errorf("%s: front matter has no description", file)
	case len(fm.Description) > MaxDescriptionLen:
		return Skill{}, fmt.Errorf("%s: description is %d characters, more than %d", file, len(fm.Description), MaxDescriptionLen)
	}
	return Skill{Name: fm.Name, Description: oneLine(fm.Description), Dir: real, Source: src, root: anchor}, nil
}

// parseFile reads a SKILL.md, confined to root (see Skill.root), and
// splits its front matter from its body.
func parseFile(root, file string) (frontMatter, string, error) {
	data, err := workspace.ReadFileIn(root, file, maxSkillFileBytes)
	if err != nil {
		return frontMatter{}, "", err
	}
	data = bytes.TrimPrefix(data, []byte("\xef\xbb\xbf"))
	text := strings.ReplaceAll(string(data), "\r\n", "\n")
	if !strings.HasPrefix(text, "---\n") {
		return frontMatter{}, "", errors.New("no YAML front matter (the file must start with a line ---)")
	}
	rest := text[len("---\n"):]
	end := strings.Index(rest, "\n---")
	if end < 0 {
		return frontMatter{}, "", errors.New("front matter is not closed by a line ---")
	}
	header, body := rest[:end], rest[end+len("\n---"):]
	if i := strings.IndexByte(body, '\n'); i >= 0 {
		body = body[i+1:]
	} else {
		body = ""
	}
	var fm frontMatter
	if err := yaml.Unmarshal([]byte(header), &fm); err != nil {
		return frontMatter{}, "", fmt.Errorf("bad front matter: %w", err)
	}
	return fm, body, nil
}

func oneLine(s string) string { return strings.Join(strings.Fields(s), " ") }

// Len is the number of skills.
func (s *Set) Len() int {
	if s == nil {
		return 0
	}
	return len(s.skills)
}

// All returns the skills sorted by name.
func (s *Set) All() []Skill {
	if s == nil {
		return nil
	}
	return append([]Skill(nil), s.skills...)
}

// Listing is the text for the system prompt: one line per skill with its
// description cut to a few hundred characters, within a byte budget. Empty
// when there are no skills.
func (s *Set) Listing() string {
	if s.Len() == 0 {
		return ""
	}
	var b strings.Builder
	b.WriteString("Skills (instructions for specific tasks; call the skill tool with the name to load one when the task matches):\n")
	for i, sk := range s.skills {
		desc := sk.Description
		if len(desc) > listingDescription {
			desc = cutUTF8(desc, listingDescription) + "…"
		}
		line := fmt.Sprintf("- %s: %s", sk.Name, desc)
		if sk.Note != "" {
			line += " (" + sk.Note + ")"
		}
		if b.Len()+len(line)+1 > maxListingBytes {
			fmt.Fprintf(&b, "- … and %d more skills not listed (the skill tool loads any by name)\n", len(s.skills)-i)
			break
		}
		b.WriteString(line + "\n")
	}
	return strings.TrimRight(b.String(), "\n")
}

// ErrUnknown is returned by Load for a name that is not in the set.
var ErrUnknown = errors.New("no such skill")

// Load returns the skill's instructions for the model: the body of its
// SKILL.md (re-read now, so edits show), bounded, followed by the files in
// its folder that read_file may open.
func (s *Set) Load(name string) (Skill, string, error) {
	if s == nil {
		return Skill{}, "", fmt.Errorf("%w %q (no skills are installed)", ErrUnknown, name)
	}
	i, ok := s.byName[name]
	if !ok {
		names := make([]string, len(s.skills))
		for j, sk := range s.skills {
			names[j] = sk.Name
		}
		return Skill{}, "", fmt.Errorf("%w %q; available: %s", ErrUnknown, name, strings.Join(names, ", "))
	}
	sk := s.skills[i]
	_, body, err := parseFile(sk.root, filepath.Join(sk.Dir, "SKILL.md"))
	if err != nil {
		return sk, "", fmt.Errorf("skill %s: %w", name, err)
	}
	body = strings.TrimSpace(body)
	if len(body) > maxBodyBytes {
		body = cutUTF8(body, maxBodyBytes) + "\n[skill text cut]"
	}
	var b strings.Builder
	fmt.Fprintf(&b, "<skill name=%q folder=%q>\n%s\n</skill>", sk.Name, sk.Dir, body)
	if files := listFiles(sk.root, sk.Dir); len(files) > 0 {
		fmt.Fprintf(&b, "\nFiles in this skill's folder (read them with read_file using these paths):\n")
		for _, f := range files {
			b.WriteString("- " + f + "\n")
		}
	}
	return sk, strings.TrimRight(b.String(), "\n"), nil
}

// listFiles returns up to maxListedFiles regular files under dir (other
// than SKILL.md), as absolute paths, listing folders through the confined
// open (root as anchor) and never following a symlink.
func listFiles(root, dir string) []string {
	var out []string
	queue := []string{dir}
	for visited := 0; len(queue) > 0 && len(out) < maxListedFiles && visited < maxListedDirs; visited++ {
		d := queue[0]
		queue = queue[1:]
		entries, err := workspace.ReadDirIn(root, d)
		if err != nil {
			continue
		}
		sort.Slice(entries, func(i, j int) bool { return entries[i].Name() < entries[j].Name() })
		for _, e := range entries {
			p := filepath.Join(d, e.Name())
			switch {
			case e.Type().IsRegular() && p != filepath.Join(dir, "SKILL.md") && len(out) < maxListedFiles:
				out = append(out, p)
			case e.IsDir():
				queue = append(queue, p)
			}
		}
	}
	return out
}

// Contains reports whether abs (an absolute, cleaned path) is inside the
// folder of one of the skills, returning that skill. read_file uses it to
// allow reading a skill's own files, including user skills outside the
// workspace; the caller still opens the file without following symlinks
// out of that folder (see ReadFile).
func (s *Set) Contains(abs string) (Skill, bool) {
	if s == nil {
		return Skill{}, false
	}
	for _, sk := range s.skills {
		if abs != sk.Dir && strings.HasPrefix(abs, sk.Dir+string(filepath.Separator)) {
			return sk, true
		}
	}
	return Skill{}, false
}

// ReadFile reads a file inside a skill's folder, read-only, through the
// confined open with the skill's folder as anchor: symlinks may not lead
// out of the folder, and it must be a regular file of bounded size.
func ReadFile(sk Skill, abs string) (string, error) {
	data, err := workspace.ReadFileIn(sk.Dir, abs, maxSkillFileBytes)
	if errors.Is(err, workspace.ErrOutside) {
		return "", fmt.Errorf("%s leaves the folder of skill %s", abs, sk.Name)
	}
	if err != nil {
		return "", err
	}
	return string(data), nil
}

// cutUTF8 cuts s to at most n bytes without splitting a rune.
func cutUTF8(s string, n int) string {
	if len(s) <= n {
		return s
	}
	for n > 0 && s[n]&0xC0 == 0x80 {
		n--
	}
	return s[:n]
}
