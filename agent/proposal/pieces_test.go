package proposal

import (
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/aymanbagabas/go-udiff"
)

// checkSource asserts that src reads exactly as want: length, every byte,
// slices and HasAt at many offsets (including across pieces and out of
// bounds).
func checkSource(t *testing.T, r *rand.Rand, src source, want string) {
	t.Helper()
	if src.Len() != len(want) {
		t.Fatalf("Len %d, want %d", src.Len(), len(want))
	}
	for i := range len(want) {
		if src.At(i) != want[i] {
			t.Fatalf("At(%d) = %q, want %q in %q", i, src.At(i), want[i], want)
		}
	}
	for range 40 {
		a := r.IntN(len(want) + 1)
		b := a + r.IntN(len(want)-a+1)
		if got := src.Slice(a, b); got != want[a:b] {
			t.Fatalf("Slice(%d, %d) = %q, want %q", a, b, got, want[a:b])
		}
		if !src.HasAt(a, want[a:b]) {
			t.Fatalf("HasAt(%d, %q) = false", a, want[a:b])
		}
		if b > a {
			wrong := want[a:b-1] + string(want[b-1]^1)
			if src.HasAt(a, wrong) {
				t.Fatalf("HasAt(%d, %q) = true, text holds %q", a, wrong, want[a:b])
			}
		}
		if src.HasAt(a, want[a:]+"x") || src.HasAt(-1, "") {
			t.Fatalf("HasAt past the bounds = true")
		}
	}
	if !equalText(src, want) || equalText(src, want+"x") {
		t.Fatal("equalText disagrees")
	}
}

// TestPiecesMatchAString edits pieces and a plain string the same way —
// typing runs at one place, random jumps, deletions across pieces, pastes
// past the merge limit, enough edits to pass maxPieces — and checks that
// they always read the same, and so does a spliced view of the next edit.
func TestPiecesMatchAString(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 2))
	words := []string{"", "x", "é", "😀", "\r\n", "\n", "ab\ncd", strings.Repeat("long line\n", 20)}
	var p pieces
	want := ""
	p.set(want)
	at := 0
	maxSeen := 0
	for step := range 3000 {
		if step%500 == 0 {
			want = strings.Repeat("line of text\n", 50+r.IntN(50))
			p.set(want)
		}
		at = min(at, len(want)) // keep typing where the last edit ended
		if r.IntN(4) == 0 {     // or jump
			at = r.IntN(len(want) + 1)
		}
		end := at
		if r.IntN(3) == 0 {
			end = min(len(want), at+r.IntN(300))
		}
		ins := words[r.IntN(len(words))]
		e := udiff.Edit{Start: at, End: end, New: ins}
		next := want[:at] + ins + want[end:]
		if step%25 == 0 {
			checkSource(t, r, spliced{old: &p, e: e}, next)
		}
		p.replace(at, end, ins)
		if p.long() { // as the store does
			_ = p.String()
		}
		want = next
		at += len(ins)
		maxSeen = max(maxSeen, len(p.ps))
		if len(p.ps) != len(p.ends) || len(p.ps) > maxPieces {
			t.Fatalf("step %d: %d pieces, %d ends", step, len(p.ps), len(p.ends))
		}
		for i, s := range p.ps {
			if s == "" {
				t.Fatalf("step %d: empty piece %d", step, i)
			}
		}
		if step%10 == 0 {
			checkSource(t, r, &p, want)
		}
		if step%397 == 0 {
			if got := p.String(); got != want || len(p.ps) > 1 {
				t.Fatalf("step %d: String gives %d bytes in %d pieces", step, len(got), len(p.ps))
			}
		}
	}
	if maxSeen < 10 {
		t.Fatalf("at most %d pieces: the test never split much", maxSeen)
	}
}

// TestPiecesLong: random keystrokes all over a large text make the list
// long after about maxPieces/2 of them, and it reads right before and
// after the join.
func TestPiecesLong(t *testing.T) {
	r := rand.New(rand.NewPCG(5, 6))
	want := strings.Repeat("some line of text\n", 5000)
	var p pieces
	p.set(want)
	n := 0
	for ; !p.long(); n++ {
		at := r.IntN(len(want) + 1)
		p.replace(at, at, "y")
		want = want[:at] + "y" + want[at:]
	}
	if n < maxPieces/2 || n > maxPieces {
		t.Fatalf("long after %d random keystrokes", n)
	}
	checkSource(t, r, &p, want)
	if p.String() != want || len(p.ps) != 1 {
		t.Fatalf("String left %d pieces", len(p.ps))
	}
	checkSource(t, r, &p, want)
}

// TestPiecesTypingGrowsOnePiece: typing at one place and deleting what was
// typed keeps the list short (the small pieces merge).
func TestPiecesTypingGrowsOnePiece(t *testing.T) {
	var p pieces
	base := strings.Repeat("0123456789\n", 1000)
	p.set(base)
	at := 5000
	for i := range 100 {
		p.replace(at+i, at+i, "y")
	}
	for i := 99; i >= 50; i-- {
		p.replace(at+i, at+i+1, "")
	}
	if want := base[:at] + strings.Repeat("y", 50) + base[at:]; p.String() != want {
		t.Fatal("text differs")
	}
	p.set(base)
	for i := range 100 {
		p.replace(at+i, at+i, "y")
	}
	if len(p.ps) > 4 {
		t.Fatalf("100 keystrokes at one place made %d pieces", len(p.ps))
	}
}

// TestSplicedEdges reads spliced views of edits at the start and end of a
// text, of an empty text, and of a deletion of everything.
func TestSplicedEdges(t *testing.T) {
	r := rand.New(rand.NewPCG(3, 4))
	for _, c := range []struct {
		old string
		e   udiff.Edit
	}{
		{"", udiff.Edit{New: "abc"}},
		{"abc", udiff.Edit{Start: 0, End: 3}},
		{"abc", udiff.Edit{Start: 0, End: 0, New: "x"}},
		{"abc", udiff.Edit{Start: 3, End: 3, New: "x\n"}},
		{"a\nb\n", udiff.Edit{Start: 1, End: 3, New: "😀"}},
	} {
		var p pieces
		p.set(c.old)
		want := c.old[:c.e.Start] + c.e.New + c.old[c.e.End:]
		checkSource(t, r, spliced{old: &p, e: c.e}, want)
		checkSource(t, r, spliced{old: strText(c.old), e: c.e}, want)
	}
}
