package lang

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/agentls/agentls/tools"
	"github.com/agentls/agentls/tools/script"
)

// runScript runs code with the script tool over s's tools (the built-ins
// and the language tools) and returns what the model would see.
func (s *setup) runScript(t *testing.T, code string) string {
	t.Helper()
	all := make([]tools.Tool, 0, len(s.reg))
	for _, tl := range s.reg {
		all = append(all, tl)
	}
	st := script.New(script.Options{Tools: func() []tools.Tool { return all }})
	args, _ := json.Marshal(map[string]string{"code": code})
	res, err := st.Call(tools.WithCallID(context.Background(), "c1"), s.env, args)
	if err != nil {
		t.Fatal(err)
	}
	if res.IsError {
		t.Fatalf("script failed:\n%s\ncode:\n%s", res.Text, code)
	}
	return strings.TrimRight(res.Text, "\n")
}

// colOfIn is the 1-based character column of the first sub in line.
func colOfIn(line, sub string) int {
	return utf8.RuneCountInString(line[:strings.Index(line, sub)]) + 1
}

// TestScriptGoplsValues: inside a script, references, definition and
// symbols are lists of dicts a program counts and filters, with columns
// in characters past a tab, an emoji and CJK.
func TestScriptGoplsValues(t *testing.T) {
	leakCheck(t)
	line8 := "\ts := \"😀 漢字\"; fmt.Println(s, Add(5, 6))"
	root := workspaceOf(t, map[string]string{
		"go.mod":  "module example.com/m\n\ngo 1.22\n",
		"util.go": "package main\n\n// Add adds.\nfunc Add(a, b int) int { return a + b }\n",
		"main.go": "package main\n\nimport \"fmt\"\n\nfunc main() {\n\tfmt.Println(Add(1, 2))\n\tfmt.Println(Add(3, 4))\n" + line8 + "\n}\n",
	})
	s := realSetup(t, root, "gopls")

	got := s.runScript(t, `refs = references('util.go', 4, 'Add')
print(len(refs), len([r for r in refs if r['path'] == 'main.go']))
[(r['line'], r['column']) for r in refs if r['path'] == 'main.go']`)
	wantEqual(t, "references script", got, fmt.Sprintf("4 3\n[[6,14],[7,14],[8,%d]]", colOfIn(line8, "Add")))

	got = s.runScript(t, `d = definition('main.go', 8, 'Add')
[d[0]['path'], d[0]['line'], d[0]['column'], d[0]['text'], len(d)]`)
	wantEqual(t, "definition script", got, `["util.go",4,6,"func Add(a, b int) int { return a + b }",1]`)

	got = s.runScript(t, `[(x['name'], x['kind'], x['line'], x['column'], x['depth']) for x in symbols(path='main.go')] + [(x['path'], x['name'], x['line']) for x in symbols(query='Add') if x['name'] == 'Add']`)
	wantEqual(t, "symbols script", got, `[["main","function",5,6,0],["util.go","Add",4]]`)

	// The direct call's text is what it was.
	wantEqual(t, "references text", s.mustCall(t, "references", fmtArgs("path", "util.go", "line", 4, "symbol", "Add")).Text,
		"4 reference(s) in 2 file(s):\nmain.go\n  6: fmt.Println(Add(1, 2))\n  7: fmt.Println(Add(3, 4))\n  8: s := \"😀 漢字\"; fmt.Println(s, Add(5, 6))\nutil.go\n  4: func Add(a, b int) int { return a + b }")
}

// TestScriptPyrightDiagnostics: diagnostics inside a script is a list of
// dicts a program filters by severity, with the staged text's problems.
func TestScriptPyrightDiagnostics(t *testing.T) {
	leakCheck(t)
	root := workspaceOf(t, pyProject)
	s := realSetup(t, root, "pyright")
	s.mustCall(t, "read_file", fmtArgs("path", "main.py"))
	line := "print(\"😀 漢字\", add(1, undefined_thing))"
	s.mustCall(t, "edit_file", fmtArgs("path", "main.py", "old_string", "print(add(1, 2))", "new_string", "x = add(1, 2)\nx == 3\n"+line))

	got := s.runScript(t, `ds = diagnostics('main.py')
errs = [d for d in ds if d['severity'] == 'error']
warns = [d for d in ds if d['severity'] == 'warning']
print(len(errs), len(warns))
[(d['line'], d['column'], d['message'], d['source']) for d in errs + warns]`)
	wantEqual(t, "diagnostics script", got, fmt.Sprintf(`1 1
[[5,%d,"\"undefined_thing\" is not defined","Pyright"],[4,1,"Expression value is unused","Pyright"]]`, colOfIn(line, "undefined_thing")))

	// Without a path: every file the run changed; none in util.py.
	got = s.runScript(t, `sorted(set([d['path'] for d in diagnostics()]))`)
	wantEqual(t, "changed files", got, `["main.py"]`)
	got = s.runScript(t, `len(diagnostics('util.py'))`)
	wantEqual(t, "clean file", got, "0")
}
