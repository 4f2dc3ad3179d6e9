package config

import (
	"bytes"
	"encoding/json"
	"fmt"
	"strings"
)

// MergeSettings is the editor layer (source 4 of the package doc) of an
// editor that sent initializationOptions and then, maybe,
// workspace/didChangeConfiguration settings: the later overrides the
// earlier key by key (objects merge, mcpServers entries replace by name, as
// Load merges its sources), so a client that sends only the changed keys
// and one that resends everything both work. A side that is not a JSON
// object is left out and named in the error; the other side still applies.
// nil, nil: neither side sent anything.
func MergeSettings(init, latest json.RawMessage) (json.RawMessage, error) {
	var errs []string
	section := func(what string, raw json.RawMessage) map[string]any {
		if isNull(raw) {
			return nil
		}
		m, err := Section(raw)
		if err != nil {
			errs = append(errs, fmt.Sprintf("%s: %v", what, err))
			return nil
		}
		return m
	}
	a := section("initializationOptions", init)
	b := section("workspace/didChangeConfiguration settings", latest)
	var err error
	if len(errs) > 0 {
		err = fmt.Errorf("editor settings ignored: %s", strings.Join(errs, "; "))
	}
	if a == nil && b == nil {
		return nil, err
	}
	merged := map[string]any{}
	mergeSettings(merged, a, "")
	mergeSettings(merged, b, "")
	out, mErr := json.Marshal(merged)
	if mErr != nil { // decoded JSON always marshals
		return nil, fmt.Errorf("merge editor settings: %w", mErr)
	}
	return out, err
}

// mergeSettings folds src into dst; parent is the key src sits under.
// Keys are visited in order so the result does not depend on map order.
func mergeSettings(dst, src map[string]any, parent string) {
	for _, k := range sortedKeys(src) {
		v := src[k]
		if v == nil {
			continue
		}
		sub, isObj := v.(map[string]any)
		if isObj && !strings.EqualFold(parent, "mcpServers") {
			d, ok := dst[k].(map[string]any)
			if !ok {
				d = map[string]any{}
				dst[k] = d
			}
			mergeSettings(d, sub, k)
			continue
		}
		dst[k] = v
	}
}

// isNull reports whether raw is absent, blank or JSON null: what an editor
// sends when it has no settings.
func isNull(raw []byte) bool {
	t := bytes.TrimSpace(raw)
	return len(t) == 0 || bytes.Equal(t, []byte("null"))
}
