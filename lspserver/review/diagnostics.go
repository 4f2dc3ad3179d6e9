package review

import (
	"context"
	"encoding/json"
	"sync"
	"sync/atomic"

	"go.lsp.dev/protocol"

	"github.com/agentls/agentls/agent/config"
	"github.com/agentls/agentls/agent/proposal"
	"github.com/agentls/agentls/internal/docscan"
	"github.com/agentls/agentls/internal/pending"
	"github.com/agentls/agentls/lspserver/core"
)

// Preview without a plugin (README "Preview without a plugin"): every
// pending hunk is published as a textDocument/publishDiagnostics entry at
// the hunk (source "agentls", Information; Warning when conflicted), whose
// message shows the change itself, so clients without code lenses or our
// plugins (eglot, Helix, Zed, Sublime LSP) show what Accept would do before
// the user picks it. The accept/reject code actions list the hunk's
// diagnostic, so clients that offer fixes for the diagnostic at point
// reach them from it.
//
// The publisher consumes the store's changes (OnChange: hunks added,
// decided, conflicted, resolved) and the user's typing in documents that
// have published diagnostics (the store does not announce pure shifts of
// ranges, and clients do not move diagnostics through their edits), and
// republishes each queued document from one store snapshot, on its own
// goroutine: bursts of keystrokes coalesce into one publication per
// round, and the read loop never waits for it.
//
// initializationOptions (or settings) preview.diagnostics: false turns the
// diagnostics off, for clients that render previews themselves.

// diagnosticSource is the source of every preview diagnostic; the
// quickfix offers of code actions skip diagnostics from it.
const diagnosticSource = "agentls"

// diagnosticData is the data field of a preview diagnostic.
type diagnosticData struct {
	HunkID string `json:"hunkId"`
	RunID  string `json:"runId"`
}

// previewDiags is the publisher's state. The zero value is inert until
// startPreviewDiagnostics.
type previewDiags struct {
	once sync.Once
	off  atomic.Bool // preview.diagnostics: false

	pending pending.Set // store paths to republish

	mu        sync.Mutex
	published map[string]bool // store paths whose last publication was not empty

	// scans are the diagnostics computed from documents' text
	// (docdiags.go); its lock nests inside mu.
	scans docscan.Scans[protocol.Diagnostic]
}

// startPreviewDiagnostics subscribes the publisher to the store and starts
// its goroutine (owned by the server). state() calls it once, when the review
// state starts.
func (v *Review) startPreviewDiagnostics(r *reviewState) {
	d := &v.diags
	d.once.Do(func() {
		d.mu.Lock()
		d.published = map[string]bool{}
		d.mu.Unlock()
		d.scans.Start(scanDelay, d.queue)
		d.off.Store(!v.previewDiagnosticsSetting())
		v.core.OnSettingsChange(func(json.RawMessage) { v.previewSettingsChanged() })
		stop := r.store.OnChange(d.queue)
		v.core.Go("publish preview diagnostics", func(ctx context.Context) {
			defer stop()
			defer d.scans.Stop()
			d.pending.Run(ctx, func(ctx context.Context, paths []string) { v.publishRound(ctx, r, paths) })
		})
	})
}

// previewDiagnosticsSetting reads preview.diagnostics from the editor's
// settings (initializationOptions, then didChangeConfiguration); anything
// but an explicit false means on.
func (v *Review) previewDiagnosticsSetting() bool {
	merged, _ := config.MergeSettings(v.core.InitializationOptions(), v.core.Settings()) // broken settings are reported by the runs' configuration loads
	var opt struct {
		Preview struct {
			Diagnostics *bool `json:"diagnostics"`
		} `json:"preview"`
	}
	if len(merged) == 0 || json.Unmarshal(merged, &opt) != nil || opt.Preview.Diagnostics == nil {
		return true
	}
	return *opt.Preview.Diagnostics
}

// previewSettingsChanged runs on the read loop after didChangeConfiguration:
// when the setting flips, every document with proposals is republished
// (or cleared).
func (v *Review) previewSettingsChanged() {
	d := &v.diags
	on := v.previewDiagnosticsSetting()
	if d.off.Swap(!on) == !on {
		return
	}
	paths := map[string]struct{}{}
	for _, h := range v.st.store.Select(proposal.Filter{}) {
		paths[h.Path] = struct{}{}
	}
	d.mu.Lock()
	for p := range d.published {
		paths[p] = struct{}{}
	}
	d.mu.Unlock()
	for p := range paths {
		d.queue(p)
	}
}

// queue marks path for republication. It never blocks (the store calls it
// from whatever goroutine changed it, the read loop included).
func (d *previewDiags) queue(path string) { d.pending.Add(path) }

// docEvent is what happened to a document, for previewDocChanged.
type docEvent int

const (
	docOpened docEvent = iota
	docTyped
	docClosed
)

// previewDocChanged is the text synchronisation hook (didOpen, didChange,
// didClose): a document whose hunks are on screen is republished, so the
// diagnostics follow the user's typing. Documents without proposals cost
// one map lookup, plus, with document diagnostics (docdiags.go), the
// scan's bookkeeping: a scan at once after didOpen, a quiet moment after
// the last keystroke, and everything of the document dropped at didClose.
func (v *Review) previewDocChanged(path string, ev docEvent) {
	d := &v.diags
	r := v.state()
	scanned := d.scans.Active()
	var tell func()
	d.mu.Lock()
	shown := d.published[path]
	switch {
	case !scanned:
	case ev == docTyped:
		d.scans.Typed(path)
	case ev == docOpened:
		d.scans.Opened(path)
	case ev == docClosed:
		// Under mu, as a publication reads the findings and notes what
		// it published: a close either comes first or sees it shown.
		tell = d.scans.Closed(path)
		if !shown {
			d.pending.Remove(path) // a scan queued by didOpen has nothing left to read
		}
	}
	d.mu.Unlock()
	if tell != nil {
		tell()
	}
	if shown || (scanned && ev == docOpened) || r.desk.Tracks(path) {
		d.queue(path)
	}
}

// publishRound publishes one round of queued documents.
func (v *Review) publishRound(ctx context.Context, r *reviewState, paths []string) {
	if v.core.Client() == nil {
		return
	}
	for _, p := range paths {
		v.publishPreview(ctx, r, p)
	}
}

// publishPreview publishes path's hunks as diagnostics (or clears them),
// from one snapshot of the store: ranges and version belong together.
func (v *Review) publishPreview(ctx context.Context, r *reviewState, path string) {
	d := &v.diags
	var diags []protocol.Diagnostic
	version := v.scanDocument(path)
	var created []proposal.Proposal
	if !d.off.Load() {
		for _, pr := range r.store.ListLSP(path, v.core.Session().Encoding) {
			version = pr.Version
			notes := v.hunkProblemNotes(pr)
			for _, h := range pr.Hunks {
				diags = append(diags, hunkDiagnostic(h, notes[h.ID]))
			}
			if pr.Created {
				created = append(created, pr)
			}
		}
		diags = append(diags, v.newFileCompanions(r, path)...)
	}
	v.queueOrigins(path, created)
	d.mu.Lock()
	diags = append(diags, d.scans.Found(path)...)
	was := d.published[path]
	if len(diags) > 0 {
		d.published[path] = true
	} else {
		delete(d.published, path)
	}
	d.mu.Unlock()
	if len(diags) == 0 && !was {
		return // nothing shown, nothing to show
	}
	params := &protocol.PublishDiagnosticsParams{URI: v.docs.URIOf(path), Diagnostics: diags}
	if diags == nil {
		params.Diagnostics = []protocol.Diagnostic{}
	}
	if version != nil {
		params.Version = protocol.NewOptional(*version)
	}
	if err := v.core.Client().Notify(ctx, protocol.MethodTextDocumentPublishDiagnostics, params); err != nil {
		v.log.Warn("publish preview diagnostics", "path", path, "err", err)
	}
}

// hunkDiagnostic is the diagnostic of one hunk (its Range must be filled),
// with problemNote (hunkProblemNotes: the problems the change brings)
// as a last line, which also raises it to a warning. The accept/reject
// code actions list the same value.
func hunkDiagnostic(h proposal.Hunk, problemNote string) protocol.Diagnostic {
	sev := protocol.DiagnosticSeverityInformation
	if h.Status == proposal.StatusConflicted || problemNote != "" {
		sev = protocol.DiagnosticSeverityWarning
	}
	msg := proposal.HunkMessage(h)
	if problemNote != "" {
		msg += "\n" + problemNote
	}
	data, _ := json.Marshal(diagnosticData{HunkID: h.ID, RunID: h.RunID}) // strings only: cannot fail
	return protocol.Diagnostic{
		Range:    core.ToProtocolRange(h.Range),
		Severity: sev,
		Source:   protocol.NewOptional(diagnosticSource),
		Code:     protocol.String("proposal"),
		Message:  protocol.String(msg),
		Data:     data,
	}
}

// isPreviewDiagnostic reports whether d is one of ours (the client echoes
// diagnostics back in code action requests).
func isPreviewDiagnostic(d protocol.Diagnostic) bool {
	src, _ := d.Source.Get()
	return src == diagnosticSource
}
