package tools

import (
	"bytes"
	"encoding/json"
	"strings"
)

// emptySchema is offered for a tool whose schema cannot be used at all.
var emptySchema = json.RawMessage(`{"type":"object","properties":{}}`)

// ForeignSchema adapts an input schema written elsewhere (an MCP server's,
// an editor's) for the model endpoint,
// changing only what OpenAI-compatible endpoints reject; everything else
// (keywords, order of keys, unknown extensions) passes through untouched.
// The adaptations, each tested in tools/mcp/schema_test.go:
//
//  1. A missing, null, non-object or invalid schema becomes an empty
//     object schema (endpoints require an object schema).
//  2. A top-level "$ref" to a local definition ("#/$defs/NAME" or
//     "#/definitions/NAME") is replaced by that definition's keywords,
//     merged into the root (keywords already at the root win; $defs stays
//     so nested references still resolve): endpoints require the root
//     itself to say "type": "object".
//  3. A root without "type" gets "type": "object"; a root of type object
//     without "properties" gets "properties": {} (some endpoints reject an
//     object schema without it).
//
// Top-level oneOf/anyOf/allOf, if/then/else, $schema and the rest are
// passed through: OpenAI accepts them outside strict mode, and these tools
// are always sent with strict off.
func ForeignSchema(raw json.RawMessage) json.RawMessage {
	raw = bytes.TrimSpace(raw)
	if len(raw) == 0 || raw[0] != '{' || !json.Valid(raw) {
		return emptySchema
	}
	var root map[string]json.RawMessage
	if err := json.Unmarshal(raw, &root); err != nil {
		return emptySchema
	}
	var add []kv
	if ref, ok := root["$ref"]; ok {
		if def := localDef(root, ref); def != nil {
			// Rebuild: the root's other keywords, then the definition's.
			var out []kv
			for _, k := range orderedKeys(raw) {
				if k != "$ref" {
					out = append(out, kv{k, root[k]})
				}
			}
			for _, k := range orderedKeys(def.raw) {
				// A chained reference is left out rather than half-resolved.
				if _, taken := root[k]; !taken && k != "$ref" {
					out = append(out, kv{k, def.m[k]})
				}
			}
			raw = encodeObject(out)
			root = map[string]json.RawMessage{}
			for _, p := range out {
				root[p.k] = p.v
			}
		}
	}
	typ, hasType := root["type"]
	if !hasType {
		add = append(add, kv{"type", json.RawMessage(`"object"`)})
	}
	if _, ok := root["properties"]; !ok && (!hasType || string(bytes.TrimSpace(typ)) == `"object"`) {
		add = append(add, kv{"properties", json.RawMessage(`{}`)})
	}
	if len(add) == 0 {
		return raw
	}
	// Prepend the additions, keeping the server's text after them.
	var b bytes.Buffer
	b.WriteByte('{')
	for _, p := range add {
		k, _ := json.Marshal(p.k)
		b.Write(k)
		b.WriteByte(':')
		b.Write(p.v)
		b.WriteByte(',')
	}
	rest := bytes.TrimSpace(raw[1:])
	if rest[0] == '}' { // empty object: drop the trailing comma
		b.Truncate(b.Len() - 1)
	}
	b.Write(rest)
	return b.Bytes()
}

type kv struct {
	k string
	v json.RawMessage
}

type defn struct {
	raw json.RawMessage
	m   map[string]json.RawMessage
}

// localDef resolves a "#/$defs/NAME" or "#/definitions/NAME" reference
// against root, or returns nil.
func localDef(root map[string]json.RawMessage, ref json.RawMessage) *defn {
	var s string
	if json.Unmarshal(ref, &s) != nil {
		return nil
	}
	for _, section := range []string{"$defs", "definitions"} {
		prefix := "#/" + section + "/"
		if !strings.HasPrefix(s, prefix) {
			continue
		}
		name := strings.ReplaceAll(strings.ReplaceAll(s[len(prefix):], "~1", "/"), "~0", "~")
		var defs map[string]json.RawMessage
		if json.Unmarshal(root[section], &defs) != nil {
			return nil
		}
		raw := bytes.TrimSpace(defs[name])
		if len(raw) == 0 || raw[0] != '{' {
			return nil
		}
		var m map[string]json.RawMessage
		if json.Unmarshal(raw, &m) != nil {
			return nil
		}
		return &defn{raw: raw, m: m}
	}
	return nil
}

// orderedKeys lists an object's keys in document order.
func orderedKeys(obj json.RawMessage) []string {
	dec := json.NewDecoder(bytes.NewReader(obj))
	if _, err := dec.Token(); err != nil {
		return nil
	}
	var keys []string
	for dec.More() {
		t, err := dec.Token()
		if err != nil {
			return keys
		}
		k, _ := t.(string)
		keys = append(keys, k)
		var skip json.RawMessage
		if err := dec.Decode(&skip); err != nil {
			return keys
		}
	}
	return keys
}

func encodeObject(pairs []kv) json.RawMessage {
	var b bytes.Buffer
	b.WriteByte('{')
	for i, p := range pairs {
		if i > 0 {
			b.WriteByte(',')
		}
		k, _ := json.Marshal(p.k)
		b.Write(k)
		b.WriteByte(':')
		b.Write(p.v)
	}
	b.WriteByte('}')
	return b.Bytes()
}
