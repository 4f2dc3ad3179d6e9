package tools

import (
	"slices"

	"github.com/google/jsonschema-go/jsonschema"
)

// strictSchema rewrites a schema inferred by jsonschema.For into the subset
// OpenAI's strict function calling accepts (and that every other
// OpenAI-compatible server also takes):
//
//   - every object lists all its properties in "required" and sets
//     "additionalProperties": false;
//   - a property that was optional becomes nullable (["string","null"]), so
//     the model sends null for "absent"; required ones never are;
//   - only type, description, properties, required, additionalProperties,
//     items and enum survive: strict mode rejects keywords such as minimum
//     or format, and they cost tokens on every request.
//
// It builds a fresh schema (a whitelist), so keywords added by a future
// jsonschema-go release cannot leak through.
func strictSchema(in *jsonschema.Schema) *jsonschema.Schema {
	return strictNode(in, false)
}

func strictNode(in *jsonschema.Schema, nullable bool) *jsonschema.Schema {
	if in == nil {
		return nil
	}
	out := &jsonschema.Schema{Description: in.Description}
	if len(in.Enum) > 0 {
		out.Enum = append([]any(nil), in.Enum...)
	}
	types := in.Types
	if in.Type != "" {
		types = []string{in.Type}
	}
	// Null is allowed exactly for optional properties (jsonschema-go also
	// makes pointers and slices nullable; a required parameter must not
	// be). It goes last: providers show the first type as the main one.
	var nonNull []string
	for _, t := range types {
		if t != "null" {
			nonNull = append(nonNull, t)
		}
	}
	if nullable {
		out.Types = append(nonNull, "null")
	} else if len(nonNull) == 1 {
		out.Type = nonNull[0]
	} else {
		out.Types = nonNull
	}
	if in.Items != nil {
		out.Items = strictNode(in.Items, false)
	}
	if slices.Contains(nonNull, "object") {
		out.Properties = map[string]*jsonschema.Schema{}
		order := in.PropertyOrder
		if len(order) == 0 {
			for k := range in.Properties {
				order = append(order, k)
			}
			slices.Sort(order)
		}
		for _, name := range order {
			optional := !slices.Contains(in.Required, name)
			out.Properties[name] = strictNode(in.Properties[name], optional)
			out.Required = append(out.Required, name)
		}
		out.PropertyOrder = order
		out.AdditionalProperties = &jsonschema.Schema{Not: &jsonschema.Schema{}}
	}
	return out
}
