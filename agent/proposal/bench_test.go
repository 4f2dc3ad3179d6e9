package proposal

import (
	"fmt"
	"strings"
	"testing"

	"github.com/agentls/agentls/internal/text"
)

// benchFile is a 2000-line Go-like file with a non-ASCII comment every 50
// lines; benchProposal changes 6 spread-out places of it.
func benchFile() string {
	var b strings.Builder
	for i := range 2000 {
		if i%50 == 0 {
			fmt.Fprintf(&b, "// section %d — 😀 注释\n", i)
		} else {
			fmt.Fprintf(&b, "\tx%d := compute(%d, \"value\")\n", i, i)
		}
	}
	return b.String()
}

func benchProposal(base string, salt int) string {
	ls := strings.SplitAfter(base, "\n")
	for k := range 6 {
		i := 100 + k*300 + salt%50
		ls[i] = fmt.Sprintf("\tx%d := computeFaster(%d) // run %d\n", i, i, salt)
	}
	return strings.Join(ls, "")
}

// storeWith50Files: 50 files, one proposal of 6 hunks each.
func storeWith50Files(b *testing.B) (*Store, string) {
	base := benchFile()
	s := New()
	for i := range 50 {
		s.Put(fmt.Sprintf("run%d", i), fmt.Sprintf("file%02d.go", i), base, ver(1), benchProposal(base, i), false)
	}
	return s, base
}

// storeWith50Runs: one file, 50 runs' proposals (300 hunks).
func storeWith50Runs(b *testing.B) (*Store, string) {
	base := benchFile()
	s := New()
	for i := range 50 {
		s.Put(fmt.Sprintf("run%d", i), "main.go", base, ver(1), benchProposal(base, i), false)
	}
	return s, base
}

func BenchmarkList(b *testing.B) {
	s, _ := storeWith50Files(b)
	b.Run("one-file-of-50", func(b *testing.B) {
		for b.Loop() {
			if len(s.List("file07.go")) != 1 {
				b.Fatal("missing")
			}
		}
	})
	b.Run("one-file-of-50-lsp-utf16", func(b *testing.B) {
		for b.Loop() {
			if len(s.ListLSP("file07.go", text.UTF16)) != 1 {
				b.Fatal("missing")
			}
		}
	})
	b.Run("all-50-files", func(b *testing.B) {
		for b.Loop() {
			if len(s.List("")) != 50 {
				b.Fatal("missing")
			}
		}
	})
	r, _ := storeWith50Runs(b)
	b.Run("one-file-50-runs-lsp-utf16", func(b *testing.B) {
		for b.Loop() {
			if len(r.ListLSP("main.go", text.UTF16)) != 50 {
				b.Fatal("missing")
			}
		}
	})
}

func BenchmarkHunksAt(b *testing.B) {
	s, base := storeWith50Files(b)
	ix := text.NewIndex(base)
	cursor := text.Range{Start: text.Position{Line: 407, Character: 5}, End: text.Position{Line: 407, Character: 5}}
	off := ix.Offset(cursor.Start, text.UTF16)
	b.Run("bytes-50-files", func(b *testing.B) {
		for b.Loop() {
			if len(s.HunksAt("file07.go", off, off)) != 1 {
				b.Fatal("no hunk at the cursor")
			}
		}
	})
	b.Run("lsp-utf16-50-files", func(b *testing.B) {
		for b.Loop() {
			if len(s.HunksAtLSP("file07.go", cursor, text.UTF16)) != 1 {
				b.Fatal("no hunk at the cursor")
			}
		}
	})
	r, _ := storeWith50Runs(b)
	b.Run("lsp-utf16-one-file-50-runs", func(b *testing.B) {
		for b.Loop() {
			if len(r.HunksAtLSP("main.go", cursor, text.UTF16)) != 1 {
				b.Fatal("no hunk at the cursor")
			}
		}
	})
	id := s.Select(Filter{Path: "file07.go"})[2].ID
	b.Run("hunk-by-id", func(b *testing.B) {
		for b.Loop() {
			if _, ok := s.Hunk(id); !ok {
				b.Fatal("missing")
			}
		}
	})
}

// BenchmarkKeystroke is the didChange path: one character typed outside
// the hunks, in a 2000-line file carrying 50 runs' proposals (300 hunks).
func BenchmarkKeystroke(b *testing.B) {
	r, base := storeWith50Runs(b)
	line := 1000
	ix := text.NewIndex(base)
	b.Run("lsp-incremental", func(b *testing.B) {
		for i := 0; b.Loop(); i++ {
			p := text.Position{Line: uint32(line), Character: 1}
			rg := text.Range{Start: p, End: p}
			ch := text.Change{Range: &rg, Text: "y"}
			if i%2 == 1 { // type, then delete, so the text stays bounded
				rg.End.Character++
				ch.Text = ""
			}
			rev, _ := r.Revision("main.go")
			if err := r.DocumentChangedLSP("main.go", rev, ver(int32(i)), []text.Change{ch}, text.UTF16); err != nil {
				b.Fatal(err)
			}
		}
	})
	// A keystroke followed by a listing with ranges, as an editor that asks
	// for code lenses after every edit makes: the listing pays for joining
	// the text once per edit.
	b.Run("lsp-incremental-then-list", func(b *testing.B) {
		for i := 0; b.Loop(); i++ {
			p := text.Position{Line: uint32(line), Character: 1}
			rg := text.Range{Start: p, End: p}
			ch := text.Change{Range: &rg, Text: "y"}
			if i%2 == 1 {
				rg.End.Character++
				ch.Text = ""
			}
			rev, _ := r.Revision("main.go")
			if err := r.DocumentChangedLSP("main.go", rev, ver(int32(i)), []text.Change{ch}, text.UTF16); err != nil {
				b.Fatal(err)
			}
			if len(r.ListLSP("main.go", text.UTF16)) != 50 {
				b.Fatal("missing")
			}
		}
	})
	b.Run("full-text-diff", func(b *testing.B) {
		off := ix.LineStart(line) + 1
		typed := base[:off] + "y" + base[off:]
		for i := 0; b.Loop(); i++ {
			if i%2 == 0 {
				r.DocumentChanged("main.go", ver(int32(i)), typed)
			} else {
				r.DocumentChanged("main.go", ver(int32(i)), base)
			}
		}
	})
	if hs := r.Select(Filter{}); len(hs) != 300 || hs[0].Status != StatusPending {
		b.Fatalf("hunks after typing: %d", len(hs))
	}
}

func BenchmarkAccept(b *testing.B) {
	s, _ := storeWith50Files(b)
	id := s.Select(Filter{Path: "file07.go"})[2].ID
	b.Run("one-hunk", func(b *testing.B) {
		for b.Loop() {
			plan, err := s.Accept(Filter{HunkID: id}, text.UTF16)
			if err != nil || plan.Empty() {
				b.Fatal(err, plan.Conflicts)
			}
			s.Failed(plan, "bench")
		}
	})
	// Accept all of one file holding 50 runs' proposals (300 hunks, many
	// of them touching the same lines): every pair is checked for a clash
	// (clash.go) and the victims of the hunks taken are listed.
	r, _ := storeWith50Runs(b)
	b.Run("all-one-file-50-runs", func(b *testing.B) {
		for b.Loop() {
			plan, err := r.Accept(Filter{Path: "main.go"}, text.UTF16)
			if err != nil || plan.Empty() {
				b.Fatal(err, plan.Conflicts)
			}
			r.Failed(plan, "bench")
		}
	})
}

func BenchmarkPut(b *testing.B) {
	base := benchFile()
	proposed := benchProposal(base, 3)
	s := New()
	for b.Loop() {
		s.Put("run", "main.go", base, ver(1), proposed, false)
	}
}
