package review

import (
	"time"

	"go.lsp.dev/protocol"
)

// Document diagnostics: diagnostics another part computes from an open
// document's text (the runs part's task comments), published by the
// preview publisher together with the document's hunks. A client keeps
// one list per document and server, and every publishDiagnostics replaces
// it, so two publishers of one server would erase each other's entries:
// there is one publisher, and every source goes through it.
//
// didOpen scans at once; typing scans once the user pauses for scanDelay,
// so a keystroke costs a map insert and a timer reset (BenchmarkDidChange),
// and the text is copied only when the scan runs. Between a change and
// its scan, a republication (a hunk decided) reuses the latest result.

// scanDelay is the pause after the last keystroke before a document is
// scanned again.
const scanDelay = 300 * time.Millisecond

// DocumentDiagnostics computes the diagnostics of the document at path
// from content, its open buffer's text; it runs on the publisher's
// goroutine. Once the document is closed it is called with open false
// (and no content), to drop what it kept of it: that call runs on the
// read loop (didClose) and must be quick.
type DocumentDiagnostics func(path, content string, open bool) []protocol.Diagnostic

// AddDocumentDiagnostics makes fn's diagnostics part of every document's
// publication. Call it before Serve.
func (v *Review) AddDocumentDiagnostics(fn DocumentDiagnostics) {
	d := &v.diags
	d.mu.Lock()
	d.sources = append(d.sources, fn)
	d.mu.Unlock()
}

// scanSettled runs when the typing paused: the documents changed since
// their last scan are scanned and republished.
func (d *previewDiags) scanSettled() {
	d.mu.Lock()
	paths := make([]string, 0, len(d.scan))
	for p := range d.scan {
		paths = append(paths, p)
		d.rescan[p] = struct{}{}
	}
	clear(d.scan)
	d.mu.Unlock()
	for _, p := range paths {
		d.queue(p)
	}
}

// scanDocument runs the document diagnostics of path if its text changed
// since their last run, and keeps the result for the publication. It
// returns the version of the text it scanned, when that gave diagnostics.
func (v *Review) scanDocument(path string) *int32 {
	d := &v.diags
	d.mu.Lock()
	_, due := d.rescan[path]
	delete(d.rescan, path)
	sources := d.sources
	d.mu.Unlock()
	if !due {
		return nil
	}
	snap, open := v.view.Overlay(path)
	var out []protocol.Diagnostic
	for _, fn := range sources {
		out = append(out, fn(path, snap.Text, open)...)
	}
	d.mu.Lock()
	// A didClose during the scan has dropped the document already (it
	// drops under d.mu, after the view closed it): what was just found of
	// it must not outlive it.
	if _, still := v.view.Overlay(path); open && !still {
		d.mu.Unlock()
		for _, fn := range sources {
			fn(path, "", false)
		}
		return nil
	}
	if len(out) > 0 {
		d.extra[path] = out
	} else {
		delete(d.extra, path)
	}
	d.mu.Unlock()
	if len(out) == 0 {
		return nil
	}
	return snap.Version
}
