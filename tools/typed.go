package tools

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"reflect"
	"sort"
	"strings"

	"github.com/google/jsonschema-go/jsonschema"
)

// New makes a Tool from a typed params struct and handler, the way every
// built-in is defined: the JSON schema is derived from P (field names from
// json tags, descriptions from jsonschema tags), so the model's view and the
// decoder can never drift apart. Optional parameters are pointer fields
// tagged omitempty; in the schema they become nullable (see strictSchema),
// and a null or missing value decodes to nil.
//
// New panics if P cannot be described as a strict schema: that is a
// programming error in a built-in, caught by the package tests.
func New[P any](name, description string, readOnly bool, h func(ctx context.Context, env *Env, p P) (Result, error)) Tool {
	s, err := jsonschema.For[P](nil)
	if err != nil {
		panic(fmt.Sprintf("tool %s: schema: %v", name, err))
	}
	props := map[string]bool{}
	for k := range s.Properties {
		props[k] = true
	}
	required := append([]string(nil), s.Required...)
	raw, err := json.Marshal(strictSchema(s))
	if err != nil {
		panic(fmt.Sprintf("tool %s: marshal schema: %v", name, err))
	}
	return &typedTool[P]{
		name: name, desc: strings.TrimSpace(description), readOnly: readOnly,
		schema: raw, props: props, required: required, handler: h,
	}
}

type typedTool[P any] struct {
	name     string
	desc     string
	readOnly bool
	schema   json.RawMessage
	props    map[string]bool // known top-level argument names
	required []string        // arguments that must be present and not null
	handler  func(ctx context.Context, env *Env, p P) (Result, error)
}

func (t *typedTool[P]) Name() string            { return t.name }
func (t *typedTool[P]) Description() string     { return t.desc }
func (t *typedTool[P]) Schema() json.RawMessage { return t.schema }
func (t *typedTool[P]) ReadOnly() bool          { return t.readOnly }

// Call decodes args into P and runs the handler. Bad arguments come back as
// a tool error the model can correct, never as a Go error.
func (t *typedTool[P]) Call(ctx context.Context, env *Env, args json.RawMessage) (Result, error) {
	var p P
	if msg := t.decode(args, &p); msg != "" {
		return Errorf("invalid arguments for %s: %s", t.name, msg), nil
	}
	if err := ctx.Err(); err != nil {
		return Result{}, err
	}
	return t.handler(ctx, env, p)
}

// decode fills p from args and returns a model-facing message on failure.
func (t *typedTool[P]) decode(args json.RawMessage, p *P) string {
	trimmed := bytes.TrimSpace(args)
	if len(trimmed) == 0 || bytes.Equal(trimmed, []byte("null")) {
		trimmed = []byte("{}")
	}
	var fields map[string]json.RawMessage
	if err := json.Unmarshal(trimmed, &fields); err != nil {
		return "arguments must be a JSON object: " + jsonProblem(err)
	}
	var unknown, missing []string
	for k := range fields {
		if !t.props[k] {
			unknown = append(unknown, k)
		}
	}
	for _, k := range t.required {
		if v, ok := fields[k]; !ok || bytes.Equal(bytes.TrimSpace(v), []byte("null")) {
			missing = append(missing, k)
		}
	}
	if len(unknown) > 0 {
		sort.Strings(unknown)
		return fmt.Sprintf("unknown parameter(s) %s; allowed: %s", strings.Join(unknown, ", "), strings.Join(t.propNames(), ", "))
	}
	if len(missing) > 0 {
		return "missing required parameter(s) " + strings.Join(missing, ", ")
	}
	dec := json.NewDecoder(bytes.NewReader(trimmed))
	dec.DisallowUnknownFields() // catches unknown fields in nested objects too
	if err := dec.Decode(p); err != nil {
		return jsonProblem(err)
	}
	return ""
}

func (t *typedTool[P]) propNames() []string {
	out := make([]string, 0, len(t.props))
	for k := range t.props {
		out = append(out, k)
	}
	sort.Strings(out)
	return out
}

// jsonProblem turns an encoding/json error into a short sentence naming the
// parameter and the expected type.
func jsonProblem(err error) string {
	var te *json.UnmarshalTypeError
	if errors.As(err, &te) {
		field := te.Field
		if field == "" {
			field = "arguments"
		}
		return fmt.Sprintf("%s: expected %s, got %s", field, jsonTypeName(te.Type), te.Value)
	}
	var se *json.SyntaxError
	if errors.As(err, &se) {
		return fmt.Sprintf("malformed JSON at byte %d: %v", se.Offset, err)
	}
	return err.Error()
}

func jsonTypeName(t reflect.Type) string {
	for t.Kind() == reflect.Pointer {
		t = t.Elem()
	}
	switch t.Kind() {
	case reflect.String:
		return "string"
	case reflect.Bool:
		return "boolean"
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64,
		reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64:
		return "integer"
	case reflect.Float32, reflect.Float64:
		return "number"
	case reflect.Slice, reflect.Array:
		return "array"
	case reflect.Struct, reflect.Map:
		return "object"
	}
	return t.String()
}
