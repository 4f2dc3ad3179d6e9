package review

import (
	"time"

	"go.lsp.dev/protocol"

	"github.com/agentls/agentls/internal/docscan"
)

// Document diagnostics: diagnostics another part computes from an open
// document's text (the runs part's task comments), published by the
// preview publisher together with the document's hunks. A client keeps
// one list per document and server, and every publishDiagnostics replaces
// it, so two publishers of one server would erase each other's entries:
// there is one publisher, and every source goes through it. When the
// scans run, and what a didClose drops, is internal/docscan's (a
// keystroke costs a map insert and a timer reset: BenchmarkDidChange).

// scanDelay is the pause after the last keystroke before a document is
// scanned again.
const scanDelay = 300 * time.Millisecond

// DocumentDiagnostics computes the diagnostics of the document at path
// from content, its open buffer's text; it runs on the publisher's
// goroutine. Once the document is closed it is called with open false
// (and no content), to drop what it kept of it: that call runs on the
// read loop (didClose) and must be quick.
type DocumentDiagnostics = docscan.Source[protocol.Diagnostic]

// AddDocumentDiagnostics makes fn's diagnostics part of every document's
// publication. Call it before Serve.
func (v *Review) AddDocumentDiagnostics(fn DocumentDiagnostics) { v.diags.scans.Add(fn) }

// scanDocument runs the document diagnostics of path if its text changed
// since their last run, and keeps the result for the publication. It
// returns the version of the text it scanned, when that gave diagnostics.
func (v *Review) scanDocument(path string) *int32 {
	var version *int32
	read := func() (string, bool) {
		snap, open := v.view.Overlay(path)
		version = snap.Version
		return snap.Text, open
	}
	stillOpen := func() bool { _, open := v.view.Overlay(path); return open }
	if !v.diags.scans.Scan(path, read, stillOpen) {
		return nil
	}
	return version
}
