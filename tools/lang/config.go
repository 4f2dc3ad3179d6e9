package lang

import (
	"encoding/json"
	"maps"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
)

// ServerConfig is one language server entry: how to start it and which
// files it serves. It mirrors the languageServers configuration entry
// (agent/config), which this package does not import.
type ServerConfig struct {
	// Name is the entry's key ("gopls", "pyright", or the user's own).
	Name string
	// Command is the program and its arguments.
	Command []string
	// Extensions are the file name extensions served, with the dot
	// (".go"); matched case-sensitively, as compilers do.
	Extensions []string
	// RootMarkers are file names whose nearest directory (at or below the
	// workspace folder) is the server's root, e.g. "go.mod"; none: the
	// workspace folder.
	RootMarkers []string
	// InitializationOptions are sent in initialize; for gopls they are also
	// its settings (workspace/configuration of section "gopls").
	InitializationOptions json.RawMessage
	// Env adds variables to the server's environment.
	Env map[string]string
	// Configured is true for entries the user wrote (not only a built-in):
	// they are used even when their program is not on PATH, so that a
	// typo is reported instead of silently ignored.
	Configured bool
}

// builtin is a built-in entry; alternatives are other programs that
// provide the same server, tried in order when Command is not on PATH.
type builtin struct {
	ServerConfig
	alternatives [][]string
}

// builtins are the servers agentls uses when their program is on PATH
// (docs/language-servers.md lists them).
func builtins() []builtin {
	return []builtin{
		{ServerConfig: ServerConfig{Name: "gopls", Command: []string{"gopls"}, Extensions: []string{".go"}}},
		{
			ServerConfig: ServerConfig{Name: "pyright", Command: []string{"pyright-langserver", "--stdio"}, Extensions: []string{".py", ".pyi"}},
			// basedpyright is a fork with the same protocol, used when it
			// is the one on PATH.
			alternatives: [][]string{{"basedpyright-langserver", "--stdio"}},
		},
		{ServerConfig: ServerConfig{
			Name: "typescript", Command: []string{"typescript-language-server", "--stdio"},
			Extensions: []string{".ts", ".tsx", ".js", ".jsx", ".mts", ".cts", ".mjs", ".cjs"},
			// Without this, a rename at a use in an importing file gives
			// "add as addTwo" in that file instead of renaming the symbol
			// (docs/language-servers.md, the rename tool). The tsserver
			// settings halve its memory (one semantic server, no typings
			// installer) at equal latency (docs/performance.md).
			InitializationOptions: json.RawMessage(`{"preferences":{"providePrefixAndSuffixTextForRename":false},` +
				`"tsserver":{"useSyntaxServer":"never"},"disableAutomaticTypingAcquisition":true}`),
		}},
		{ServerConfig: ServerConfig{Name: "rust-analyzer", Command: []string{"rust-analyzer"}, Extensions: []string{".rs"}}},
		// --use-dirty-headers (clangd 14 and later): files including a
		// header are built with the header's overlay, the proposal, not
		// the header on disk.
		{ServerConfig: ServerConfig{Name: "clangd", Command: []string{"clangd", "--use-dirty-headers"}, Extensions: []string{".c", ".h", ".cc", ".cpp", ".cxx", ".hpp", ".hh", ".hxx"}}},
	}
}

// Entry is one languageServers configuration entry as the user wrote it;
// nil fields take the built-in entry's value of the same name.
type Entry struct {
	Command               []string
	Extensions            []string
	RootMarkers           []string
	InitializationOptions json.RawMessage
	Env                   map[string]string
}

// Resolve merges the user's entries over the built-ins and returns the
// servers to use, in a stable order (built-ins first, then the user's by
// name). allOff ("languageServers": false) turns every server off; a nil
// Entry turns that one off. A built-in is used only when its program is
// on PATH (lookPath; nil is exec.LookPath); an entry the user configured
// is used whatever PATH says, so a wrong command is reported when it is
// needed. An entry without command or extensions (and no built-in to fill
// them) is skipped.
func Resolve(user map[string]*Entry, allOff bool, lookPath func(string) (string, error)) []ServerConfig {
	if allOff {
		return nil
	}
	if lookPath == nil {
		lookPath = exec.LookPath
	}
	var out []ServerConfig
	seen := map[string]bool{}
	for _, b := range builtins() {
		seen[b.Name] = true
		e, configured := user[b.Name]
		if configured && e == nil {
			continue // "gopls": false
		}
		sc := b.ServerConfig
		if configured {
			sc = overlay(sc, e)
		}
		if !configured || len(e.Command) == 0 {
			cmd, ok := onPath(append([][]string{sc.Command}, b.alternatives...), lookPath)
			if !ok {
				continue
			}
			sc.Command = cmd
		}
		out = append(out, sc)
	}
	for _, name := range slices.Sorted(maps.Keys(user)) {
		e := user[name]
		if seen[name] || e == nil {
			continue
		}
		sc := overlay(ServerConfig{Name: name}, e)
		if len(sc.Command) == 0 || len(sc.Extensions) == 0 {
			continue
		}
		out = append(out, sc)
	}
	return out
}

// overlay returns base with the fields e sets.
func overlay(base ServerConfig, e *Entry) ServerConfig {
	base.Configured = true
	if len(e.Command) > 0 {
		base.Command = slices.Clone(e.Command)
	}
	if len(e.Extensions) > 0 {
		base.Extensions = normExtensions(e.Extensions)
	}
	if e.RootMarkers != nil {
		base.RootMarkers = slices.Clone(e.RootMarkers)
	}
	if len(e.InitializationOptions) > 0 {
		base.InitializationOptions = e.InitializationOptions
	}
	if e.Env != nil {
		base.Env = maps.Clone(e.Env)
	}
	return base
}

// normExtensions accepts "go" and "*.go" for ".go".
func normExtensions(exts []string) []string {
	out := make([]string, 0, len(exts))
	for _, e := range exts {
		e = strings.TrimPrefix(strings.TrimSpace(e), "*")
		if e == "" {
			continue
		}
		if !strings.HasPrefix(e, ".") {
			e = "." + e
		}
		out = append(out, e)
	}
	return out
}

// onPath returns the first command whose program lookPath finds, with the
// program's path as found.
func onPath(cmds [][]string, lookPath func(string) (string, error)) ([]string, bool) {
	for _, c := range cmds {
		if len(c) == 0 {
			continue
		}
		if p, err := lookPath(c[0]); err == nil {
			out := slices.Clone(c)
			out[0] = p
			return out, true
		}
	}
	return nil, false
}

// serves reports whether sc serves path (by extension).
func (sc ServerConfig) serves(path string) bool {
	return slices.Contains(sc.Extensions, filepath.Ext(path))
}

// languageID is the LSP languageId of path for didOpen.
func languageID(path string) string {
	ext := filepath.Ext(path)
	switch ext {
	case ".go":
		return "go"
	case ".py", ".pyi":
		return "python"
	case ".ts", ".mts", ".cts":
		return "typescript"
	case ".tsx":
		return "typescriptreact"
	case ".js", ".mjs", ".cjs":
		return "javascript"
	case ".jsx":
		return "javascriptreact"
	case ".rs":
		return "rust"
	case ".c", ".h":
		return "c"
	case ".cc", ".cpp", ".cxx", ".hpp", ".hh", ".hxx":
		return "cpp"
	}
	return strings.TrimPrefix(ext, ".")
}
