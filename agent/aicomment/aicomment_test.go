package aicomment

import (
	"strings"
	"testing"
)

func TestScan(t *testing.T) {
	tests := []struct {
		name, file, doc string
		want            []string // Words of each task, in order
	}{
		{"go line comment", "a.go", "package a\n\n// add error handling agent!\nfunc f() {}\n", []string{"add error handling"}},
		{"trailing comment after code", "a.go", "x := f() // check the error, agent!\n", []string{"check the error"}},
		{"case and trailing blanks", "a.go", "// Use a map Agent!  \t\n", []string{"Use a map"}},
		{"python", "a.py", "def f():\n    # return early agent!\n    pass\n", []string{"return early"}},
		{"sql dashes", "q.sql", "SELECT 1; -- add an index agent!\n", []string{"add an index"}},
		{"lisp semicolons", "init.el", ";;; bind C-c a agent!\n", []string{"bind C-c a"}},
		{"single-line block", "a.c", "int x; /* make it const agent! */\n", []string{"make it const"}},
		{"html comment", "i.html", "<p>hi</p> <!-- translate to French agent! -->\n", []string{"translate to French"}},
		{"unknown extension takes every syntax", "notes.txt", "# one agent!\n// two agent!\n-- three agent!\n", []string{"one", "two", "three"}},
		{"makefile by name", "Makefile", "all: # add a clean target agent!\n", []string{"add a clean target"}},
		{"CRLF", "a.go", "package a\r\n// add tests agent!\r\nfunc f() {}\r\n", []string{"add tests"}},
		{"tabs", "a.go", "func f() {\n\t\t//\tinline this\tagent!\n}\n", []string{"inline this"}},
		{"CJK without a space", "a.go", "// 添加错误处理agent!\n", []string{"添加错误处理"}},
		{"CJK and emoji", "a.py", "# 🚀 优化这个循环 agent!\n", []string{"🚀 优化这个循环"}},
		{"lines above join the task", "a.go", "x := 1\n// Replace this loop\n// with a map lookup,\n//   keyed by name. agent!\n", []string{"Replace this loop with a map lookup, keyed by name."}},

		{"mid-line is not a task", "a.go", "// agent! do this\n", nil},
		{"inside a string", "a.go", "s := \"// do it agent!\"\n", nil},
		{"string then comment", "a.go", "s := \"a // b\" // real task agent!\n", []string{"real task"}},
		{"not a comment", "a.go", "fmt.Println(agent!)\nx := y // agent!\n", nil},
		{"word ending in agent", "a.go", "// add the reagent!\n", nil},
		{"go has no hash comments", "a.go", "x # not a comment agent!\n", nil},
		{"opener glued to code", "a.sql", "x-- nope agent!\n", nil},
		{"block comment left open", "a.c", "/* not closed agent!\n", nil},
		{"url is not a comment", "a.txt", "see http://example.com/agent!\n", nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := Scan(tt.doc, SyntaxFor(tt.file))
			var words []string
			for _, g := range got {
				words = append(words, g.Words)
			}
			if strings.Join(words, "|") != strings.Join(tt.want, "|") {
				t.Fatalf("Scan(%q) = %q, want %q", tt.doc, words, tt.want)
			}
		})
	}
}

func TestScanOffsets(t *testing.T) {
	doc := "package a\r\n\r\nfunc f() {\r\n\tx() // 检查 err agent!\r\n}\r\n/* one agent! */ y\r\n/* two agent! */\r\n"
	got := Scan(doc, SyntaxFor("a.go"))
	if len(got) != 2 {
		t.Fatalf("got %d tasks, want 2 (a block comment followed by code is not one): %+v", len(got), got)
	}
	a := got[0]
	if a.Line != 3 || a.FirstLine != 3 {
		t.Errorf("line %d (first %d), want 3", a.Line, a.FirstLine)
	}
	if s := doc[a.Start:a.End]; s != "// 检查 err agent!" {
		t.Errorf("range covers %q", s)
	}
	b := got[1]
	if s := doc[b.Start:b.End]; s != "/* two agent! */" || b.Line != 6 {
		t.Errorf("block task covers %q at line %d", s, b.Line)
	}

	group := "a\n  // first\n  // second agent!\n"
	g := Scan(group, SyntaxFor("a.go"))
	if len(g) != 1 || g[0].FirstLine != 1 || g[0].Line != 2 || group[g[0].Start:g[0].End] != "// first\n  // second agent!" {
		t.Fatalf("group: %+v", g)
	}
}

func TestScanBounds(t *testing.T) {
	doc := strings.Repeat("// do it agent!\n", MaxTasks+5)
	if n := len(Scan(doc, SyntaxFor("a.go"))); n != MaxTasks {
		t.Errorf("%d tasks, want at most %d", n, MaxTasks)
	}
	// Lines each ending the marker are separate tasks, not one group.
	if w := Scan(doc, SyntaxFor("a.go"))[1].Words; w != "do it" {
		t.Errorf("second task's words %q", w)
	}
	big := strings.Repeat("x", MaxDocumentBytes) + "\n// late agent!\n"
	if n := len(Scan(big, Any)); n != 0 {
		t.Errorf("a document over MaxDocumentBytes gave %d tasks", n)
	}
	long := "// " + strings.Repeat("词", MaxWordsBytes) + " agent!\n"
	w := Scan(long, Any)[0].Words
	if len(w) > MaxWordsBytes+len("…") || !strings.HasSuffix(w, "…") || !strings.HasPrefix(w, "词") {
		t.Errorf("words not clipped at a rune boundary: %d bytes, %q…", len(w), w[len(w)-8:])
	}
}

func TestPrompt(t *testing.T) {
	p := Prompt(Task{Words: "add error handling", Line: 4})
	for _, want := range []string{"add error handling", "line 5", "remove that comment"} {
		if !strings.Contains(p, want) {
			t.Errorf("prompt %q lacks %q", p, want)
		}
	}
}

func BenchmarkScanNoTask(b *testing.B) {
	doc := strings.Repeat("line of code with an agent mention but no marker here\n", 10000)
	b.SetBytes(int64(len(doc)))
	for b.Loop() {
		Scan(doc, Any)
	}
}

// FuzzScan: whatever the text, tasks lie inside it, in order, on the
// lines they name, and their range holds the marker.
func FuzzScan(f *testing.F) {
	for _, s := range []string{"// do it agent!\n", "a\r\n  # x\r\n  # y agent!\r\n", "/* z agent! */", "s := \"// q agent!\"", "-- 词agent!", "agent!"} {
		f.Add(s, "a.go")
		f.Add(s, "x.unknown")
	}
	f.Fuzz(func(t *testing.T, doc, name string) {
		prev := -1
		for _, task := range Scan(doc, SyntaxFor(name)) {
			if task.Start < 0 || task.End > len(doc) || task.Start >= task.End || task.Start < prev {
				t.Fatalf("task %+v out of place in %q", task, doc)
			}
			prev = task.End
			if !strings.Contains(strings.ToLower(doc[task.Start:task.End]), Marker) {
				t.Fatalf("task %+v covers %q", task, doc[task.Start:task.End])
			}
			if got := strings.Count(doc[:task.Start], "\n"); got != task.FirstLine {
				t.Fatalf("task %+v: Start is on line %d", task, got)
			}
			if task.Words == "" {
				t.Fatalf("task without words in %q", doc)
			}
		}
	})
}

func TestFindIn(t *testing.T) {
	doc := strings.Repeat("x := 1\n", 12) + "// Replace this loop\n// with a map lookup. agent!\n" + "y := 2\n"
	got := FindIn("a.go", doc)
	if len(got) != 1 {
		t.Fatalf("FindIn found %d tasks, want 1: %+v", len(got), got)
	}
	f := got[0]
	if f.FirstLine != 12 || f.Line != 13 || f.Words != "Replace this loop with a map lookup." {
		t.Fatalf("task = %+v", f.Task)
	}
	if f.ContextFrom != 2 || f.ContextTo != 23 {
		t.Fatalf("context lines %d..%d, want 2..23 (ContextLines either side)", f.ContextFrom, f.ContextTo)
	}
	if f.Title != "Agent: Replace this loop with a map lookup." {
		t.Fatalf("title = %q", f.Title)
	}
	if f.Message != "Task for the agent: Replace this loop with a map lookup. (code action “Agent: Replace this loop with a map lookup.” runs it)" {
		t.Fatalf("message = %q", f.Message)
	}
	if f.Prompt != Prompt(f.Task) || !strings.Contains(f.Prompt, "(line 14)") {
		t.Fatalf("prompt = %q", f.Prompt)
	}

	top := FindIn("a.py", "# do it agent!\n")
	if len(top) != 1 || top[0].ContextFrom != 0 || top[0].ContextTo != ContextLines {
		t.Fatalf("a task on the first line: %+v", top)
	}
	long := FindIn("a.go", "// "+strings.Repeat("word ", 40)+"agent!\n")
	if len(long) != 1 || len(long[0].Title) > len("Agent: ")+maxTitleBytes+len("…") || !strings.HasSuffix(long[0].Title, "…") {
		t.Fatalf("long title not clipped: %q", long[0].Title)
	}
	if FindIn("a.go", "package a\n") != nil {
		t.Fatal("a document without tasks gave some")
	}
}
