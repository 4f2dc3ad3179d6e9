package tools

import (
	"context"
	_ "embed"
	"errors"
	"fmt"
	"io/fs"
	"path/filepath"
	"slices"
	"sort"
	"strings"
	"time"

	"github.com/bmatcuk/doublestar/v4"

	"github.com/agentls/agentls/internal/workspace"
)

//go:embed descriptions/glob.md
var globDescription string

// Bounds of a glob call.
const (
	globMaxResults = 1000
	globTimeout    = 20 * time.Second
)

type globParams struct {
	Pattern string  `json:"pattern" jsonschema:"glob pattern"`
	Path    *string `json:"path,omitempty" jsonschema:"directory to search (default: workspace root)"`
}

// Glob is the glob tool.
func Glob() Tool {
	return New("glob", globDescription, true, globFiles)
}

func globFiles(ctx context.Context, env *Env, p globParams) (Result, error) {
	root := "."
	if p.Path != nil && strings.TrimSpace(*p.Path) != "" {
		root = *p.Path
	}
	pattern := strings.TrimPrefix(filepath.ToSlash(p.Pattern), "./")
	if filepath.IsAbs(pattern) {
		// An absolute pattern: search from its static prefix.
		base, rest := doublestar.SplitPattern(pattern)
		root, pattern = base, rest
	}
	if pattern == "" || !doublestar.ValidatePattern(pattern) {
		return Errorf("invalid glob pattern %q (examples: **/*.go, src/*.ts, **/{a,b}.py)", p.Pattern), nil
	}
	rootAbs, err := env.resolve(root)
	if err != nil {
		return Errorf("%v", err), nil
	}
	// Walk only the static part of the pattern: src/**/*.go walks src.
	start := rootAbs
	if base, _ := doublestar.SplitPattern(pattern); base != "." && base != "" {
		start = filepath.Join(rootAbs, filepath.FromSlash(base))
	}
	wctx, cancel := context.WithTimeout(ctx, globTimeout)
	defer cancel()
	var matches []string
	truncated, timedOut := false, false
	data, max := WantsData(ctx), globMaxResults
	if data {
		max = DataMaxMatches
	}
	err = env.View.Walk(wctx, start, func(path string, d fs.DirEntry) error {
		if d.IsDir() {
			return nil
		}
		rel, ok := workspace.RelTo(rootAbs, path)
		if !ok {
			return nil
		}
		if ok, _ := doublestar.Match(pattern, rel); ok {
			if len(matches) == max {
				truncated = true
				return fs.SkipAll
			}
			matches = append(matches, env.display(path))
		}
		return nil
	})
	if err != nil {
		switch {
		case ctx.Err() != nil:
			return Result{}, ctx.Err()
		case errors.Is(err, context.DeadlineExceeded):
			timedOut = true
		case errors.Is(err, fs.ErrNotExist) && start != rootAbs:
			// The pattern's static prefix does not exist: no matches.
		default:
			return Errorf("glob %s: %v", p.Pattern, err), nil
		}
	}
	for _, f := range env.Changes.Files() { // files created by this run, not on disk yet
		if st, ok := env.Changes.Get(f); ok && st.Created {
			if rel, ok := workspace.RelTo(rootAbs, f); ok {
				if m, _ := doublestar.Match(pattern, rel); m && !slices.Contains(matches, env.display(f)) {
					matches = append(matches, env.display(f))
				}
			}
		}
	}
	sort.Strings(matches)
	if data {
		return globData(p.Pattern, matches, truncated, timedOut), nil
	}
	var b strings.Builder
	for _, m := range matches {
		b.WriteString(m)
		b.WriteByte('\n')
	}
	if len(matches) == 0 {
		fmt.Fprintf(&b, "no files match %s under %s\n", p.Pattern, env.display(rootAbs))
	}
	if truncated {
		fmt.Fprintf(&b, "[truncated at %d files; narrow the pattern or path]\n", globMaxResults)
	}
	if timedOut {
		fmt.Fprintf(&b, "[search stopped after %v; results are incomplete, narrow the path]\n", globTimeout)
	}
	return Result{Text: b.String(), Summary: fmt.Sprintf("glob %s: %d files", p.Pattern, len(matches))}, nil
}

// globData is glob's answer to a program: the sorted paths, or an error
// when the walk was cut short (never a silently shorter list).
func globData(pattern string, matches []string, truncated, timedOut bool) Result {
	if truncated {
		return Errorf("glob %s: more than %d files, the most a program may get; narrow the pattern or path", pattern, DataMaxMatches)
	}
	if timedOut {
		return Errorf("glob %s: stopped after %v with incomplete results; narrow the path", pattern, globTimeout)
	}
	out := slices.Clip(matches)
	sum := fmt.Sprintf("glob %s: %d files", pattern, len(matches))
	return Result{Text: sum, Summary: sum, Data: out}
}
