package script

import (
	"bytes"
	"encoding/json"
	"fmt"
	"math"
	"math/big"
	"slices"
	"strconv"
	"strings"

	"go.starlark.net/starlark"
)

// maxDepth bounds nesting when converting values (a list may contain
// itself).
const maxDepth = 64

// object builds a tool's JSON arguments object from Starlark arguments.
type object struct {
	buf  bytes.Buffer
	keys map[string]bool
}

func newObject() *object {
	o := &object{keys: map[string]bool{}}
	o.buf.WriteByte('{')
	return o
}

func (o *object) has(k string) bool { return o.keys[k] }

// add sets k to v; None means the argument is absent.
func (o *object) add(k string, v starlark.Value) error {
	o.keys[k] = true
	if v == starlark.None {
		return nil
	}
	var val bytes.Buffer
	if err := encode(&val, v, 0); err != nil {
		return fmt.Errorf("argument %s: %w", k, err)
	}
	if o.buf.Len() > 1 {
		o.buf.WriteByte(',')
	}
	kb, _ := json.Marshal(k)
	o.buf.Write(kb)
	o.buf.WriteByte(':')
	o.buf.Write(val.Bytes())
	return nil
}

func (o *object) bytes() json.RawMessage {
	return append(append([]byte(nil), o.buf.Bytes()...), '}')
}

// encodeJSON encodes a Starlark value as JSON: None, bools, ints, finite
// floats, strings, lists, tuples, sets and dicts with string keys, in
// order.
func encodeJSON(v starlark.Value) ([]byte, error) {
	var b bytes.Buffer
	if err := encode(&b, v, 0); err != nil {
		return nil, err
	}
	return b.Bytes(), nil
}

func encode(b *bytes.Buffer, v starlark.Value, depth int) error {
	if depth > maxDepth {
		return fmt.Errorf("value nested more than %d deep", maxDepth)
	}
	switch v := v.(type) {
	case starlark.NoneType:
		b.WriteString("null")
	case starlark.Bool:
		b.WriteString(strconv.FormatBool(bool(v)))
	case starlark.Int:
		b.WriteString(v.String())
	case starlark.Float:
		f := float64(v)
		if math.IsInf(f, 0) || math.IsNaN(f) {
			return fmt.Errorf("cannot encode %v as JSON", v)
		}
		b.WriteString(strconv.FormatFloat(f, 'g', -1, 64))
	case starlark.String:
		s, _ := json.Marshal(string(v))
		b.Write(s)
	case *starlark.Dict:
		b.WriteByte('{')
		for i, item := range v.Items() {
			k, ok := item[0].(starlark.String)
			if !ok {
				return fmt.Errorf("dict key %s is a %s; only string keys can be sent", item[0], item[0].Type())
			}
			if i > 0 {
				b.WriteByte(',')
			}
			ks, _ := json.Marshal(string(k))
			b.Write(ks)
			b.WriteByte(':')
			if err := encode(b, item[1], depth+1); err != nil {
				return err
			}
		}
		b.WriteByte('}')
	case starlark.Iterable: // list, tuple, set
		if _, ok := v.(starlark.Indexable); !ok {
			if _, ok := v.(*starlark.Set); !ok {
				return fmt.Errorf("cannot encode a %s as JSON", v.Type())
			}
		}
		b.WriteByte('[')
		it := v.Iterate()
		defer it.Done()
		var x starlark.Value
		for i := 0; it.Next(&x); i++ {
			if i > 0 {
				b.WriteByte(',')
			}
			if err := encode(b, x, depth+1); err != nil {
				return err
			}
		}
		b.WriteByte(']')
	default:
		return fmt.Errorf("cannot encode a %s as JSON", v.Type())
	}
	return nil
}

// decodeJSON turns a tool's JSON value into Starlark values: objects
// become dicts (keys sorted, as Go encodes its maps), arrays lists,
// integers ints. Decoding whole and converting is several times faster
// than walking the tokens.
func decodeJSON(raw json.RawMessage) (starlark.Value, error) {
	if len(bytes.TrimSpace(raw)) == 0 {
		return starlark.None, nil
	}
	dec := json.NewDecoder(bytes.NewReader(raw))
	dec.UseNumber()
	var v any
	if err := dec.Decode(&v); err != nil {
		return nil, err
	}
	return fromGo(v, 0)
}

func fromGo(v any, depth int) (starlark.Value, error) {
	if depth > maxDepth {
		return nil, fmt.Errorf("value nested more than %d deep", maxDepth)
	}
	switch v := v.(type) {
	case nil:
		return starlark.None, nil
	case bool:
		return starlark.Bool(v), nil
	case string:
		return starlark.String(v), nil
	case json.Number:
		return number(v)
	case []any:
		elems := make([]starlark.Value, len(v))
		for i, x := range v {
			e, err := fromGo(x, depth+1)
			if err != nil {
				return nil, err
			}
			elems[i] = e
		}
		return starlark.NewList(elems), nil
	case map[string]any:
		keys := make([]string, 0, len(v))
		for k := range v {
			keys = append(keys, k)
		}
		slices.Sort(keys)
		d := starlark.NewDict(len(v))
		for _, k := range keys {
			e, err := fromGo(v[k], depth+1)
			if err != nil {
				return nil, err
			}
			if err := d.SetKey(starlark.String(k), e); err != nil {
				return nil, err
			}
		}
		return d, nil
	}
	return nil, fmt.Errorf("unexpected JSON value %T", v)
}
func number(n json.Number) (starlark.Value, error) {
	s := string(n)
	if !strings.ContainsAny(s, ".eE") {
		if i, err := strconv.ParseInt(s, 10, 64); err == nil {
			return starlark.MakeInt64(i), nil
		}
		if bi, ok := new(big.Int).SetString(s, 10); ok {
			return starlark.MakeBigInt(bi), nil
		}
	}
	f, err := strconv.ParseFloat(s, 64)
	if err != nil {
		return nil, fmt.Errorf("bad number %s", s)
	}
	return starlark.Float(f), nil
}
