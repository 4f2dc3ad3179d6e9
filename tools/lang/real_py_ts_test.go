package lang

import (
	"strings"
	"testing"
)

var pyProject = map[string]string{
	"util.py": "def add(a: int, b: int) -> int:\n    return a + b\n",
	"main.py": "from util import add\n\nprint(add(1, 2))\n",
}

// TestPyright drives pyright: pull diagnostics, navigation across files,
// an undefined name in pyright's words, a rename staged as a proposal.
func TestPyright(t *testing.T) {
	leakCheck(t)
	root := workspaceOf(t, pyProject)
	s := realSetup(t, root, "pyright")

	wantEqual(t, "definition", s.mustCall(t, "definition", fmtArgs("path", "main.py", "line", 3, "symbol", "add")).Text,
		"util.py:1: def add(a: int, b: int) -> int:")
	wantEqual(t, "references", s.mustCall(t, "references", fmtArgs("path", "util.py", "line", 1, "symbol", "add")).Text,
		"3 reference(s) in 2 file(s):\nmain.py\n  1: from util import add\n  3: print(add(1, 2))\nutil.py\n  1: def add(a: int, b: int) -> int:")
	if got := s.mustCall(t, "symbols", fmtArgs("query", "add")).Text; !strings.Contains(got, "util.py:1 function add") {
		t.Fatalf("symbols query:\n%s", got)
	}
	wantEqual(t, "outline", s.mustCall(t, "symbols", fmtArgs("path", "util.py")).Text, "util.py:\n1: function add\n  1: variable a\n  1: variable b")

	s.mustCall(t, "read_file", fmtArgs("path", "main.py"))
	res := s.mustCall(t, "edit_file", fmtArgs("path", "main.py", "old_string", "add(1, 2)", "new_string", "add(1, undefined_thing)"))
	wantSuffix(t, "edit result", res.Text, `main.py:3: "undefined_thing" is not defined`)
	res = s.mustCall(t, "edit_file", fmtArgs("path", "main.py", "old_string", "undefined_thing", "new_string", "2"))
	wantSuffix(t, "fix result", res.Text, "\n\nno new problems")

	// A change in util.py that breaks main.py (open: the run read it).
	s.mustCall(t, "read_file", fmtArgs("path", "util.py"))
	res = s.mustCall(t, "edit_file", fmtArgs("path", "util.py", "old_string", "def add(a: int, b: int) -> int:", "new_string", "def add(a: str, b: str) -> str:"))
	if !strings.Contains(res.Text, `main.py:3: Argument of type "Literal[1]" cannot be assigned to parameter "a" of type "str" in function "add"`) {
		t.Fatalf("cross-file result:\n%s", res.Text)
	}
	res = s.mustCall(t, "edit_file", fmtArgs("path", "util.py", "old_string", "def add(a: str, b: str) -> str:", "new_string", "def add(a: int, b: int) -> int:"))
	wantSuffix(t, "revert result", res.Text, "no new problems")

	res = s.mustCall(t, "rename", fmtArgs("path", "main.py", "line", 3, "symbol", "add", "new_name", "plus"))
	if !strings.HasPrefix(res.Text, "Renamed add to plus in 2 file(s):") || !strings.HasSuffix(res.Text, "no new problems") {
		t.Fatalf("rename result:\n%s", res.Text)
	}
	if st, _ := s.env.Changes.Get(root + "/main.py"); st.Text != "from util import plus\n\nprint(plus(1, 2))\n" {
		t.Fatalf("main.py staged: %q", st.Text)
	}
}

var tsProject = map[string]string{
	"tsconfig.json": `{"compilerOptions": {"strict": true, "target": "es2022", "module": "commonjs"}}` + "\n",
	"util.ts":       "export function add(a: number, b: number): number {\n  return a + b;\n}\n",
	"main.ts":       "import { add } from \"./util\";\n\nconsole.log(add(1, 2));\n",
}

// TestTypeScript drives typescript-language-server with TypeScript 6.
func TestTypeScript(t *testing.T) {
	leakCheck(t)
	root := workspaceOf(t, tsProject)
	s := realSetup(t, root, "typescript")

	wantEqual(t, "definition", s.mustCall(t, "definition", fmtArgs("path", "main.ts", "line", 3, "symbol", "add")).Text,
		"util.ts:1: export function add(a: number, b: number): number {")
	wantEqual(t, "references", s.mustCall(t, "references", fmtArgs("path", "util.ts", "line", 1, "symbol", "add")).Text,
		"3 reference(s) in 2 file(s):\nmain.ts\n  1: import { add } from \"./util\";\n  3: console.log(add(1, 2));\nutil.ts\n  1: export function add(a: number, b: number): number {")
	if got := s.mustCall(t, "symbols", fmtArgs("query", "add")).Text; !strings.Contains(got, "util.ts:1 function add") {
		t.Fatalf("symbols query:\n%s", got)
	}
	wantEqual(t, "outline", s.mustCall(t, "symbols", fmtArgs("path", "util.ts")).Text, "util.ts:\n1: function add")

	s.mustCall(t, "read_file", fmtArgs("path", "main.ts"))
	res := s.mustCall(t, "edit_file", fmtArgs("path", "main.ts", "old_string", "add(1, 2)", "new_string", "add(1, undefinedThing)"))
	wantSuffix(t, "edit result", res.Text, "main.ts:3: Cannot find name 'undefinedThing'.")
	res = s.mustCall(t, "edit_file", fmtArgs("path", "main.ts", "old_string", "undefinedThing", "new_string", "2"))
	wantSuffix(t, "fix result", res.Text, "\n\nno new problems")

	// A change in util.ts that breaks main.ts (open: the run read it).
	s.mustCall(t, "read_file", fmtArgs("path", "util.ts"))
	res = s.mustCall(t, "edit_file", fmtArgs("path", "util.ts", "old_string", "add(a: number, b: number): number", "new_string", "add(a: string, b: string): string"))
	if !strings.Contains(res.Text, "main.ts:3: Argument of type 'number' is not assignable to parameter of type 'string'.") {
		t.Fatalf("cross-file result:\n%s", res.Text)
	}
	res = s.mustCall(t, "edit_file", fmtArgs("path", "util.ts", "old_string", "add(a: string, b: string): string", "new_string", "add(a: number, b: number): number"))
	wantSuffix(t, "revert result", res.Text, "no new problems")

	res = s.mustCall(t, "rename", fmtArgs("path", "main.ts", "line", 3, "symbol", "add", "new_name", "plus"))
	if !strings.HasPrefix(res.Text, "Renamed add to plus in 2 file(s):") || !strings.HasSuffix(res.Text, "no new problems") {
		t.Fatalf("rename result:\n%s", res.Text)
	}
	if st, _ := s.env.Changes.Get(root + "/main.ts"); st.Text != "import { plus } from \"./util\";\n\nconsole.log(plus(1, 2));\n" {
		t.Fatalf("main.ts staged: %q", st.Text)
	}
}
