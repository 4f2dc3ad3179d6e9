package rpcwire

// Both faces bound one message from the client (ACP by line, LSP by
// frame); an oversized *answer* to one of the face's own requests must
// fail that request at once instead of ending the connection or leaving
// the request to its timeout, so the guard needs its id and whether it is
// an answer from the first bytes only.

import (
	"bytes"
	"encoding/json"
)

// Head reads the top-level "id" of a (possibly cut) JSON object by walking
// its tokens, and whether it is a response: a "result" or "error" member
// and no "method" before the cut. id is nil when no usable id (a string
// or a number) comes before the cut.
func Head(prefix []byte) (id json.RawMessage, response bool) {
	dec := json.NewDecoder(bytes.NewReader(prefix))
	if t, err := dec.Token(); err != nil || t != json.Delim('{') {
		return nil, false
	}
	method := false
	for dec.More() {
		k, err := dec.Token()
		if err != nil {
			break
		}
		switch k {
		case "method":
			method = true
		case "result", "error":
			response = true
		}
		var v json.RawMessage
		if err := dec.Decode(&v); err != nil {
			break
		}
		if k == "id" && len(v) > 0 && (v[0] == '"' || v[0] == '-' || (v[0] >= '0' && v[0] <= '9')) {
			id = v
		}
	}
	return id, response && !method
}
