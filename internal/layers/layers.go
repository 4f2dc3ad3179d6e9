// Package layers is the one table of the module's layering, which a test
// holds every import against (production and test files alike):
//
//	cmd → faces → core → tools → foundation
//
// A package may import packages of its own layer or below, never above.
// The faces (lspserver, acpserver) sit side by side and never import each
// other; nothing below them imports a face. docs/architecture.md's import
// graph is generated from the same `go list` the test reads.
package layers

import "strings"

// Module is the module path every package below starts with.
const Module = "github.com/agentls/agentls"

// Layer is one row of the table: its rank (higher imports lower) and the
// package path prefixes (relative to Module) that belong to it.
type Layer struct {
	Name     string
	Rank     int
	Prefixes []string
}

// Table lists the layers from the top. editors/ holds the first-party
// clients' end-to-end tests, which drive the built binary like cmd does.
var Table = []Layer{
	{Name: "cmd", Rank: 4, Prefixes: []string{"cmd", "editors"}},
	{Name: "faces", Rank: 3, Prefixes: []string{"lspserver", "acpserver"}},
	{Name: "core", Rank: 2, Prefixes: []string{"agent"}},
	{Name: "tools", Rank: 1, Prefixes: []string{"tools"}},
	{Name: "foundation", Rank: 0, Prefixes: []string{"internal"}},
}

// Of returns the layer of a package path relative to Module, and the face
// it belongs to ("" outside the faces), or ok=false for a path outside the
// table.
func Of(rel string) (l Layer, face string, ok bool) {
	top, _, _ := strings.Cut(rel, "/")
	for _, l := range Table {
		for _, p := range l.Prefixes {
			if top == p {
				if l.Name == "faces" {
					face = p
				}
				return l, face, true
			}
		}
	}
	return Layer{}, "", false
}

// Allowed reports whether package from may import package to (both relative
// to Module), and why not when it may not.
func Allowed(from, to string) (bool, string) {
	lf, ff, ok := Of(from)
	if !ok {
		return false, from + " is in no layer of internal/layers.Table"
	}
	lt, ft, ok := Of(to)
	if !ok {
		return false, to + " is in no layer of internal/layers.Table"
	}
	if lt.Rank > lf.Rank {
		return false, from + " (" + lf.Name + ") imports " + to + " (" + lt.Name + "), a layer above it"
	}
	if ff != "" && ft != "" && ff != ft {
		return false, from + " imports " + to + ": the faces never import each other"
	}
	return true, ""
}
