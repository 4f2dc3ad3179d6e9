package lspserver_test

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"go.lsp.dev/uri"

	"github.com/agentls/agentls/lspserver"
	"github.com/agentls/agentls/lspserver/lsptest"
)

// TestCloseEmptiesDocumentMaps: opening, editing and closing many
// documents (some through a symlinked directory, some untitled) leaves
// every map keyed by document empty, so closing returns their memory.
func TestCloseEmptiesDocumentMaps(t *testing.T) {
	s := newSession(t, lsptest.InitOptions{}, lspserver.Options{})
	ctx := lsptest.Context(t)
	real := filepath.Join(s.root, "real")
	if err := os.Mkdir(real, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(real, filepath.Join(s.root, "link")); err != nil {
		t.Fatal(err)
	}
	body := strings.Repeat("line of text\n", 50)
	var uris []uri.URI
	for i := range 600 {
		var u uri.URI
		switch i % 3 {
		case 0:
			u = s.uri(fmt.Sprintf("d%d.go", i))
		case 1:
			name := fmt.Sprintf("l%d.go", i)
			if err := os.WriteFile(filepath.Join(real, name), []byte(body), 0o644); err != nil {
				t.Fatal(err)
			}
			u = uri.File(filepath.Join(s.root, "link", name))
		default:
			u = uri.URI(fmt.Sprintf("untitled:Untitled-%d", i))
		}
		uris = append(uris, u)
		if err := s.c.DidOpen(ctx, u, "go", 1, body); err != nil {
			t.Fatal(err)
		}
		if err := s.c.DidChange(ctx, u, 2, lsptest.Partial(1, 0, 1, 4, "LINE")); err != nil {
			t.Fatal(err)
		}
	}
	checkDoc(t, s, uris[1], 2, "line of text\nLINE of text\n"+strings.Repeat("line of text\n", 48), "a symlinked document while open")
	open := lspserver.DocumentMapSizes(s.srv)
	if open["view.overlays"] != len(uris) || open["view.aliases"] == 0 || open["docs.alias"] == 0 {
		t.Fatalf("while open: %v, want %d buffers and symlink aliases", open, len(uris))
	}
	for _, u := range uris {
		if err := s.c.DidClose(ctx, u); err != nil {
			t.Fatal(err)
		}
	}
	if _, err := s.c.Document(ctx, uris[0]); err == nil {
		t.Fatal("a closed document without a file on disk is still served")
	}
	for name, n := range lspserver.DocumentMapSizes(s.srv) {
		if n != 0 {
			t.Errorf("%s holds %d entries after every document was closed (while open: %v)", name, n, open)
		}
	}
}
