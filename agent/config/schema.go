package config

import (
	"encoding/json"
	"fmt"
	"reflect"
	"sort"
	"strings"
)

// configType is the schema every source is checked against.
var configType = reflect.TypeFor[Config]()

// clean checks a decoded JSON value against typ, returning it with unknown
// keys and mistyped values removed (each reported through warn) and keys
// renamed to their canonical spelling. path is the dotted key path so far.
func clean(v any, typ reflect.Type, path string, warn func(string)) (any, bool) {
	if v == nil {
		return nil, true // null: "not set here"
	}
	for typ.Kind() == reflect.Pointer {
		typ = typ.Elem()
	}
	if typ == languageServersType {
		return cleanLanguageServers(v, path, warn)
	}
	switch {
	case typ.Kind() == reflect.Struct:
		obj, ok := v.(map[string]any)
		if !ok {
			warn(fmt.Sprintf("%s: expected an object, got %s (ignored)", display(path), jsonKind(v)))
			return nil, false
		}
		fields := jsonFields(typ)
		out := make(map[string]any, len(obj))
		for _, key := range sortedKeys(obj) {
			name, f, ok := lookupField(fields, key)
			if !ok {
				warn(fmt.Sprintf("%s: unknown key (ignored)%s", display(join(path, key)), suggest(key, fields)))
				continue
			}
			if cv, ok := clean(obj[key], f.Type, join(path, name), warn); ok {
				out[name] = cv
			}
		}
		return out, true
	case typ.Kind() == reflect.Map && typ.Key().Kind() == reflect.String && typ.Elem().Kind() == reflect.Struct:
		obj, ok := v.(map[string]any)
		if !ok {
			warn(fmt.Sprintf("%s: expected an object, got %s (ignored)", display(path), jsonKind(v)))
			return nil, false
		}
		out := make(map[string]any, len(obj))
		for _, key := range sortedKeys(obj) {
			if cv, ok := clean(obj[key], typ.Elem(), join(path, key), warn); ok && cv != nil {
				out[key] = cv
			}
		}
		return out, true
	case typ.Kind() == reflect.Slice && typ.Elem().Kind() == reflect.Struct:
		list, ok := v.([]any)
		if !ok {
			warn(fmt.Sprintf("%s: expected an array, got %s (ignored)", display(path), jsonKind(v)))
			return nil, false
		}
		out := make([]any, 0, len(list))
		for i, item := range list {
			if cv, ok := clean(item, typ.Elem(), fmt.Sprintf("%s[%d]", path, i), warn); ok && cv != nil {
				out = append(out, cv)
			}
		}
		return out, true
	default:
		raw, _ := json.Marshal(v) // v came from json.Unmarshal: always marshals
		if err := json.Unmarshal(raw, reflect.New(typ).Interface()); err != nil {
			warn(fmt.Sprintf("%s: expected %s, got %s (ignored)", display(path), typeName(typ), raw))
			return nil, false
		}
		return v, true
	}
}

// jsonFields maps JSON names to struct fields.
func jsonFields(typ reflect.Type) map[string]reflect.StructField {
	out := map[string]reflect.StructField{}
	for i := range typ.NumField() {
		f := typ.Field(i)
		if !f.IsExported() {
			continue
		}
		name, _, _ := strings.Cut(f.Tag.Get("json"), ",")
		if name == "-" {
			continue
		}
		if name == "" {
			name = f.Name
		}
		out[name] = f
	}
	return out
}

// lookupField finds key exactly, else case-insensitively (as
// encoding/json matches), returning the canonical name.
func lookupField(fields map[string]reflect.StructField, key string) (string, reflect.StructField, bool) {
	if f, ok := fields[key]; ok {
		return key, f, true
	}
	for name, f := range fields {
		if strings.EqualFold(name, key) {
			return name, f, true
		}
	}
	return "", reflect.StructField{}, false
}

// suggest proposes the closest known keys for a misspelt one.
func suggest(key string, fields map[string]reflect.StructField) string {
	var best []string
	bestD := 3 // suggest only near misses
	for name := range fields {
		d := editDistance(strings.ToLower(key), strings.ToLower(name))
		switch {
		case d < bestD:
			best, bestD = []string{name}, d
		case d == bestD:
			best = append(best, name)
		}
	}
	if len(best) == 0 {
		return ""
	}
	sort.Strings(best)
	for i, b := range best {
		best[i] = fmt.Sprintf("%q", b)
	}
	return "; did you mean " + strings.Join(best, " or ") + "?"
}

// editDistance is the optimal-string-alignment distance between a and b
// (Levenshtein plus adjacent transpositions, the usual typo).
func editDistance(a, b string) int {
	d := make([][]int, len(a)+1)
	for i := range d {
		d[i] = make([]int, len(b)+1)
		d[i][0] = i
	}
	for j := range d[0] {
		d[0][j] = j
	}
	for i := 1; i <= len(a); i++ {
		for j := 1; j <= len(b); j++ {
			cost := 1
			if a[i-1] == b[j-1] {
				cost = 0
			}
			d[i][j] = min(d[i-1][j]+1, d[i][j-1]+1, d[i-1][j-1]+cost)
			if i > 1 && j > 1 && a[i-1] == b[j-2] && a[i-2] == b[j-1] {
				d[i][j] = min(d[i][j], d[i-2][j-2]+1)
			}
		}
	}
	return d[len(a)][len(b)]
}

func typeName(t reflect.Type) string {
	switch t.Kind() {
	case reflect.String:
		return "a string"
	case reflect.Bool:
		return "true or false"
	case reflect.Int, reflect.Int64, reflect.Int32:
		return "a whole number"
	case reflect.Float32, reflect.Float64:
		return "a number"
	case reflect.Slice:
		return "an array of " + strings.TrimPrefix(strings.TrimPrefix(typeName(t.Elem()), "a "), "an ") + "s"
	case reflect.Map:
		return "an object of " + strings.TrimPrefix(typeName(t.Elem()), "a ") + " values"
	}
	return t.String()
}

func jsonKind(v any) string {
	switch v.(type) {
	case string:
		return "a string"
	case float64:
		return "a number"
	case bool:
		return "a boolean"
	case []any:
		return "an array"
	}
	return fmt.Sprintf("%T", v)
}

func join(path, key string) string {
	if path == "" {
		return key
	}
	return path + "." + key
}

func display(path string) string {
	if path == "" {
		return "(top level)"
	}
	return path
}

func sortedKeys(m map[string]any) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	return keys
}
