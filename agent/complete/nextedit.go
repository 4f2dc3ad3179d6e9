package complete

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"path/filepath"
	"strings"
	"sync"
	"time"

	"github.com/aymanbagabas/go-udiff"

	"github.com/agentls/agentls/agent/llm"
	"github.com/agentls/agentls/internal/text"
	"github.com/agentls/agentls/tools"
	"github.com/agentls/agentls/tools/editmatch"
)

// Next edits: when the user's edits to a document settle (no change for
// completion.nextEditDelayMs), the engine diffs the document against its
// text at the previous settle, keeps the diff in the document's ring of
// recent edits, and asks the completion model (chat, one edit_file tool)
// what edit follows. Its edit_file calls, applied to the text it was
// shown, are one Suggestion; no call, or a call that does not apply,
// means none. The face turns a suggestion into a proposal
// (proposal.Store.Suggest), which the user's later edits rebase or drop.
//
// Recent edits are taken at settle granularity, not per keystroke: a
// settle is what a user would call "an edit", and typing costs nothing
// but a timer reset.

// Suggestion is one settle's answer for a document: Proposed is the text
// the model's edits make of Base (the text it was shown). Proposed ==
// Base means no suggestion: the document's earlier one is outdated.
type Suggestion struct {
	Path     string
	Base     string
	Proposed string
}

// None reports whether the suggestion proposes nothing.
func (s Suggestion) None() bool { return s.Proposed == s.Base }

// Bounds of what a next-edit request carries.
const (
	maxRecentEdits   = 5         // diffs kept per document, oldest dropped first
	maxEditDiffBytes = 4 << 10   // a bigger diff (a paste, a reformat) is cut
	wholeFileBytes   = 24 << 10  // a file up to this size is sent whole
	windowLines      = 120       // else this many lines around the last edit
	maxNextEditText  = 512 << 10 // a bigger document gets no next edits
)

// nextEdits is the running next-edit loop (StartNextEdits): its context,
// its sink and the requests it owns.
type nextEdits struct {
	ctx  context.Context
	sink func(Suggestion)
	wg   sync.WaitGroup
}

// neDoc is one document's next-edit state.
type neDoc struct {
	base   string   // the text at the last settle (or when first seen)
	recent []string // unified diffs of the last settles, oldest first
	timer  *time.Timer
	seq    uint64             // settles that sent a request
	cancel context.CancelFunc // the request in flight
	done   chan struct{}      // closed when that request ends
}

// StartNextEdits turns next-edit suggestions on until ctx ends, giving
// each settle's answer to sink (from a goroutine of its own, never while
// the engine's lock is held). Documents changed from now on are followed.
// The returned wait blocks until ctx ends and every request started has
// ended: run it on a goroutine the face owns. Call StartNextEdits once.
func (e *Engine) StartNextEdits(ctx context.Context, sink func(Suggestion)) (wait func()) {
	ne := &nextEdits{ctx: ctx, sink: sink}
	e.mu.Lock()
	e.ne = ne
	e.mu.Unlock()
	return func() {
		<-ctx.Done()
		e.mu.Lock()
		for p, d := range e.neDocs {
			d.stop()
			delete(e.neDocs, p)
		}
		e.ne = nil
		e.mu.Unlock()
		ne.wg.Wait()
	}
}

// stop ends d's timer and request.
func (d *neDoc) stop() {
	if d.timer != nil {
		d.timer.Stop()
	}
	if d.cancel != nil {
		d.cancel()
	}
}

// nextEditChanged is Changed's part for next edits: the document's settle
// timer starts again. The first change seen of a document (its opening)
// gives the text later edits are diffed against. Called with e.mu held.
func (e *Engine) nextEditChanged(path string) {
	s := e.set
	if e.ne == nil || s == nil || !s.nextEdit || s.env.IsSecret(path) {
		return
	}
	d := e.neDocs[path]
	if d == nil {
		snap, ok := e.view.Overlay(path)
		if !ok || len(snap.Text) > maxNextEditText {
			return
		}
		d = &neDoc{base: snap.Text}
		e.neDocs[path] = d
		return
	}
	if d.timer != nil {
		d.timer.Stop()
	}
	d.timer = time.AfterFunc(s.nextEditDelay, func() { e.settle(path, d) })
}

// nextEditClosed forgets a closed document's next-edit state; the sink
// hears that its suggestion is gone. Called with e.mu held; the sink is
// called by the returned function, after the lock is released.
func (e *Engine) nextEditClosed(path string) func() {
	d := e.neDocs[path]
	if d == nil || e.ne == nil {
		return func() {}
	}
	d.stop()
	delete(e.neDocs, path)
	sink := e.ne.sink
	return func() { sink(Suggestion{Path: path}) }
}

// settle sends the next-edit request for path's edits since the last
// settle, aborting the one in flight.
func (e *Engine) settle(path string, d *neDoc) {
	e.mu.Lock()
	ne, s := e.ne, e.set
	if ne == nil || s == nil || !s.nextEdit || e.neDocs[path] != d {
		e.mu.Unlock()
		return
	}
	snap, ok := e.view.Overlay(path)
	if !ok || snap.Text == d.base || len(snap.Text) > maxNextEditText {
		e.mu.Unlock()
		return
	}
	rel := s.env.Rel(path)
	diff := udiff.Unified("a/"+rel, "b/"+rel, d.base, snap.Text)
	if len(diff) > maxEditDiffBytes {
		diff = diff[:maxEditDiffBytes] + "\n… (diff cut)\n"
	}
	at := commonPrefix(d.base, snap.Text)
	d.base = snap.Text
	d.recent = append(d.recent, diff)
	if len(d.recent) > maxRecentEdits {
		d.recent = d.recent[len(d.recent)-maxRecentEdits:]
	}
	if d.cancel != nil {
		d.cancel()
	}
	prev := d.done
	ctx, cancel := context.WithCancel(ne.ctx)
	done := make(chan struct{})
	d.seq++
	my := d.seq
	d.cancel, d.done = cancel, done
	recent := append([]string(nil), d.recent...)
	ne.wg.Add(1)
	e.mu.Unlock()

	go func() {
		defer ne.wg.Done()
		defer close(done)
		defer cancel()
		if prev != nil {
			<-prev // one request in flight per document: the older one was aborted
		}
		sug, err := e.askNextEdit(ctx, s, path, rel, snap.Text, lineOf(snap.Text, at), recent)
		var unusable *errNoSuggestion
		if errors.As(err, &unusable) {
			err = nil // no suggestion: the earlier one goes too
		}
		e.mu.Lock()
		current := e.neDocs[path] == d && d.seq == my && ctx.Err() == nil
		switch {
		case !current:
			e.usage.NextEditAborted++
		case err != nil:
			e.usage.Failed++
		case !sug.None():
			e.usage.NextEditSuggestions++
		}
		e.mu.Unlock()
		switch {
		case !current:
		case unusable != nil:
			e.log.Info("next edit: the answer is not a usable edit", "path", path, "err", unusable)
			ne.sink(sug)
		case err != nil:
			e.log.Info("next edit failed", "path", path, "err", err)
		default:
			e.log.Debug("next edit answered", "path", path, "suggestion", !sug.None())
			ne.sink(sug)
		}
	}()
}

// errNoSuggestion marks answers that propose nothing usable: they are
// logged, and the document gets no suggestion.
type errNoSuggestion struct{ msg string }

func (e *errNoSuggestion) Error() string { return e.msg }

// nextEditSystem tells the model what a next edit is.
const nextEditSystem = "You predict the next edit a programmer makes in a file, from the edits they just made. " +
	"When their recent edits call for a follow-up change in this file (a renamed name still used elsewhere, a changed signature's uses, a pattern to repeat), " +
	"make it with edit_file: path is the file's name, old_string exact text of the file as shown (unique in it), new_string its replacement. " +
	"The file's current text is given: do not ask to read it. Make only the changes the recent edits imply. " +
	"If no edit follows from them, answer with no tool call."

// askNextEdit sends one next-edit request for text and returns the
// suggestion its edit_file calls make. A model failure is an error; an
// unusable answer is an errNoSuggestion with a none suggestion.
func (e *Engine) askNextEdit(ctx context.Context, s *settings, path, rel, text string, line int, recent []string) (Suggestion, error) {
	none := Suggestion{Path: path, Base: text, Proposed: text}
	msgs := []llm.Message{{Role: "system", Content: nextEditSystem}, {Role: "user", Content: nextEditPrompt(rel, text, line, recent)}}
	ed := tools.EditFile()
	req := llm.Request{Messages: msgs, Tools: []llm.ToolDef{{Name: ed.Name(), Description: ed.Description(), Parameters: ed.Schema()}}}
	e.mu.Lock()
	e.usage.ModelRequests++
	e.usage.NextEdits++
	e.mu.Unlock()
	resp, err := s.client.Stream(ctx, req, nil)
	if err != nil {
		return none, err
	}
	usage := resp.Usage
	if usage.PromptTokens == 0 && usage.CompletionTokens == 0 {
		n := 0
		for _, m := range msgs {
			n += len(m.Content)
		}
		usage.PromptTokens = 1 + (n+len(req.Tools[0].Parameters)+len(req.Tools[0].Description))/bytesPerToken
		usage.CompletionTokens = 1 + len(resp.Text)/bytesPerToken
		for _, c := range resp.ToolCalls {
			usage.CompletionTokens += len(c.Args) / bytesPerToken
		}
	}
	e.mu.Lock()
	e.usage.PromptTokens += usage.PromptTokens
	e.usage.CompletionTokens += usage.CompletionTokens
	e.mu.Unlock()
	out, err := applyNextEdits(text, path, rel, resp.ToolCalls)
	if err != nil {
		return none, err
	}
	return Suggestion{Path: path, Base: text, Proposed: out}, nil
}

// applyNextEdits applies the model's edit_file calls to text in order,
// all or nothing.
func applyNextEdits(text, path, rel string, calls []llm.ToolCall) (string, error) {
	for i, c := range calls {
		if c.Name != "edit_file" {
			return "", &errNoSuggestion{fmt.Sprintf("call %d is %q, not edit_file", i+1, c.Name)}
		}
		if c.ArgsErr != nil {
			return "", &errNoSuggestion{fmt.Sprintf("edit_file call %d: %v", i+1, c.ArgsErr)}
		}
		var p tools.EditFileParams
		if err := json.Unmarshal([]byte(c.Args), &p); err != nil {
			return "", &errNoSuggestion{fmt.Sprintf("edit_file call %d: arguments: %v", i+1, err)}
		}
		if p.Path != "" && filepath.Clean(p.Path) != filepath.Clean(rel) && filepath.Clean(p.Path) != path {
			return "", &errNoSuggestion{fmt.Sprintf("edit_file call %d edits %q, not %s", i+1, p.Path, rel)}
		}
		o, err := editmatch.Apply(text, editmatch.Edit{Old: p.OldString, New: p.NewString, ReplaceAll: p.ReplaceAll != nil && *p.ReplaceAll})
		if err != nil {
			return "", &errNoSuggestion{fmt.Sprintf("edit_file call %d does not apply: %v", i+1, err)}
		}
		text = o.Text
	}
	return text, nil
}

// nextEditPrompt is the user message: the recent edits, then the file
// (whole, or the lines around line, the last edit).
func nextEditPrompt(rel, doc string, line int, recent []string) string {
	var b strings.Builder
	b.WriteString("File: " + rel + "\n\nMy recent edits, oldest first:\n")
	for _, d := range recent {
		b.WriteString("```diff\n" + d)
		if !strings.HasSuffix(d, "\n") {
			b.WriteByte('\n')
		}
		b.WriteString("```\n")
	}
	if len(doc) <= wholeFileBytes {
		b.WriteString("\nThe file now:\n```\n" + doc)
	} else {
		first := max(line-windowLines/2, 0)
		part := text.Lines(doc, first, windowLines)
		lines := strings.Count(doc, "\n")
		if !strings.HasSuffix(doc, "\n") {
			lines++
		}
		fmt.Fprintf(&b, "\nThe file now, lines %d to %d of %d:\n```\n%s", first+1, first+strings.Count(part, "\n"), lines, part)
	}
	if !strings.HasSuffix(b.String(), "\n") {
		b.WriteByte('\n')
	}
	b.WriteString("```\n")
	return b.String()
}

// commonPrefix is the length of the longest common prefix of a and b.
func commonPrefix(a, b string) int {
	n := min(len(a), len(b))
	for i := 0; i < n; i++ {
		if a[i] != b[i] {
			return i
		}
	}
	return n
}
