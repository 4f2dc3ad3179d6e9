package lang

import (
	"context"
	"fmt"
	"slices"
	"time"

	"go.lsp.dev/protocol"
	"go.lsp.dev/uri"
)

// syncDoc makes the server hold content for path: didOpen the first time,
// else a whole-text didChange when it differs (both work with every server
// tried, and whole text cannot drift). It returns the document's version
// and whether anything was sent. Called with c.use held.
func (c *client) syncDoc(ctx context.Context, path, content string) (int32, bool, error) {
	c.awaitNewStamp(ctx, path, content)
	c.mu.Lock()
	c.tick++
	d := c.docs[path]
	if d != nil {
		d.used = c.tick
		if d.text == content {
			c.mu.Unlock()
			return d.version, false, nil
		}
		d.version++
		d.samePreamble = c.cfg.Name == "clangd" && slices.Equal(directives(d.text), directives(content))
		d.text = content
		v, u := d.version, d.uri
		c.mu.Unlock()
		err := c.srv.DidChange(ctx, &protocol.DidChangeTextDocumentParams{
			TextDocument:   protocol.VersionedTextDocumentIdentifier{TextDocumentIdentifier: protocol.TextDocumentIdentifier{URI: u}, Version: v},
			ContentChanges: []protocol.TextDocumentContentChangeEvent{&protocol.TextDocumentContentChangeWholeDocument{Text: content}},
		})
		c.stamp(path, len(content))
		if err != nil {
			return v, true, c.sendError(err)
		}
		return v, true, nil
	}
	// clangd builds a file it opens preamble first: one publication.
	d = &doc{uri: uri.File(path), version: 1, text: content, used: c.tick, samePreamble: true}
	c.docs[path] = d
	evict := c.evictLocked(path)
	c.mu.Unlock()
	for _, e := range evict {
		_ = c.srv.DidClose(ctx, &protocol.DidCloseTextDocumentParams{TextDocument: protocol.TextDocumentIdentifier{URI: e}})
	}
	err := c.srv.DidOpen(ctx, &protocol.DidOpenTextDocumentParams{TextDocument: protocol.TextDocumentItem{
		URI: d.uri, LanguageID: protocol.LanguageKind(languageID(path)), Version: 1, Text: content,
	}})
	c.stamp(path, len(content))
	if err != nil {
		return 1, true, c.sendError(err)
	}
	return 1, true, nil
}

// resend sends the text the server holds for path again as a new
// version, so that what the server publishes for that version reflects
// every change sent before it. Called with c.use held.
func (c *client) resend(ctx context.Context, path string) error {
	c.mu.Lock()
	d := c.docs[path]
	if d == nil {
		c.mu.Unlock()
		return nil
	}
	d.version++
	v, u, content := d.version, d.uri, d.text
	c.mu.Unlock()
	err := c.srv.DidChange(ctx, &protocol.DidChangeTextDocumentParams{
		TextDocument:   protocol.VersionedTextDocumentIdentifier{TextDocumentIdentifier: protocol.TextDocumentIdentifier{URI: u}, Version: v},
		ContentChanges: []protocol.TextDocumentContentChangeEvent{&protocol.TextDocumentContentChangeWholeDocument{Text: content}},
	})
	if err != nil {
		return c.sendError(err)
	}
	return nil
}

// evictLocked drops the least recently used documents beyond
// maxOpenDocs (never keep), returning their URIs to close.
func (c *client) evictLocked(keep string) []uri.URI {
	var out []uri.URI
	for len(c.docs) > maxOpenDocs {
		oldest, at := "", ^uint64(0)
		for p, d := range c.docs {
			if p != keep && d.used < at {
				oldest, at = p, d.used
			}
		}
		if oldest == "" {
			break
		}
		out = append(out, c.docs[oldest].uri)
		delete(c.docs, oldest)
		delete(c.pubs, oldest)
	}
	return out
}

// closeDoc closes path if the server holds it (the file is gone).
func (c *client) closeDoc(ctx context.Context, path string) {
	c.mu.Lock()
	d := c.docs[path]
	delete(c.docs, path)
	delete(c.pubs, path)
	c.mu.Unlock()
	if d != nil {
		_ = c.srv.DidClose(ctx, &protocol.DidCloseTextDocumentParams{TextDocument: protocol.TextDocumentIdentifier{URI: d.uri}})
	}
}

// openDocs lists the paths the server holds.
func (c *client) openDocs() []string {
	c.mu.Lock()
	defer c.mu.Unlock()
	out := make([]string, 0, len(c.docs))
	for p := range c.docs {
		out = append(out, p)
	}
	return out
}

// docText returns the text the server holds for path.
func (c *client) docText(path string) (string, int32, bool) {
	c.mu.Lock()
	defer c.mu.Unlock()
	d := c.docs[path]
	if d == nil {
		return "", 0, false
	}
	return d.text, d.version, true
}

// sendError describes a failed notification: the server is gone.
func (c *client) sendError(err error) error {
	if c.isDead() {
		return c.deadErr
	}
	return fmt.Errorf("cannot reach the language server: %w", err)
}

// stampGap is how long after sending a header's text clangd may still
// take the same text size and modification second for it: clangd stamps
// an open file's text with the wall-clock second it got it (std::time),
// and reuses a file's preamble while every header in it keeps its size
// and stamp, so a header changed to a text of the same length within that
// second (a rename add → sum) went unnoticed by the files including it.
// The margin covers the time clangd takes to read the message.
const stampGap = time.Second + 100*time.Millisecond

// awaitNewStamp delays, for clangd and a header, a new text until
// stampGap has passed since every text of the same size sent for path
// within stampGap, so clangd stamps it with another second (bounded by
// ctx; the wait is at most stampGap).
func (c *client) awaitNewStamp(ctx context.Context, path, content string) {
	if c.cfg.Name != "clangd" || !isHeader(path) {
		return
	}
	n := len(content)
	c.mu.Lock()
	var wait time.Duration
	if d := c.docs[path]; d != nil && d.text != content {
		for _, s := range d.stamps {
			if s.size == n {
				wait = max(wait, stampGap-time.Since(s.at))
			}
		}
	}
	c.mu.Unlock()
	if wait <= 0 {
		return
	}
	t := time.NewTimer(wait)
	defer t.Stop()
	select {
	case <-t.C:
	case <-ctx.Done():
	}
}

// stamp records that a text of size n was (just) sent for path, keeping
// the sends of the last stampGap (clangd headers only).
func (c *client) stamp(path string, n int) {
	if c.cfg.Name != "clangd" || !isHeader(path) {
		return
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	d := c.docs[path]
	if d == nil {
		return
	}
	now := time.Now()
	c.headerSentAt = now
	d.stamps = slices.DeleteFunc(d.stamps, func(s sent) bool { return now.Sub(s.at) > stampGap })
	d.stamps = append(d.stamps, sent{at: now, size: n})
}

// sent is one text sent for a document: when, and its size in bytes.
type sent struct {
	at   time.Time
	size int
}
