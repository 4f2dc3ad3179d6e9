package complete

import (
	"context"
	"errors"
	"log/slog"
	"strings"
	"sync"
	"time"

	"github.com/agentls/agentls/agent/config"
	"github.com/agentls/agentls/agent/llm"
	"github.com/agentls/agentls/internal/workspace"
	"github.com/agentls/agentls/tools"
)

// Engine answers completion requests for the documents of one workspace
// view. It is safe for concurrent use; a face calls Complete from each
// request and Changed from each edit.
type Engine struct {
	view *workspace.View
	log  *slog.Logger

	mu     sync.Mutex
	set    *settings            // nil: completions are off
	docs   map[string]*docState // by the view's canonical path
	places []place              // most recent first
	usage  Usage
	ne     *nextEdits        // nil unless StartNextEdits turned them on (nextedit.go)
	neDocs map[string]*neDoc // next-edit state by path
	// declarer gives the declarations of symbols near the cursor (nil:
	// none; decls.go).
	declarer Declarer
	declLife context.Context // bounds background fills (SetDeclarer)
}

// settings are what Configure derived from the configuration.
type settings struct {
	client        *llm.Client
	mode          Mode
	tmpl          Template
	model         string
	maxTokens     int
	temperature   float32
	debounce      time.Duration
	contextTokens int
	noChunks      bool // other files' chunks left out (the evaluation harness)
	inList        bool
	nextEdit      bool
	nextEditDelay time.Duration
	pricing       *config.Pricing
	env           *tools.Env // secrets and file names, as the tools see them
}

// docState is one document's completion state.
type docState struct {
	gen     uint64        // changes seen (Changed)
	seq     uint64        // requests seen
	changed chan struct{} // closed by the next change: wakes debounced requests
	cancel  context.CancelFunc
	done    chan struct{} // closed when the model request in flight ends
	memo    *memo         // the last completion shown here
	decls   *declCache    // declarations of symbols used here (decls.go)
}

// memo is the last completion of a document and where it was shown.
type memo struct {
	prefix string // the whole text before the cursor
	suffix string // the start of the text after it (suffixHead)
	text   string
}

// suffixHeadBytes is how much of the text after the cursor must be
// unchanged for a remembered completion to still fit.
const suffixHeadBytes = 256

func suffixHead(s string) string {
	if len(s) > suffixHeadBytes {
		return s[:suffixHeadBytes]
	}
	return s
}

// through returns the rest of the remembered completion when the user
// typed its first characters at its place.
func (m *memo) through(prefix, suffix string) (string, bool) {
	if m == nil || m.text == "" || len(prefix) < len(m.prefix) || prefix[:len(m.prefix)] != m.prefix {
		return "", false
	}
	typed := prefix[len(m.prefix):]
	if len(typed) >= len(m.text) || !strings.HasPrefix(m.text, typed) || suffixHead(suffix) != m.suffix {
		return "", false
	}
	return m.text[len(typed):], true
}

// New returns an engine over view with completions off until Configure.
func New(view *workspace.View, log *slog.Logger) *Engine {
	if log == nil {
		log = slog.New(slog.DiscardHandler)
	}
	return &Engine{view: view, log: log, docs: map[string]*docState{}, neDocs: map[string]*neDoc{}}
}

// defaultTemperature keeps completions close to the likeliest code.
const defaultTemperature = 0.2

// Configure applies a configuration: the completion model's client is
// built (an old one is released), or completions are turned off. It
// returns the reason completions are off, if a model is configured but
// its client cannot be built.
func (e *Engine) Configure(cfg config.Config) error {
	var set *settings
	var err error
	if cfg.CompletionOn() {
		set, err = newSettings(cfg, e.view)
	}
	e.mu.Lock()
	old := e.set
	e.set = set
	e.mu.Unlock()
	if old != nil {
		old.client.Close()
	}
	return err
}

func newSettings(cfg config.Config, view *workspace.View) (*settings, error) {
	lc := cfg.CompletionLLM()
	client, err := llm.New(lc)
	if err != nil {
		return nil, err
	}
	lc = client.Config()
	mode, tmpl := resolve(cfg.Completion.FIM, cfg.Completion.Template, lc.Model)
	s := &settings{
		client: client, mode: mode, tmpl: tmpl, model: lc.Model,
		maxTokens:     cfg.Completion.MaxTokens,
		temperature:   defaultTemperature,
		debounce:      time.Duration(cfg.Completion.DebounceMs) * time.Millisecond,
		contextTokens: cfg.CompletionContextTokens(),
		inList:        cfg.CompletionInList(),
		nextEdit:      cfg.Completion.NextEdit,
		nextEditDelay: time.Duration(cfg.Completion.NextEditDelayMs) * time.Millisecond,
		env:           &tools.Env{View: view, Policy: tools.Policy{AllowSecrets: cfg.Tools.AllowSecrets, SecretPatterns: cfg.Tools.SecretPatterns}},
	}
	if t := cfg.Model.Temperature; t != nil && *t > 0 {
		s.temperature = *t
	}
	if cfg.Completion.Name == "" || cfg.Completion.Name == cfg.Model.Name {
		s.pricing = cfg.Model.Pricing // the agent's model: its price applies
	}
	return s, nil
}

// Enabled reports whether completions are configured.
func (e *Engine) Enabled() bool {
	e.mu.Lock()
	defer e.mu.Unlock()
	return e.set != nil
}

// InCompletionList reports whether clients without inline completions
// get the completion as a completion-list item.
func (e *Engine) InCompletionList() bool {
	e.mu.Lock()
	defer e.mu.Unlock()
	return e.set != nil && e.set.inList
}

// Describe names the model and the way it is asked, for logs and status.
func (e *Engine) Describe() (model, mode, family string) {
	e.mu.Lock()
	defer e.mu.Unlock()
	if e.set == nil {
		return "", "", ""
	}
	return e.set.model, e.set.mode.String(), e.set.tmpl.Family
}

func (e *Engine) doc(path string) *docState {
	d := e.docs[path]
	if d == nil {
		d = &docState{changed: make(chan struct{})}
		e.docs[path] = d
	}
	return d
}

// Gen is the document's change count; read it before reading the text a
// request completes, and pass it in the Request.
func (e *Engine) Gen(path string) uint64 {
	e.mu.Lock()
	defer e.mu.Unlock()
	return e.doc(path).gen
}

// Changed is called for every edit of a document (on the editor's
// notification path: it only cancels and wakes). Requests for earlier
// text get nothing, and the model request in flight for it is aborted.
func (e *Engine) Changed(path string) {
	e.mu.Lock()
	defer e.mu.Unlock()
	e.nextEditChanged(path)
	d := e.docs[path]
	if d == nil {
		return
	}
	d.gen++
	close(d.changed)
	d.changed = make(chan struct{})
	if d.cancel != nil {
		d.cancel()
	}
}

// Closed forgets a document, and its next-edit suggestion.
func (e *Engine) Closed(path string) {
	e.mu.Lock()
	tell := e.nextEditClosed(path)
	defer tell()
	defer e.mu.Unlock()
	if d := e.docs[path]; d != nil {
		if d.cancel != nil {
			d.cancel()
		}
		close(d.changed)
		delete(e.docs, path)
	}
}

// Request is one completion request.
type Request struct {
	Path      string // the document's canonical path in the view (or its URI for non-files)
	Text      string // the document's text when the request was made
	Offset    int    // the cursor, a byte offset into Text
	Gen       uint64 // Gen(Path), read before Text was
	Automatic bool   // typed, not asked for: debounced
}

// Result is the answer to a Request.
type Result struct {
	// Text is inserted at the cursor; "" means no completion.
	Text string
	// FromMemory: the user typed into the last completion shown there,
	// and its rest came with no model request.
	FromMemory bool
	// Stale: the document changed, or a newer request came, before the
	// answer; the answer is dropped.
	Stale bool
}

// Complete answers a request. At most one model request is in flight per
// document: a newer request aborts an older one's model request, and so
// does an edit. An automatic request waits the debounce first and is
// dropped if the document changes meanwhile. The only error is ctx's,
// when the face cancelled the request; model failures are logged and
// give no completion.
func (e *Engine) Complete(ctx context.Context, req Request) (Result, error) {
	if req.Offset < 0 || req.Offset > len(req.Text) {
		return Result{}, nil
	}
	e.mu.Lock()
	s := e.set
	if s == nil || s.env.IsSecret(req.Path) {
		e.mu.Unlock()
		return Result{}, nil // no model, or a file whose text must not reach it
	}
	prefix, suffix := req.Text[:req.Offset], req.Text[req.Offset:]
	d := e.doc(req.Path)
	e.usage.Requests++
	if d.gen != req.Gen {
		e.usage.Stale++
		e.mu.Unlock()
		return Result{Stale: true}, nil
	}
	e.notePlace(req.Path, lineOf(req.Text, req.Offset))
	if rest, ok := d.memo.through(prefix, suffix); ok {
		e.usage.FromMemory++
		e.mu.Unlock()
		return Result{Text: rest, FromMemory: true}, nil
	}
	d.seq++
	my := d.seq
	if d.cancel != nil {
		d.cancel() // a newer request: the older answer would be stale
	}
	changed := d.changed
	dl := e.declarer
	e.mu.Unlock()

	// Declarations are asked for now, so that a warm server answers
	// during the debounce; the request waits for them at most declWait.
	began := time.Now()
	var syms []symbol
	if dl != nil && s.contextTokens > 0 {
		syms = symbolsNear(req.Text, req.Offset)
	}
	fill := e.declsFor(d, dl, req.Path, req.Text, syms)

	if req.Automatic && s.debounce > 0 {
		t := time.NewTimer(s.debounce)
		select {
		case <-t.C:
		case <-changed:
			t.Stop()
			return e.stale(), nil
		case <-ctx.Done():
			t.Stop()
			return Result{}, ctx.Err()
		}
	}
	mctx, done, ok, err := e.claim(ctx, d, my, req.Gen)
	if !ok {
		return e.stale(), err
	}
	defer done()
	waitDecls(mctx, fill, began)
	text, err := e.ask(mctx, s, req, prefix, suffix, e.cachedDecls(d, syms))

	e.mu.Lock()
	defer e.mu.Unlock()
	switch {
	case ctx.Err() != nil:
		e.usage.Aborted++
		return Result{}, ctx.Err()
	case d.seq != my || d.gen != req.Gen || errors.Is(err, context.Canceled):
		e.usage.Aborted++
		e.usage.Stale++
		return Result{Stale: true}, nil
	case err != nil:
		e.usage.Failed++
		e.log.Info("completion failed", "path", req.Path, "err", err)
		return Result{}, nil
	}
	d.memo = &memo{prefix: prefix, suffix: suffixHead(suffix), text: text}
	return Result{Text: text}, nil
}

func (e *Engine) stale() Result {
	e.mu.Lock()
	e.usage.Stale++
	e.mu.Unlock()
	return Result{Stale: true}
}

// claim makes request my the document's one model request: it waits for
// an older one (already cancelled) to end, then registers its own. ok is
// false when a newer request or an edit came meanwhile.
func (e *Engine) claim(ctx context.Context, d *docState, my, gen uint64) (context.Context, func(), bool, error) {
	for {
		e.mu.Lock()
		if d.seq != my || d.gen != gen {
			e.mu.Unlock()
			return nil, nil, false, nil
		}
		if prev := d.done; prev != nil {
			d.cancel()
			e.mu.Unlock()
			select {
			case <-prev:
				continue
			case <-ctx.Done():
				return nil, nil, false, ctx.Err()
			}
		}
		mctx, cancel := context.WithCancel(ctx)
		done := make(chan struct{})
		d.cancel, d.done = cancel, done
		e.mu.Unlock()
		return mctx, func() {
			cancel()
			e.mu.Lock()
			if d.done == done {
				d.cancel, d.done = nil, nil
			}
			e.mu.Unlock()
			close(done)
		}, true, nil
	}
}

// notePlace remembers where the user is, for other documents' context.
func (e *Engine) notePlace(path string, line int) {
	for i, p := range e.places {
		if p.path == path {
			e.places = append(e.places[:i], e.places[i+1:]...)
			break
		}
	}
	e.places = append([]place{{path, line}}, e.places...)
	if len(e.places) > maxPlaces {
		e.places = e.places[:maxPlaces]
	}
}

// Usage returns the completion usage so far.
func (e *Engine) Usage() Usage {
	e.mu.Lock()
	defer e.mu.Unlock()
	u := e.usage
	if e.set != nil && e.set.pricing != nil {
		u.CostUSD = e.set.pricing.Cost(u.PromptTokens, 0, u.CompletionTokens)
	}
	return u
}

// Usage counts completions apart from agent runs: users pay for both.
type Usage struct {
	Requests      int `json:"requests"`      // completion requests received
	ModelRequests int `json:"modelRequests"` // requests sent to the model
	FromMemory    int `json:"fromMemory"`    // answered by typing through, no model request
	Stale         int `json:"stale"`         // answered empty: the document changed or a newer request came
	Aborted       int `json:"aborted"`       // model requests closed before their answer
	Failed        int `json:"failed"`        // model requests that failed
	// NextEdits counts next-edit requests sent to the model (also in
	// ModelRequests), NextEditSuggestions the answers that suggested an
	// edit, NextEditAborted those a newer settle or a close outdated.
	NextEdits           int      `json:"nextEdits"`
	NextEditSuggestions int      `json:"nextEditSuggestions"`
	NextEditAborted     int      `json:"nextEditAborted"`
	PromptTokens        int      `json:"promptTokens"`     // as reported by the model (estimated when it did not)
	CompletionTokens    int      `json:"completionTokens"` // likewise
	CostUSD             *float64 `json:"costUsd,omitempty"`
}
