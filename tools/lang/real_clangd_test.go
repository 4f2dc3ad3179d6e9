package lang

import (
	"fmt"
	"maps"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/agentls/agentls/internal/text"
)

// cProject is a plain C project as many are: no build system clangd can
// read, a compile_flags.txt with the flags every file builds with, which
// clangd needs to find the header in include/ ("'util.h' file not found"
// without it). The line calling add has a tab, an emoji and CJK before
// the call, in a string and in a comment.
var cProject = map[string]string{
	"compile_flags.txt": "-std=c11\n-Wall\n-Iinclude\n",
	"include/util.h":    "#ifndef UTIL_H\n#define UTIL_H\n\nint add(int a, int b);\n\n#endif\n",
	"util.c":            "#include \"util.h\"\n\nint add(int a, int b) { return a + b; }\n",
	"main.c":            "#include \"util.h\"\n\nint main(void) {\n\tconst char *s = \"😀 漢字\"; /* 注释 😀 */ return add(1, 2) + (s != 0);\n}\n",
}

// TestClangdC drives Debian's clangd 14 over a C project with a
// compile_flags.txt: navigation across a header and two sources, the
// problems an edit introduces in clangd's words (columns right past a tab,
// an emoji and CJK, in the utf-8 clangd negotiates through its
// offsetEncoding extension), a fix, and a rename across the three files.
func TestClangdC(t *testing.T) {
	leakCheck(t)
	root := workspaceOf(t, cProject)
	s := realSetup(t, root, "clangd")

	// clangd indexes only the files it has open when there is no
	// compile_commands.json: the model has read the three files.
	for _, f := range []string{"include/util.h", "util.c", "main.c"} {
		s.mustCall(t, "read_file", fmtArgs("path", f))
	}
	wantEqual(t, "definition", s.mustCall(t, "definition", fmtArgs("path", "main.c", "line", 4, "symbol", "add")).Text,
		"util.c:3: int add(int a, int b) { return a + b; }")
	if enc := encodingOf(t, s.m, "clangd"); enc != text.UTF8 {
		t.Fatalf("clangd negotiated %v, want utf-8", enc)
	}
	wantEqual(t, "references", s.mustCall(t, "references", fmtArgs("path", "util.c", "line", 3, "symbol", "add")).Text,
		"3 reference(s) in 3 file(s):\ninclude/util.h\n  4: int add(int a, int b);\nmain.c\n  4: const char *s = \"😀 漢字\"; /* 注释 😀 */ return add(1, 2) + (s != 0);\nutil.c\n  3: int add(int a, int b) { return a + b; }")
	if got := s.mustCall(t, "symbols", fmtArgs("query", "add")).Text; !strings.Contains(got, "util.c:3 function add") {
		t.Fatalf("symbols query:\n%s", got)
	}
	wantEqual(t, "outline", s.mustCall(t, "symbols", fmtArgs("path", "util.c")).Text, "util.c:\n3: function add")

	// An undefined name after the emoji and CJK: clangd's message in the
	// same result, at the right column.
	res := s.mustCall(t, "edit_file", fmtArgs("path", "main.c", "old_string", "add(1, 2)", "new_string", "add(1, undefinedThing)"))
	wantSuffix(t, "edit result", res.Text, "main.c:4: Use of undeclared identifier 'undefinedThing'")
	line := "\tconst char *s = \"😀 漢字\"; /* 注释 😀 */ return add(1, undefinedThing) + (s != 0);"
	col := utf8.RuneCountInString(line[:strings.Index(line, "undefinedThing")]) + 1
	wantEqual(t, "diagnostics", s.mustCall(t, "diagnostics", fmtArgs("path", "main.c")).Text,
		fmt.Sprintf("main.c:4:%d: error: Use of undeclared identifier 'undefinedThing'", col))
	res = s.mustCall(t, "edit_file", fmtArgs("path", "main.c", "old_string", "undefinedThing", "new_string", "2"))
	wantSuffix(t, "fix result", res.Text, "\n\nno new problems")

	// A change in util.h that breaks both files including it: clangd
	// (--use-dirty-headers) rebuilds them against the proposal's header.
	res = s.mustCall(t, "edit_file", fmtArgs("path", "include/util.h", "old_string", "int add(int a, int b);", "new_string", "int add(int a, int b, int c);"))
	wantSuffix(t, "cross-file result", res.Text, "this change introduced 2 problems; fix them before finishing:\n"+
		"main.c:4: Too few arguments to function call, expected 3, have 2\nutil.c:3: Conflicting types for 'add'")
	res = s.mustCall(t, "edit_file", fmtArgs("path", "include/util.h", "old_string", "int add(int a, int b, int c);", "new_string", "int add(int a, int b);"))
	wantSuffix(t, "revert result", res.Text, "\n\nno new problems")
	if n := s.run.Outstanding(); n != 0 {
		t.Fatalf("outstanding after the revert = %d", n)
	}

	// util.h keeps its length (add → sum), within a second of its last
	// text: clangd must still rebuild main.c and util.c against it.
	res = s.mustCall(t, "rename", fmtArgs("path", "main.c", "line", 4, "symbol", "add", "new_name", "sum"))
	if !strings.HasPrefix(res.Text, "Renamed add to sum in 3 file(s):") || !strings.HasSuffix(res.Text, "\n\nno new problems") {
		t.Fatalf("rename result:\n%s", res.Text)
	}
	if st, _ := s.env.Changes.Get(root + "/main.c"); !strings.Contains(st.Text, "/* 注释 😀 */ return sum(1, 2) + (s != 0);") {
		t.Fatalf("main.c staged: %q", st.Text)
	}
	for _, f := range []string{"include/util.h", "util.c"} {
		if st, _ := s.env.Changes.Get(root + "/" + f); !strings.Contains(st.Text, "int sum(int a, int b)") || strings.Contains(st.Text, "add") {
			t.Fatalf("%s staged: %q", f, st.Text)
		}
	}
}

// cppProject is a C++ library in a folder of its own with its own
// compile_flags.txt (clangd takes the nearest one above each file).
var cppProject = map[string]string{
	"geo/compile_flags.txt": "-std=c++17\n-Wall\n",
	"geo/shape.hpp":         "#pragma once\n\nnamespace geo {\nstruct Square {\n  double side;\n  double area() const;\n};\n}  // namespace geo\n",
	"geo/shape.cpp":         "#include \"shape.hpp\"\n\nnamespace geo {\ndouble Square::area() const { return side * side; }\n}  // namespace geo\n",
	"geo/main.cpp":          "#include \"shape.hpp\"\n\nint main() {\n  geo::Square sq{2};\n  return static_cast<int>(sq.area());\n}\n",
}

// TestClangdCpp: a method across a header and two sources.
func TestClangdCpp(t *testing.T) {
	leakCheck(t)
	root := workspaceOf(t, cppProject)
	s := realSetup(t, root, "clangd")
	for _, f := range []string{"geo/shape.hpp", "geo/shape.cpp", "geo/main.cpp"} {
		s.mustCall(t, "read_file", fmtArgs("path", f))
	}
	wantEqual(t, "definition", s.mustCall(t, "definition", fmtArgs("path", "geo/main.cpp", "line", 5, "symbol", "sq.area")).Text,
		"geo/shape.cpp:4: double Square::area() const { return side * side; }")
	wantEqual(t, "references", s.mustCall(t, "references", fmtArgs("path", "geo/shape.hpp", "line", 6, "symbol", "area")).Text,
		"3 reference(s) in 3 file(s):\ngeo/main.cpp\n  5: return static_cast<int>(sq.area());\ngeo/shape.cpp\n  4: double Square::area() const { return side * side; }\ngeo/shape.hpp\n  6: double area() const;")
	wantEqual(t, "outline", s.mustCall(t, "symbols", fmtArgs("path", "geo/shape.hpp")).Text, "geo/shape.hpp:\n3: namespace geo\n  4: class Square\n    5: field side\n    6: method area")

	res := s.mustCall(t, "edit_file", fmtArgs("path", "geo/main.cpp", "old_string", "sq.area()", "new_string", "sq.perimeter()"))
	wantSuffix(t, "edit result", res.Text, "geo/main.cpp:5: No member named 'perimeter' in 'geo::Square'")
	res = s.mustCall(t, "edit_file", fmtArgs("path", "geo/main.cpp", "old_string", "sq.perimeter()", "new_string", "sq.area()"))
	wantSuffix(t, "fix result", res.Text, "\n\nno new problems")

	res = s.mustCall(t, "rename", fmtArgs("path", "geo/main.cpp", "line", 5, "symbol", "area", "new_name", "surface"))
	if !strings.HasPrefix(res.Text, "Renamed area to surface in 3 file(s):") || !strings.HasSuffix(res.Text, "\n\nno new problems") {
		t.Fatalf("rename result:\n%s", res.Text)
	}
	for _, f := range []string{"geo/main.cpp", "geo/shape.cpp", "geo/shape.hpp"} {
		if st, _ := s.env.Changes.Get(root + "/" + f); !strings.Contains(st.Text, "surface()") || strings.Contains(st.Text, "area") {
			t.Fatalf("%s staged: %q", f, st.Text)
		}
	}
}

// TestClangdWithoutFlags: the same project without its compile_flags.txt,
// as docs/language-servers.md tells users: clangd compiles each file
// alone and cannot find the header, an error there before any edit.
func TestClangdWithoutFlags(t *testing.T) {
	leakCheck(t)
	files := maps.Clone(cProject)
	delete(files, "compile_flags.txt")
	root := workspaceOf(t, files)
	s := realSetup(t, root, "clangd")
	got := s.mustCall(t, "diagnostics", fmtArgs("path", "main.c")).Text
	if !strings.HasPrefix(got, "main.c:1:10: error: 'util.h' file not found") {
		t.Fatalf("diagnostics without compile_flags.txt:\n%s", got)
	}
}
