package lang

import (
	"context"
	"errors"
	"fmt"
	"strconv"
	"strings"
	"time"
	"unicode"

	"go.lsp.dev/jsonrpc2"
	"go.lsp.dev/protocol"
)

// diag is one diagnostic as the server sent it, positions in the
// server's encoding.
type diag struct {
	rng      protocol.Range
	severity protocol.DiagnosticSeverity // 1 error … 4 hint; 0 (absent) counts as error
	message  string                      // one line
	source   string
	code     string
}

// sev is the severity with the absent value read as error, as clients do.
func (d diag) sev() protocol.DiagnosticSeverity {
	if d.severity < protocol.DiagnosticSeverityError || d.severity > protocol.DiagnosticSeverityHint {
		return protocol.DiagnosticSeverityError
	}
	return d.severity
}

// isProblem reports errors and warnings, the diagnostics agentls reports;
// information and hints (style suggestions) are left out.
func (d diag) isProblem() bool { return d.sev() <= protocol.DiagnosticSeverityWarning }

func severityName(s protocol.DiagnosticSeverity) string {
	switch s {
	case protocol.DiagnosticSeverityWarning:
		return "warning"
	case protocol.DiagnosticSeverityInformation:
		return "information"
	case protocol.DiagnosticSeverityHint:
		return "hint"
	}
	return "error"
}

// convertDiags turns protocol diagnostics into ours, keeping at most
// maxStoredDiags (a flood is counted, not kept).
func convertDiags(in []protocol.Diagnostic) (out []diag, total int) {
	total = len(in)
	n := min(len(in), maxStoredDiags)
	out = make([]diag, 0, n)
	for _, d := range in[:n] {
		out = append(out, convertDiag(d))
	}
	return out, total
}

func convertDiag(d protocol.Diagnostic) diag {
	var msg string
	switch m := d.Message.(type) {
	case protocol.String:
		msg = string(m)
	case *protocol.MarkupContent:
		if m != nil {
			msg = m.Value
		}
	}
	src, _ := d.Source.Get()
	var code string
	switch c := d.Code.(type) {
	case protocol.String:
		code = string(c)
	case protocol.Integer:
		code = strconv.FormatInt(int64(c), 10)
	}
	return diag{rng: d.Range, severity: d.Severity, message: oneLine(msg), source: oneLine(src), code: oneLine(code)}
}

// oneLine folds a multi-line message into one line (pyright indents its
// second line with U+00A0) and bounds its length.
func oneLine(s string) string {
	lines := strings.Split(s, "\n")
	parts := lines[:0]
	for _, l := range lines {
		l = strings.TrimFunc(l, func(r rune) bool { return unicode.IsSpace(r) || r == '\u00a0' })
		if l != "" {
			parts = append(parts, l)
		}
	}
	s = strings.Join(parts, "; ")
	if len(s) > maxMessage {
		cut := maxMessage
		for cut > 0 && !utf8Start(s[cut]) {
			cut--
		}
		s = s[:cut] + "…"
	}
	return s
}

func utf8Start(b byte) bool { return b&0xC0 != 0x80 }

// onPublish stores a publishDiagnostics notification and wakes waiters.
// Publications for files that are neither open nor among the last
// maxPubFiles are dropped, so a server cannot make us hold the world.
func (c *client) onPublish(raw jsonrpc2.RawMessage) {
	var p protocol.PublishDiagnosticsParams
	if err := protocol.Unmarshal(raw, &p); err != nil {
		c.log.Debug("bad publishDiagnostics", "err", err)
		return
	}
	if !p.URI.IsFile() {
		return
	}
	path := p.URI.FsPath()
	items, total := convertDiags(p.Diagnostics)
	c.mu.Lock()
	defer c.mu.Unlock()
	if _, open := c.docs[path]; !open && len(c.pubs) >= maxPubFiles {
		if _, known := c.pubs[path]; !known {
			return
		}
	}
	c.pubSeq++
	pub := &publication{seq: c.pubSeq, items: items, total: total, at: time.Now()}
	if v, ok := p.Version.Get(); ok {
		pub.version = &v
		if d := c.docs[path]; d != nil && v > d.version {
			c.ownVers = true // numbers of its own: treat as unversioned
		}
	}
	c.pubs[path] = pub
	c.log.Debug("published", "path", path, "version", pub.version, "diagnostics", total)
	close(c.changed)
	c.changed = make(chan struct{})
}

// settleQuiet is how long a publication must stand before it counts as
// the whole answer, for servers not known to publish in one go. gopls
// (with diagnosticsDelay 0s) publishes once per version; tsls once per
// change; pyright is pulled; clangd once per version of path unless its
// preamble changed (clangdOnce).
func (c *client) settleQuiet(path string) time.Duration {
	switch c.cfg.Name {
	case "gopls", "typescript", "pyright":
		return 0
	case "clangd":
		if c.clangdOnce(path) {
			return 0
		}
	}
	return 150 * time.Millisecond
}

// clangdOnce reports whether clangd publishes path's next diagnostics in
// one go: it publishes once per version when the file's preamble (its
// #include and other directive lines, and the headers they name) stays
// as it was; when it changes, clangd 16 and later publish first what they
// built against the old preamble, then again. So: the last change to
// path kept its directive lines, and no header was sent in the last
// headerQuiet.
func (c *client) clangdOnce(path string) bool {
	c.mu.Lock()
	defer c.mu.Unlock()
	d := c.docs[path]
	return d != nil && d.samePreamble && time.Since(c.headerSentAt) > headerQuiet
}

// headerQuiet is how long after a header's text was sent clangd's
// publications are not taken as single (clangdOnce).
const headerQuiet = 3 * time.Second

// directives are the preprocessor lines of a C or C++ text (#include,
// #define, …), which make up what clangd keeps as the file's preamble.
func directives(text string) []string {
	var out []string
	for _, l := range strings.Split(text, "\n") {
		if t := strings.TrimSpace(l); strings.HasPrefix(t, "#") {
			out = append(out, t)
		}
	}
	return out
}

// errNoAnswer is returned when the wait ends before the server answered.
var errNoAnswer = errors.New("no answer")

// waitPublished waits for path's diagnostics of version v: the first
// publication after seq (publications up to seq are older than the
// change) that carries version v, or, from servers that publish no
// versions (or numbers of their own), any later one. Servers not known to
// publish in one go must then stay quiet for settleQuiet, so a
// half-published wave is not taken for the answer.
func (c *client) waitPublished(ctx context.Context, path string, v int32, seq uint64) (*publication, error) {
	quiet := c.settleQuiet(path)
	var found *publication
	for {
		c.mu.Lock()
		p := c.pubs[path]
		if p != nil && p.seq > seq && (p.version == nil || *p.version == v || c.ownVers) {
			found = p
		}
		ch := c.changed
		c.mu.Unlock()
		var timer <-chan time.Time
		if found != nil {
			if quiet == 0 {
				return found, nil
			}
			if wait := quiet - time.Since(found.at); wait <= 0 {
				return found, nil
			} else {
				t := time.NewTimer(wait)
				defer t.Stop()
				timer = t.C
			}
		}
		if found == nil && c.pull() {
			return nil, errPullOffered
		}
		select {
		case <-ch:
		case <-timer:
			return found, nil
		case <-ctx.Done():
			return nil, errNoAnswer
		case <-c.dead:
			return nil, c.deadErr
		}
	}
}

// errPullOffered ends a wait for a publication when the server offered
// pull diagnostics meanwhile (pyright registers them only after
// initialized, and then publishes nothing).
var errPullOffered = errors.New("pull diagnostics offered")

// diagnosticsOf returns path's settled diagnostics for version v: pulled
// when the server offers pull, else the first publication for v after
// publication seq.
func (c *client) diagnosticsOf(ctx context.Context, path string, v int32, seq uint64) ([]diag, error) {
	for {
		if c.pull() {
			ds, _, err := c.pullDiags(ctx, path)
			return ds, err
		}
		pub, err := c.waitPublished(ctx, path, v, seq)
		if errors.Is(err, errPullOffered) {
			continue
		}
		if err != nil {
			return nil, err
		}
		return pub.items, nil
	}
}

// published returns the last publication for path and whether it is for
// version v (or the server sends no usable versions).
func (c *client) published(path string, v int32) (*publication, bool) {
	c.mu.Lock()
	defer c.mu.Unlock()
	p := c.pubs[path]
	if p == nil {
		return nil, false
	}
	return p, p.version == nil || *p.version == v || c.ownVers
}

// pubSeqNow is the sequence number of the latest publication.
func (c *client) pubSeqNow() uint64 {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.pubSeq
}

// pubsSince returns the publications after seq, by path.
func (c *client) pubsSince(seq uint64) map[string]*publication {
	c.mu.Lock()
	defer c.mu.Unlock()
	out := map[string]*publication{}
	for p, pub := range c.pubs {
		if pub.seq > seq {
			out[p] = pub
		}
	}
	return out
}

// pullDiags asks for path's diagnostics (textDocument/diagnostic), which
// reflect every change sent before the request.
func (c *client) pullDiags(ctx context.Context, path string) ([]diag, int, error) {
	c.mu.Lock()
	d := c.docs[path]
	c.mu.Unlock()
	if d == nil {
		return nil, 0, fmt.Errorf("%s is not open", path)
	}
	c.mu.Lock()
	ts := c.tsPull && !c.pullSeen
	c.mu.Unlock()
	if ts {
		return c.tsserverDiags(ctx, d)
	}
	rep, err := c.srv.Diagnostic(ctx, &protocol.DocumentDiagnosticParams{TextDocument: protocol.TextDocumentIdentifier{URI: d.uri}})
	if err != nil {
		return nil, 0, c.callError(ctx, err)
	}
	var items []diag
	total := 0
	switch r := rep.(type) {
	case *protocol.RelatedFullDocumentDiagnosticReport:
		items, total = convertDiags(r.Items)
	case *protocol.RelatedUnchangedDocumentDiagnosticReport:
		c.mu.Lock()
		items, total = d.pulled, len(d.pulled)
		c.mu.Unlock()
	default:
		return nil, 0, errors.New("answered textDocument/diagnostic with no report")
	}
	c.mu.Lock()
	d.pulled, d.pulledAt, d.hasPulled = items, d.version, true
	c.mu.Unlock()
	return items, total, nil
}

// callError says why a request to the server failed: the wait ran out, the
// server died, or it answered with an error or something that is not LSP.
func (c *client) callError(ctx context.Context, err error) error {
	switch {
	case ctx.Err() != nil:
		return errNoAnswer
	case c.isDead():
		return c.deadErr
	}
	var je *jsonrpc2.Error
	if errors.As(err, &je) {
		return fmt.Errorf("answered with an error: %s", oneLine(je.Message))
	}
	return fmt.Errorf("answered with something that is not LSP: %s", oneLine(err.Error()))
}
