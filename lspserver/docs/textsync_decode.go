package docs

import (
	"bytes"
	"encoding/json"
	"fmt"
	"math"
	"strconv"

	"github.com/go-json-experiment/json/jsontext"
	"go.lsp.dev/protocol"

	"github.com/agentls/agentls/internal/text"
	"github.com/agentls/agentls/lspserver/core"
)

// Strict decoding of didChange. go.lsp.dev's union decoder falls back to a
// whole-document change when a range does not decode (line -1, 1.5, a
// missing end), which silently replaced the buffer with the change's text;
// and a uint32 line of 2^32-1 is "valid" Go but no editor's position. Every
// content change is therefore decoded here, field by field:
//
//   - a change with a "range" must have start and end, each with line and
//     character as JSON integers in LSP's uinteger range 0..2^31-1, and start
//     must not be after end;
//   - a change without "range" replaces the whole document;
//   - "text" must be a string in both cases.
//
// A line past the end of the document or a character past the end of its
// line is still legal (LSP clamps them; internal/text does). Anything else
// refuses the whole notification: the server logs it and keeps the document
// as it was. There is no LSP message that asks the editor for its buffer,
// so the server cannot resync by itself; the next didOpen, or a
// whole-document change, brings the copies together again.

// MaxPosition is LSP's largest uinteger, the bound of a line or character.
const MaxPosition = math.MaxInt32

// DidChangeParams is textDocument/didChange's params with the content
// changes left raw for ParseContentChange.
type DidChangeParams struct {
	TextDocument   protocol.VersionedTextDocumentIdentifier `json:"textDocument"`
	ContentChanges []jsontext.Value                         `json:"contentChanges"`
}

// ParseContentChanges decodes every change, or none.
func ParseContentChanges(raw []jsontext.Value) ([]text.Change, error) {
	out := make([]text.Change, 0, len(raw))
	for i, r := range raw {
		c, err := ParseContentChange(r)
		if err != nil {
			return nil, fmt.Errorf("content change %d of %d: %w", i+1, len(raw), err)
		}
		out = append(out, c)
	}
	return out, nil
}

// ParseContentChange decodes one content change strictly (see above).
func ParseContentChange(raw []byte) (text.Change, error) {
	var wc struct {
		Range json.RawMessage `json:"range"`
		Text  *string         `json:"text"`
	}
	if err := json.Unmarshal(raw, &wc); err != nil {
		return text.Change{}, fmt.Errorf("not a content change object: %w", err)
	}
	if wc.Text == nil {
		return text.Change{}, fmt.Errorf(`"text" is missing or null`)
	}
	if wc.Range == nil {
		return text.Change{Text: *wc.Text}, nil
	}
	var wr struct {
		Start json.RawMessage `json:"start"`
		End   json.RawMessage `json:"end"`
	}
	if err := json.Unmarshal(wc.Range, &wr); err != nil || core.IsNull(wc.Range) {
		return text.Change{}, fmt.Errorf("range is not an object: %s", clipJSON(wc.Range))
	}
	start, err := parsePosition("start", wr.Start)
	if err != nil {
		return text.Change{}, err
	}
	end, err := parsePosition("end", wr.End)
	if err != nil {
		return text.Change{}, err
	}
	if end.Line < start.Line || end.Line == start.Line && end.Character < start.Character {
		return text.Change{}, fmt.Errorf("range start %d:%d is after its end %d:%d", start.Line, start.Character, end.Line, end.Character)
	}
	return text.Change{Range: &text.Range{Start: start, End: end}, Text: *wc.Text}, nil
}

func parsePosition(name string, raw json.RawMessage) (text.Position, error) {
	if raw == nil || core.IsNull(raw) {
		return text.Position{}, fmt.Errorf("range has no %s", name)
	}
	var wp struct {
		Line      json.RawMessage `json:"line"`
		Character json.RawMessage `json:"character"`
	}
	if err := json.Unmarshal(raw, &wp); err != nil {
		return text.Position{}, fmt.Errorf("range %s is not an object: %s", name, clipJSON(raw))
	}
	line, err := parseUinteger(name+".line", wp.Line)
	if err != nil {
		return text.Position{}, err
	}
	char, err := parseUinteger(name+".character", wp.Character)
	if err != nil {
		return text.Position{}, err
	}
	return text.Position{Line: line, Character: char}, nil
}

// parseUinteger accepts a JSON integer literal in 0..MaxPosition: no sign,
// fraction, exponent, string or null.
func parseUinteger(name string, raw json.RawMessage) (uint32, error) {
	if raw == nil {
		return 0, fmt.Errorf("range %s is missing", name)
	}
	n, err := strconv.ParseUint(string(bytes.TrimSpace(raw)), 10, 64)
	if err != nil || n > MaxPosition {
		return 0, fmt.Errorf("range %s is %s, want an integer in 0..%d", name, clipJSON(raw), MaxPosition)
	}
	return uint32(n), nil
}

// clipJSON is raw for a log line: at most 40 bytes.
func clipJSON(raw []byte) string {
	if len(raw) > 40 {
		return string(raw[:40]) + "…"
	}
	return string(raw)
}
