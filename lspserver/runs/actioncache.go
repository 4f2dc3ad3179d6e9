package runs

import (
	"context"
	"encoding/json"
	"strings"

	"go.lsp.dev/protocol"

	"github.com/agentls/agentls/agent"
	"github.com/agentls/agentls/internal/memo"
	"github.com/agentls/agentls/internal/text"
	"github.com/agentls/agentls/internal/workspace"
	"github.com/agentls/agentls/lspserver/core"
)

// The code action answer cache. Editors ask for code actions on every
// cursor move, again and again at the same place (VS Code on each caret
// rest and diagnostics change, Neovim plugins on CursorHold); building the
// list is most of the server's share of the request. The encoded answer
// is kept per request (document, range, context) with a stamp of every
// input the list is built from, read before it is built:
//
//   - the document's store path and buffer version (an open buffer only:
//     files on disk change without telling us);
//   - core.Server.ActionsGen: open buffers (every workspace.View event),
//     task comments (tasks.go), language-server problems placed on
//     proposals (review), settings, workspace folders;
//   - review's proposal store generation (proposals staged, rebased,
//     accepted, rejected, conflicted...) and whether preview diagnostics
//     are on;
//   - the revert index's generation (runs landed or reverted, here or by
//     another agentls);
//   - the latest session (Continue) and the latest plan awaiting approval,
//     compared as they are;
//   - the position encoding.
//
// An answer is served again only when all of them are unchanged, and
// while codeAction/resolve still keeps the request it names (its data's
// set): a stale list is a bug, a miss only costs the build. Lazy answers
// (resolve.go) and whole ones (eglot, Helix) are cached alike, the
// handler encoding them; a session is one or the other. The test that
// each input reaches the next answer is TestCodeActionCacheNeverStale.

// reviewGen is the Review that can say when its code actions may have
// changed (lspserver/review's Review.ActionsGen): kept out of the Review
// interface so that other implementations need not know of the cache.
type reviewGen interface {
	ActionsGen() (store uint64, previewOff bool)
}

// A request's params as they came are remembered too (the latest
// maxActionSets), with the document and cache key they decode to, so that
// a repeated request is not decoded again (CodeActionRaw): the same bytes
// always decode to the same params.

// CodeActionRaw is the textDocument/codeAction route (core.RawRun): a
// request whose params are byte for byte those of one answered before is
// looked up without decoding them; any other is decoded and answered by
// CodeAction.
func (rs *Runs) CodeActionRaw(_ context.Context, raw json.RawMessage) (any, error) {
	if e, ok := rs.actionSets.rawKey(raw); ok {
		if stamp, cache := rs.stampNow(rs.docs.StorePath(e.doc)); cache {
			if body, ok := rs.actionSets.cached(e.key, stamp); ok {
				return body, nil
			}
		}
	}
	var p protocol.CodeActionParams
	if err := core.DecodeRaw(raw, &p); err != nil {
		return nil, err
	}
	return rs.codeActionAnswer(&p, raw), nil
}

// codeActionAnswer answers p, whose params came as raw (nil: not known),
// from the cache or built and then cached.
func (rs *Runs) codeActionAnswer(p *protocol.CodeActionParams, raw json.RawMessage) any {
	key := core.DocKey(p.TextDocument.URI)
	path := rs.docs.StorePath(key)
	// The stamp is read before the list is built: a change meanwhile
	// moves it past the one this answer is kept with.
	stamp, cache := rs.stampNow(path)
	var ck answerKey
	if cache {
		ck = keyOf(p)
		if raw != nil {
			rs.actionSets.keepRaw(raw, rawEntry{doc: key, key: ck})
		}
		if body, ok := rs.actionSets.cached(ck, stamp); ok {
			return body
		}
	}
	var body json.RawMessage
	var set uint64
	if rs.core.Session().Features.LazyCodeActions {
		body, set = rs.lazyCodeActions(p, key, path)
	} else {
		var actions []protocol.CommandOrCodeAction
		var ok bool
		if body, actions, ok = rs.eagerCodeActions(p, key); !ok {
			return actions
		}
	}
	if cache {
		if ver, open := rs.view.BufferVersion(path); open && ver == stamp.version {
			rs.actionSets.keep(ck, stamp, body, set)
		}
	}
	return body
}

// rawEntry is what a request's raw params decode to.
type rawEntry struct {
	doc string // core.DocKey of its document
	key answerKey
}

// rawKey returns what raw decodes to, if it was seen.
func (t *actionSets) rawKey(raw json.RawMessage) (rawEntry, bool) {
	t.mu.Lock()
	defer t.mu.Unlock()
	e, ok := t.raw[string(raw)]
	return e, ok
}

// keepRaw remembers what raw decodes to (a copy of raw: the connection
// reuses its buffers).
func (t *actionSets) keepRaw(raw json.RawMessage, e rawEntry) {
	t.mu.Lock()
	defer t.mu.Unlock()
	if _, ok := t.raw[string(raw)]; ok {
		return
	}
	if t.raw == nil || len(t.raw) >= maxActionSets {
		t.raw = map[string]rawEntry{}
	}
	t.raw[string(raw)] = e
}

// answerKey is what a request asks: the cache's key.
type answerKey struct {
	uri     string
	rng     protocol.Range
	only    string // context.only, joined by "\n"
	trigger protocol.CodeActionTriggerKind
	diags   string // context.diagnostics, encoded
}

// answerStamp is the state an answer was built from (see above).
type answerStamp struct {
	gen, store, hist uint64
	previewOff       bool
	path             string
	version          int32
	enc              text.Encoding
	session, title   string
	plan             agent.WaitingPlan
}

// answer is one cached answer.
type answer struct {
	body json.RawMessage
	set  uint64 // the actionSets id its data names (lazy); 0: none (eager)
}

// The answers memo keeps memo.DefaultMax answers (its Max is zero, as
// actionSets is ready at its zero value): more could not be served, since
// only maxActionSets sets are kept for resolve.
const _ = -uint(memo.DefaultMax - maxActionSets) // compiles only while they are equal

// keyOf is p's cache key.
func keyOf(p *protocol.CodeActionParams) answerKey {
	k := answerKey{uri: string(p.TextDocument.URI), rng: p.Range, trigger: p.Context.TriggerKind}
	if len(p.Context.Only) > 0 {
		var b strings.Builder
		for _, o := range p.Context.Only {
			b.WriteString(string(o))
			b.WriteByte('\n')
		}
		k.only = b.String()
	}
	if len(p.Context.Diagnostics) > 0 {
		b := make([]byte, 0, 160*len(p.Context.Diagnostics))
		for _, d := range p.Context.Diagnostics {
			b = append(appendDiagnostic(b, d), '\n') // every field: the library encodes what it does not write
		}
		k.diags = string(b)
	}
	return k
}

// stampNow reads the state the answer for the document at path depends
// on; ok is false when it is not an open buffer (not cached).
func (rs *Runs) stampNow(path string) (answerStamp, bool) {
	rs.actionSets.watch.Do(func() {
		// Before the first stamp is read: every later buffer change
		// moves ActionsGen.
		rs.view.Subscribe(func(workspace.Event) { rs.core.ActionsChanged() })
	})
	s := answerStamp{gen: rs.core.ActionsGen(), path: path}
	var open bool
	if s.version, open = rs.view.BufferVersion(path); !open {
		return s, false
	}
	rv, ok := rs.review.(reviewGen)
	if !ok {
		return s, false // a review that cannot say when its actions change
	}
	s.store, s.previewOff = rv.ActionsGen()
	s.hist = rs.hist.Gen()
	s.enc = rs.core.Session().Encoding
	s.session, s.title = rs.latestSession()
	s.plan, _ = rs.plans.Latest()
	return s, true
}

// cached returns the answer kept for k if it was built from stamp s and
// its set is still kept for resolve.
func (t *actionSets) cached(k answerKey, s answerStamp) (json.RawMessage, bool) {
	a, ok := t.answers.Get(k, s)
	if !ok {
		return nil, false
	}
	if a.set != 0 {
		t.mu.Lock()
		_, kept := t.sets[a.set]
		t.mu.Unlock()
		if !kept {
			return nil, false
		}
	}
	return a.body, true
}

// keep caches body, the answer to k built from s, naming set (0: none).
func (t *actionSets) keep(k answerKey, s answerStamp, body json.RawMessage, set uint64) {
	t.answers.Put(k, s, answer{body: body, set: set})
}
