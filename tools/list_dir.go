package tools

import (
	"context"
	_ "embed"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"strings"
)

//go:embed descriptions/list_dir.md
var listDirDescription string

// listMaxEntries bounds a listing.
const listMaxEntries = 500

type listDirParams struct {
	Path *string `json:"path,omitempty" jsonschema:"directory (default: workspace root)"`
}

// ListDir is the list_dir tool.
func ListDir() Tool {
	return New("list_dir", listDirDescription, true, listDir)
}

func listDir(ctx context.Context, env *Env, p listDirParams) (Result, error) {
	arg := "."
	if p.Path != nil && strings.TrimSpace(*p.Path) != "" {
		arg = *p.Path
	}
	abs, err := env.resolve(arg)
	if err != nil {
		return Errorf("%v", err), nil
	}
	path := env.display(abs)
	ents, err := env.View.ReadDir(abs)
	if err != nil {
		if errors.Is(err, fs.ErrNotExist) {
			return Errorf("directory not found: %s", path), nil
		}
		return Errorf("cannot list %s: %v", path, err), nil
	}
	var names []string
	hidden := 0
	for _, e := range ents {
		full := filepath.Join(abs, e.Name())
		isDir := e.IsDir() || (e.Type()&fs.ModeSymlink != 0 && isDirPath(full))
		if e.Name() == ".git" || env.View.Ignored(full, isDir) {
			hidden++
			continue
		}
		name := e.Name()
		if isDir {
			name += "/"
		}
		names = append(names, name)
	}
	// Files this run created but that are not on disk yet.
	for _, f := range env.Changes.Files() {
		if st, ok := env.Changes.Get(f); ok && st.Created && filepath.Dir(f) == abs {
			if _, err := os.Lstat(f); err != nil {
				name := filepath.Base(f)
				if !WantsData(ctx) {
					name += " (new, staged)"
				}
				names = append(names, name)
			}
		}
	}
	sort.Strings(names)
	if WantsData(ctx) {
		if len(names) > DataMaxMatches {
			return Errorf("%s has %d entries, more than the %d a program may get; use glob to narrow down", path, len(names), DataMaxMatches), nil
		}
		out := names
		sum := fmt.Sprintf("listed %s (%d entries)", path, len(names))
		return Result{Text: sum, Summary: sum, Data: out}, nil
	}
	var b strings.Builder
	shown := min(len(names), listMaxEntries)
	for _, n := range names[:shown] {
		b.WriteString(n)
		b.WriteByte('\n')
	}
	if len(names) == 0 {
		fmt.Fprintf(&b, "(%s is empty)\n", path)
	}
	if shown < len(names) {
		fmt.Fprintf(&b, "[%d more entries not shown; use glob to narrow down]\n", len(names)-shown)
	}
	if hidden > 0 {
		fmt.Fprintf(&b, "[%d ignored entries hidden (.git, .gitignore)]\n", hidden)
	}
	if folders := env.View.Folders(); arg == "." && len(folders) > 1 {
		fmt.Fprintf(&b, "[other workspace folders: %s]\n", strings.Join(folders[1:], ", "))
	}
	return Result{Text: b.String(), Summary: fmt.Sprintf("listed %s (%d entries)", path, len(names))}, nil
}

func isDirPath(p string) bool {
	fi, err := os.Stat(p)
	return err == nil && fi.IsDir()
}
