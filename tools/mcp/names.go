package mcp

import (
	"crypto/sha256"
	"encoding/hex"
	"sort"
	"strings"
)

// maxToolName is the longest function name the OpenAI API accepts
// (^[a-zA-Z0-9_-]{1,64}$).
const maxToolName = 64

// toolName is the registry name of tool on the server whose sanitised prefix
// is serverPart (see serverParts): "mcp__<server>__<tool>", with every byte
// outside [a-zA-Z0-9_-] replaced by '_'. Names longer than 64 bytes are cut
// and end in '_' plus 8 hex digits of a hash of the original server and tool
// names, so the shortening is deterministic and distinct long names stay
// distinct.
func toolName(serverPart, tool string) string {
	t := sanitize(tool)
	if t == "" {
		t = "tool"
	}
	full := "mcp__" + serverPart + "__" + t
	if len(full) <= maxToolName {
		return full
	}
	return full[:maxToolName-9] + "_" + shortHash(serverPart+"\x00"+tool)
}

// serverParts maps configured server names to the prefix used in tool names.
// A prefix never contains "__" and never starts or ends with '_', so the
// server part of "mcp__a__b__c" is unambiguous and two servers can never
// produce the same tool name. Names that sanitise to the same prefix are
// told apart deterministically: in sorted order the first keeps the plain
// prefix and the others get a hash suffix of their original name.
func serverParts(names []string) map[string]string {
	sorted := append([]string(nil), names...)
	sort.Strings(sorted)
	out := make(map[string]string, len(sorted))
	used := map[string]bool{}
	for _, n := range sorted {
		p := sanitize(n)
		for strings.Contains(p, "__") {
			p = strings.ReplaceAll(p, "__", "_")
		}
		p = strings.Trim(p, "_")
		if p == "" {
			p = "server"
		}
		if len(p) > 24 {
			p = p[:15] + "-" + shortHash(n)
		}
		if used[p] {
			p = strings.TrimRight(p[:min(len(p), 15)], "_") + "-" + shortHash(n)
		}
		used[p] = true
		out[n] = p
	}
	return out
}

// toolNames assigns registry names to one server's tools. Tools whose
// sanitised names collide ("a.b" and "a_b") are told apart deterministically:
// in sorted order of the original names the first keeps the plain name and
// the others get a hash suffix.
func toolNames(serverPart string, tools []string) map[string]string {
	sorted := append([]string(nil), tools...)
	sort.Strings(sorted)
	out := make(map[string]string, len(sorted))
	used := map[string]bool{}
	for _, t := range sorted {
		n := toolName(serverPart, t)
		if used[n] {
			h := "_" + shortHash(serverPart+"\x00"+t)
			n = n[:min(len(n), maxToolName-len(h))] + h
		}
		used[n] = true
		out[t] = n
	}
	return out
}

// sanitize replaces every byte outside [a-zA-Z0-9_-] with '_'.
func sanitize(s string) string {
	b := []byte(s)
	for i, c := range b {
		if !(c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c == '_' || c == '-') {
			b[i] = '_'
		}
	}
	return string(b)
}

// shortHash is 8 hex digits of the SHA-256 of s.
func shortHash(s string) string {
	sum := sha256.Sum256([]byte(s))
	return hex.EncodeToString(sum[:4])
}
