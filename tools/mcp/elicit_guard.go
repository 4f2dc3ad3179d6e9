package mcp

import (
	"encoding/json"
	"errors"
	"fmt"

	"github.com/mark3labs/mcp-go/mcp"

	"github.com/agentls/agentls/internal/safetext"
)

// An MCP server's elicitation/create puts its words in front of the user,
// so it is bounded and screened before any front-end shows it:
//
//   - it is refused unless a tool call of that server is in progress (a
//     server cannot pop up prompts on its own, at start or between runs);
//   - at most maxElicitationsPerCall per call in progress, one shown at a
//     time per server: a flood of 200 prompts shows a few and declines the
//     rest at once;
//   - the message, the form's fields and enum values are bounded, and
//     control characters (ESC sequences, bidi overrides) in what is shown
//     are escaped (safetext); values sent back to the server (property
//     names, enum and const values, defaults) must have none, or the form
//     is refused, since escaping them would change the answer;
//   - a URL-mode request must be https (or http on this machine),
//     CheckBrowserURL; javascript:, file:, vscode: and the like are refused.
//
// A refused request is declined (the server sees "decline") and logged.
const (
	maxElicitationsPerCall = 4
	maxElicitMessageBytes  = 4 << 10
	maxElicitSchemaBytes   = 64 << 10
	maxElicitFields        = 16
	maxElicitChoices       = 32 // enum values or oneOf/anyOf entries of one field
	maxElicitValueBytes    = 200
	maxElicitTitleBytes    = 200
	maxElicitDescBytes     = 1000
	maxElicitSchemaDepth   = 8
)

// errElicitRefused wraps every screening refusal.
var errElicitRefused = errors.New("elicitation refused")

// admitElicitation counts one request for input against the calls of s in
// progress; it fails when there is none or the budget is spent.
func (s *server) admitElicitation() error {
	s.mu.Lock()
	defer s.mu.Unlock()
	switch {
	case len(s.calls) == 0:
		return fmt.Errorf("%w: no tool call of this server is in progress", errElicitRefused)
	case s.busyElicits >= maxElicitationsPerCall*s.busyCalls:
		return fmt.Errorf("%w: more than %d requests for input per tool call", errElicitRefused, maxElicitationsPerCall)
	}
	s.busyElicits++
	return nil
}

// screenElicitation bounds and sanitizes e for display, or refuses it.
func screenElicitation(e Elicitation) (Elicitation, error) {
	if len(e.Message) > maxElicitMessageBytes {
		return e, fmt.Errorf("%w: the message is %d bytes (at most %d)", errElicitRefused, len(e.Message), maxElicitMessageBytes)
	}
	e.Message = safetext.Text(e.Message)
	if e.Mode == mcp.ElicitationModeURL {
		if err := CheckBrowserURL(e.URL); err != nil {
			return e, fmt.Errorf("%w: %w", errElicitRefused, err)
		}
		return e, nil
	}
	if len(e.Schema) > maxElicitSchemaBytes {
		return e, fmt.Errorf("%w: the form is %d bytes (at most %d)", errElicitRefused, len(e.Schema), maxElicitSchemaBytes)
	}
	if len(e.Schema) == 0 {
		return e, nil
	}
	var schema any
	if err := json.Unmarshal(e.Schema, &schema); err != nil {
		return e, fmt.Errorf("%w: the form is not JSON: %v", errElicitRefused, err)
	}
	if err := screenSchema(schema, 0); err != nil {
		return e, fmt.Errorf("%w: %w", errElicitRefused, err)
	}
	e.Schema, _ = json.Marshal(schema) // decoded JSON: always marshals
	return e, nil
}

// screenSchema walks a requestedSchema in place: texts shown are escaped
// and bounded, values sent back must be clean, counts are bounded.
func screenSchema(v any, depth int) error {
	if depth > maxElicitSchemaDepth {
		return errors.New("the form nests too deep")
	}
	obj, ok := v.(map[string]any)
	if !ok {
		return nil
	}
	for k, val := range obj {
		switch k {
		case "title":
			if s, ok := val.(string); ok {
				obj[k] = safetext.Bound(safetext.Line(s), maxElicitTitleBytes)
			}
		case "description":
			if s, ok := val.(string); ok {
				obj[k] = safetext.Bound(safetext.Text(s), maxElicitDescBytes)
			}
		case "enumNames":
			list, _ := val.([]any)
			if len(list) > maxElicitChoices {
				return fmt.Errorf("a field offers %d choices (at most %d)", len(list), maxElicitChoices)
			}
			for i, x := range list {
				if s, ok := x.(string); ok {
					list[i] = safetext.Bound(safetext.Line(s), maxElicitTitleBytes)
				}
			}
		case "enum", "examples":
			list, _ := val.([]any)
			if len(list) > maxElicitChoices {
				return fmt.Errorf("a field offers %d choices (at most %d)", len(list), maxElicitChoices)
			}
			for _, x := range list {
				if err := cleanValue(x); err != nil {
					return err
				}
			}
		case "const", "default":
			if err := cleanValue(val); err != nil {
				return err
			}
		case "oneOf", "anyOf":
			list, _ := val.([]any)
			if len(list) > maxElicitChoices {
				return fmt.Errorf("a field offers %d choices (at most %d)", len(list), maxElicitChoices)
			}
			for _, x := range list {
				if err := screenSchema(x, depth+1); err != nil {
					return err
				}
			}
		case "properties":
			props, _ := val.(map[string]any)
			if len(props) > maxElicitFields {
				return fmt.Errorf("the form has %d fields (at most %d)", len(props), maxElicitFields)
			}
			for name, p := range props {
				if safetext.Line(name) != name || len(name) > maxElicitValueBytes {
					return fmt.Errorf("a field name holds control characters or is too long: %q", safetext.Bound(name, 80))
				}
				if err := screenSchema(p, depth+1); err != nil {
					return err
				}
			}
		case "items":
			if err := screenSchema(val, depth+1); err != nil {
				return err
			}
		}
	}
	return nil
}

// cleanValue accepts a value that goes back to the server as the user's
// answer only when it is shown as it is: strings without control
// characters, bounded.
func cleanValue(v any) error {
	switch x := v.(type) {
	case string:
		if safetext.Line(x) != x || len(x) > maxElicitValueBytes {
			return fmt.Errorf("a choice holds control characters or is too long: %q", safetext.Bound(x, 80))
		}
	case []any:
		if len(x) > maxElicitChoices {
			return fmt.Errorf("a value lists %d items (at most %d)", len(x), maxElicitChoices)
		}
		for _, y := range x {
			if err := cleanValue(y); err != nil {
				return err
			}
		}
	}
	return nil
}
