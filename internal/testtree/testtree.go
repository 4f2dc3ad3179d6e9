// Package testtree takes byte-for-byte pictures of directory trees, for
// tests that promise the user's files were not written: take one before,
// one after, and Same fails the test naming every difference.
package testtree

import (
	"crypto/sha256"
	"encoding/hex"
	"io/fs"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"testing"
)

// Snapshot is every entry below a root: relative path → kind, mode, size,
// modification time and a hash of the content (or the link target).
type Snapshot map[string]string

// Take pictures root (symlinks are recorded, never followed).
func Take(tb testing.TB, root string) Snapshot {
	tb.Helper()
	out := Snapshot{}
	err := filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(root, p)
		info, err := d.Info()
		if err != nil {
			return err
		}
		switch {
		case d.Type()&fs.ModeSymlink != 0:
			target, err := os.Readlink(p)
			if err != nil {
				return err
			}
			out[rel] = "link -> " + target
		case d.IsDir():
			out[rel] = "dir " + info.Mode().Perm().String()
		case d.Type().IsRegular():
			b, err := os.ReadFile(p)
			if err != nil {
				return err
			}
			sum := sha256.Sum256(b)
			out[rel] = info.Mode().String() + " " + info.ModTime().UTC().String() + " sha256:" + hex.EncodeToString(sum[:])
		default:
			out[rel] = info.Mode().String()
		}
		return nil
	})
	if err != nil {
		tb.Fatalf("testtree: %v", err)
	}
	return out
}

// Same fails tb, listing the differences, unless root still matches before.
func Same(tb testing.TB, before Snapshot, root string) {
	tb.Helper()
	after := Take(tb, root)
	var diffs []string
	for _, k := range slices.Sorted(maps.Keys(before)) {
		if a, ok := after[k]; !ok {
			diffs = append(diffs, "removed "+k)
		} else if a != before[k] {
			diffs = append(diffs, "changed "+k+": "+before[k]+" → "+a)
		}
	}
	for _, k := range slices.Sorted(maps.Keys(after)) {
		if _, ok := before[k]; !ok {
			diffs = append(diffs, "added "+k)
		}
	}
	if len(diffs) > 0 {
		tb.Fatalf("the tree %s changed (%d differences):\n%s", root, len(diffs), joinLines(diffs, 40))
	}
}

func joinLines(s []string, max int) string {
	out := ""
	for i, l := range s {
		if i == max {
			return out + "…\n"
		}
		out += "  " + l + "\n"
	}
	return out
}
