package runs

import (
	"context"
	"encoding/json"
	"fmt"
	"strconv"
	"sync"

	"github.com/go-json-experiment/json/jsontext"
	"go.lsp.dev/protocol"

	"github.com/agentls/agentls/internal/memo"
	"github.com/agentls/agentls/lspserver/core"
)

// Lazy code actions. Editors ask for code actions on every cursor move,
// and most lists are never opened; building and encoding each action's
// command (its prompt, uri and range as agentls.run's argument) was most
// of the handler's cost. A client that can resolve the command later
// (core.ClientFeatures.LazyCodeActions) is sent each action's title,
// kind, isPreferred and, for a fix, the client's diagnostic it fixes
// (review's actions leave their preview diagnostic to resolve), with a
// small data
// {"set":<n>,"i":<index>}; codeAction/resolve answers the whole action,
// exactly as the eager answer has it.
//
// Each lazy answer's request is kept, with the version of its document,
// in a table of the latest maxActionSets; resolve builds that request's
// actions whole (the same code as the eager answer) and picks the one
// asked for. A resolve after the document changed is ContentModified
// (-32801), not a re-computation at the new version: the action's range
// and prompt refer to lines of the old text, and the editor asks for a
// fresh list after an edit anyway. So is a resolve of a list that fell out
// of the table, or of an action no longer offered (its change was decided
// meanwhile).

// maxActionSets bounds the requests kept for codeAction/resolve (one per
// codeAction request of a lazy client; each a few hundred bytes).
const maxActionSets = 128

// actionSets is the table of requests answered lazily. The zero value is
// ready.
type actionSets struct {
	mu      sync.Mutex
	last    uint64 // id of the latest set; ids start at 1
	sets    map[uint64]actionSet
	answers memo.Map[answerKey, answerStamp, answer] // answers kept (actioncache.go)
	raw     map[string]rawEntry                      // params as they came → what they decode to (actioncache.go)
	watch   sync.Once                                // subscribes ActionsChanged to the view (actioncache.go)
}

// actionSet is one codeAction request answered lazily.
type actionSet struct {
	path    string // the document's store path
	version int32  // its buffer version then
	open    bool   // whether it was an open buffer
	params  *protocol.CodeActionParams
}

// add keeps set and returns its id.
func (t *actionSets) add(set actionSet) uint64 {
	t.mu.Lock()
	defer t.mu.Unlock()
	if t.sets == nil {
		t.sets = map[uint64]actionSet{}
	}
	t.last++
	t.sets[t.last] = set
	if t.last > maxActionSets {
		delete(t.sets, t.last-maxActionSets)
	}
	return t.last
}

// get returns set id, and the latest id given.
func (t *actionSets) get(id uint64) (actionSet, bool, uint64) {
	t.mu.Lock()
	defer t.mu.Unlock()
	set, ok := t.sets[id]
	return set, ok, t.last
}

// lazyCodeActions answers p without commands, encoded here (the
// reflection-based encoder was a third of the handler's cost), and the id
// of the set its data names (0: none, an empty list). key is p's
// core.DocKey, path its store path.
func (rs *Runs) lazyCodeActions(p *protocol.CodeActionParams, key, path string) (json.RawMessage, uint64) {
	actions := rs.codeActions(p, key, true)
	if len(actions) == 0 {
		return json.RawMessage("[]"), 0
	}
	ver, open := rs.view.BufferVersion(path)
	id := rs.actionSets.add(actionSet{path: path, version: ver, open: open, params: p})
	b := make([]byte, 0, 160*len(actions))
	b = append(b, '[')
	for i, a := range actions {
		if i > 0 {
			b = append(b, ',')
		}
		b = appendLazyAction(b, a, id, i)
	}
	return append(b, ']'), id
}

// appendLazyAction appends a (without its command) with its data.
func appendLazyAction(b []byte, a protocol.CommandOrCodeAction, id uint64, i int) []byte {
	ca, ok := a.(*protocol.CodeAction)
	if !ok || ca.Disabled != (protocol.CodeActionDisabled{}) || ca.Edit != nil || ca.Command.Command != "" {
		// Not a shape written below (none today): the library encodes it.
		raw, err := protocol.Marshal(a)
		if err != nil {
			panic(fmt.Sprintf("encoding code action %q: %v", title(a), err)) // protocol types always encode; dispatch turns a panic into InternalError
		}
		return append(b, raw...)
	}
	b = append(b, `{"title":`...)
	b, _ = jsontext.AppendQuote(b, ca.Title) // invalid UTF-8 becomes U+FFFD
	if ca.Kind != nil {
		b = append(b, `,"kind":`...)
		b, _ = jsontext.AppendQuote(b, string(*ca.Kind))
	}
	if len(ca.Diagnostics) > 0 {
		b = append(b, `,"diagnostics":[`...)
		for j, d := range ca.Diagnostics {
			if j > 0 {
				b = append(b, ',')
			}
			b = appendDiagnostic(b, d)
		}
		b = append(b, ']')
	}
	if ca.IsPreferred != nil && *ca.IsPreferred {
		b = append(b, `,"isPreferred":true`...)
	}
	b = strconv.AppendUint(append(b, `,"data":{"set":`...), id, 10)
	b = strconv.AppendInt(append(b, `,"i":`...), int64(i), 10)
	return append(b, `}}`...)
}

// appendDiagnostic appends d: the fields agentls's own diagnostics and
// most editors' use are written here, anything else by the library.
func appendDiagnostic(b []byte, d protocol.Diagnostic) []byte {
	msg, plain := d.Message.(protocol.String)
	if !plain || d.CodeDescription != (protocol.CodeDescription{}) || d.Tags.Len() > 0 || len(d.RelatedInformation) > 0 ||
		(len(d.Data) > 0 && !json.Valid(d.Data)) {
		raw, err := protocol.Marshal(d)
		if err != nil {
			panic(fmt.Sprintf("encoding a diagnostic: %v", err)) // protocol types always encode; dispatch turns a panic into InternalError
		}
		return append(b, raw...)
	}
	b = appendPosition(append(b, `{"range":{"start":`...), d.Range.Start)
	b = appendPosition(append(b, `,"end":`...), d.Range.End)
	b = append(b, '}')
	if d.Severity != 0 {
		b = strconv.AppendUint(append(b, `,"severity":`...), uint64(d.Severity), 10)
	}
	switch c := d.Code.(type) {
	case protocol.String:
		b, _ = jsontext.AppendQuote(append(b, `,"code":`...), string(c))
	case protocol.Integer:
		b = strconv.AppendInt(append(b, `,"code":`...), int64(c), 10)
	}
	if src, ok := d.Source.Get(); ok {
		b, _ = jsontext.AppendQuote(append(b, `,"source":`...), src)
	}
	b, _ = jsontext.AppendQuote(append(b, `,"message":`...), string(msg))
	if len(d.Data) > 0 {
		b = append(append(b, `,"data":`...), d.Data...)
	}
	return append(b, '}')
}

// lazyData is the data of a lazy action.
type lazyData struct {
	Set *uint64 `json:"set"`
	I   *int    `json:"i"`
}

// CodeActionResolve answers codeAction/resolve: the whole action of a
// lazy one (see above). An action without data is not one agentls listed
// lazily; one that already carries its command or edit is answered as it
// came (a client may resolve every action it runs).
func (rs *Runs) CodeActionResolve(_ context.Context, a *protocol.CodeAction) (*protocol.CodeAction, error) {
	const method = protocol.MethodCodeActionResolve
	if len(a.Data) == 0 {
		if a.Command.Command != "" || a.Edit != nil {
			return a, nil
		}
		return nil, core.InvalidParams("%s: the action %q has no data to resolve it from: agentls did not list it lazily", method, a.Title)
	}
	var d lazyData
	if err := json.Unmarshal(a.Data, &d); err != nil || d.Set == nil || d.I == nil {
		return nil, core.InvalidParams("%s: data %s is not agentls's {\"set\":<n>,\"i\":<n>}", method, clipData(a.Data))
	}
	set, ok, last := rs.actionSets.get(*d.Set)
	switch {
	case !ok && (*d.Set == 0 || *d.Set > last):
		return nil, core.InvalidParams("%s: agentls listed no code actions as set %d", method, *d.Set)
	case !ok:
		return nil, core.ContentModified("%s: the code actions listed with %q are no longer kept (only the latest %d lists are); ask for code actions again", method, a.Title, maxActionSets)
	}
	if ver, open := rs.view.BufferVersion(set.path); open != set.open || ver != set.version {
		return nil, core.ContentModified("%s: the document changed since %q was listed (version %d, now %d); ask for code actions again", method, a.Title, set.version, ver)
	}
	actions := rs.codeActions(set.params, core.DocKey(set.params.TextDocument.URI), false)
	i := *d.I
	if i < 0 || i >= len(actions) || title(actions[i]) != a.Title {
		// The list changed without an edit (a change decided, a plan
		// approved): the action may still be offered elsewhere in it.
		i = -1
		for j, b := range actions {
			if title(b) == a.Title {
				i = j
				break
			}
		}
	}
	if i < 0 {
		return nil, core.ContentModified("%s: %q is no longer offered; ask for code actions again", method, a.Title)
	}
	ca, ok := actions[i].(*protocol.CodeAction)
	if !ok {
		return nil, core.InvalidParams("%s: %q is a command, not a code action", method, a.Title)
	}
	return ca, nil
}

// title is a code action's or command's title.
func title(a protocol.CommandOrCodeAction) string {
	switch a := a.(type) {
	case *protocol.CodeAction:
		return a.Title
	case *protocol.Command:
		return a.Title
	}
	return ""
}

// clipData is data for an error message, at most 80 bytes.
func clipData(b []byte) string {
	if len(b) > 80 {
		return string(b[:77]) + "..."
	}
	return string(b)
}
