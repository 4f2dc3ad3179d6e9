package workspace

import (
	"errors"
	"os"
	"path/filepath"
	"reflect"
	"testing"

	"github.com/agentls/agentls/internal/text"
)

func rng(l1, c1, l2, c2 uint32) *text.Range {
	return &text.Range{Start: text.Position{Line: l1, Character: c1}, End: text.Position{Line: l2, Character: c2}}
}

func TestOverlayShadowsDisk(t *testing.T) {
	v, root := newTestView(t, Options{})
	p := filepath.Join(root, "a.go")
	writeFile(t, p, "disk\n")
	if s := mustRead(t, v, "a.go"); s.Text != "disk\n" || s.Open || s.Version != nil {
		t.Fatalf("before open: %+v", s)
	}
	ev := record(t, v)
	v.Open(p, 3, "buffer\n")
	s := mustRead(t, v, "a.go")
	if s.Text != "buffer\n" || !s.Open || s.Version == nil || *s.Version != 3 || s.Path != p || s.Key != p {
		t.Fatalf("after open: %+v", s)
	}
	if s.Hash != hashString("buffer\n") || s.Size != int64(len("buffer\n")) {
		t.Fatalf("hash/size of overlay: %+v", s)
	}
	if got := ev.take(); !reflect.DeepEqual(got, []Event{{Path: p, Kind: Changed, Buffer: true}}) {
		t.Fatalf("open events: %+v", got)
	}
	v.Close(p)
	if s := mustRead(t, v, p); s.Text != "disk\n" || s.Open {
		t.Fatalf("after close: %+v", s)
	}
	if got := ev.take(); !reflect.DeepEqual(got, []Event{{Path: p, Kind: Changed, Buffer: true}}) {
		t.Fatalf("close events: %+v", got)
	}
	if _, ok := v.Overlay(p); ok {
		t.Fatal("overlay still present after Close")
	}
	v.Close(p) // closing twice is harmless
}

func TestOverlayIncrementalChangesUTF16(t *testing.T) {
	v, root := newTestView(t, Options{})
	p := filepath.Join(root, "u.txt")
	// Emoji is 2 UTF-16 units, CJK 1, CRLF line endings, a tab.
	v.Open(p, 1, "a😀b\r\n\t漢字x\r\n")
	ev := record(t, v)
	err := v.Change(p, 2, []text.Change{
		{Range: rng(0, 3, 0, 4), Text: "B"},  // replace "b" after the emoji
		{Range: rng(1, 3, 1, 4), Text: "Y"},  // replace "x" after tab+2 CJK
		{Range: rng(1, 0, 1, 0), Text: "> "}, // insert at line start (after the previous change)
	}, text.UTF16)
	if err != nil {
		t.Fatal(err)
	}
	s, _ := v.Overlay(p)
	if want := "a😀B\r\n> \t漢字Y\r\n"; s.Text != want || *s.Version != 2 {
		t.Fatalf("got %q v%d, want %q v2", s.Text, *s.Version, want)
	}
	if s.Hash != hashString(s.Text) {
		t.Fatal("hash does not match text after change")
	}
	// Same edit in UTF-8 units: the emoji is 4 bytes.
	if err := v.Change(p, 3, []text.Change{{Range: rng(0, 5, 0, 6), Text: "c"}}, text.UTF8); err != nil {
		t.Fatal(err)
	}
	if s, _ := v.Overlay(p); s.Text != "a😀c\r\n> \t漢字Y\r\n" {
		t.Fatalf("utf-8 change: %q", s.Text)
	}
	// Full replacement (nil range).
	if err := v.Change(p, 4, []text.Change{{Text: "new"}}, text.UTF16); err != nil {
		t.Fatal(err)
	}
	if s, _ := v.Overlay(p); s.Text != "new" {
		t.Fatalf("full change: %q", s.Text)
	}
	if got := ev.take(); len(got) != 3 || !got[0].Buffer || got[0].Path != p {
		t.Fatalf("change events: %+v", got)
	}
	// A change that leaves the text as it was emits nothing.
	if err := v.Change(p, 5, []text.Change{{Text: "new"}}, text.UTF16); err != nil {
		t.Fatal(err)
	}
	if got := ev.take(); len(got) != 0 {
		t.Fatalf("no-op change emitted %+v", got)
	}
}

func TestOverlayChangeErrors(t *testing.T) {
	v, root := newTestView(t, Options{})
	p := filepath.Join(root, "x.txt")
	if err := v.Change(p, 1, []text.Change{{Text: "x"}}, text.UTF16); !errors.Is(err, ErrNotOpen) {
		t.Fatalf("change of unopened doc: %v", err)
	}
	v.Open(p, 5, "hello")
	// Invalid UTF-8 in a change is refused and the buffer kept as it was.
	if err := v.Change(p, 6, []text.Change{{Text: "\xff"}}, text.UTF16); err == nil {
		t.Fatal("invalid UTF-8 change accepted")
	}
	if s, _ := v.Overlay(p); s.Text != "hello" || *s.Version != 5 {
		t.Fatalf("buffer after failed change: %q v%d", s.Text, *s.Version)
	}
	// A lower version is accepted (and logged): the editor owns the buffer.
	if err := v.Change(p, 2, []text.Change{{Range: rng(0, 5, 0, 5), Text: "!"}}, text.UTF16); err != nil {
		t.Fatal(err)
	}
	if s, _ := v.Overlay(p); s.Text != "hello!" || *s.Version != 2 {
		t.Fatalf("lower version: %q v%d", s.Text, *s.Version)
	}
	// Open sanitises invalid UTF-8 so Snapshot.Text stays valid.
	v.Open(p, 7, "a\xffb")
	if s, _ := v.Overlay(p); s.Text != "a\uFFFDb" {
		t.Fatalf("invalid open text: %q", s.Text)
	}
}

func TestOverlaySymlinkSameFile(t *testing.T) {
	v, root := newTestView(t, Options{})
	target := filepath.Join(root, "real.go")
	link := filepath.Join(root, "link.go")
	writeFile(t, target, "disk")
	if err := os.Symlink("real.go", link); err != nil {
		t.Fatal(err)
	}
	// Opened through the link: found through the target and vice versa.
	v.Open(link, 1, "buf")
	for _, k := range []string{link, target, root + "/./link.go"} {
		s, ok := v.Overlay(k)
		if !ok || s.Text != "buf" || s.Path != target || s.Key != link {
			t.Fatalf("Overlay(%s) = %+v, %v", k, s, ok)
		}
	}
	if s := mustRead(t, v, "link.go"); s.Text != "buf" {
		t.Fatalf("Read via link: %q", s.Text)
	}
	if s := mustRead(t, v, "real.go"); s.Text != "buf" {
		t.Fatalf("Read via target: %q", s.Text)
	}
	if err := v.Change(target, 2, []text.Change{{Text: "buf2"}}, text.UTF16); err != nil {
		t.Fatal(err)
	}
	if s, _ := v.Overlay(link); s.Text != "buf2" {
		t.Fatalf("change via target not seen via link: %q", s.Text)
	}
	v.Close(target)
	if _, ok := v.Overlay(link); ok {
		t.Fatal("close via target left the link's overlay")
	}
	// Opened through the target: found through the link.
	v.Open(target, 1, "t")
	if s, ok := v.Overlay(link); !ok || s.Text != "t" {
		t.Fatalf("Overlay(link) after opening target: %+v %v", s, ok)
	}
}

func TestOverlayNonFileKey(t *testing.T) {
	v, _ := newTestView(t, Options{})
	v.Open("untitled:Untitled-1", 1, "scratch")
	s, ok := v.Overlay("untitled:Untitled-1")
	if !ok || s.Text != "scratch" || s.Path != "untitled:Untitled-1" {
		t.Fatalf("untitled overlay: %+v %v", s, ok)
	}
	if err := v.Change("untitled:Untitled-1", 2, []text.Change{{Range: rng(0, 0, 0, 0), Text: "my "}}, text.UTF16); err != nil {
		t.Fatal(err)
	}
	if s, _ := v.Overlay("untitled:Untitled-1"); s.Text != "my scratch" {
		t.Fatalf("got %q", s.Text)
	}
	// Not reachable as a path.
	if _, err := v.Read("untitled:Untitled-1"); err == nil {
		t.Fatal("non-file overlay reachable through Read")
	}
}

func TestOverlayNewFileNotOnDisk(t *testing.T) {
	v, root := newTestView(t, Options{})
	p := filepath.Join(root, "sub", "new.go")
	v.Open(p, 1, "package sub\n")
	if s := mustRead(t, v, "sub/new.go"); s.Text != "package sub\n" || !s.Open {
		t.Fatalf("%+v", s)
	}
	if paths := v.OpenPaths(); !reflect.DeepEqual(paths, []string{p}) {
		t.Fatalf("OpenPaths = %v", paths)
	}
}
