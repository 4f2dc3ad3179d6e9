package lspserver_test

import (
	"go/build"
	"slices"
	"strings"
	"testing"
)

// TestPartsImportOneWay keeps the parts' boundaries (doc.go): core
// imports none of the other parts, docs only core, and runs and review
// never each other (a one-way import between them would compile, so this
// test is what catches it). Test files count too.
func TestPartsImportOneWay(t *testing.T) {
	const mod = "github.com/agentls/agentls/lspserver/"
	allowed := map[string][]string{
		"core":   nil,
		"docs":   {"core"},
		"review": {"core", "docs"},
		"runs":   {"core", "docs"},
		"inline": {"core", "docs"},
	}
	for part, ok := range allowed {
		pkg, err := build.ImportDir(part, 0)
		if err != nil {
			t.Fatalf("%s: %v", part, err)
		}
		for _, imp := range slices.Concat(pkg.Imports, pkg.TestImports, pkg.XTestImports) {
			sub, found := strings.CutPrefix(imp, mod)
			if !found || slices.Contains(ok, sub) || sub == part {
				continue
			}
			t.Errorf("lspserver/%s imports %s; it may import only %v of lspserver's packages", part, imp, ok)
		}
	}
}
