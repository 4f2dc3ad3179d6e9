package config

import (
	"fmt"
	"strings"
	"sync"

	"github.com/agentls/agentls/internal/safetext"
)

// Trust is one face's workspace trust over its connection (or CLI
// invocation): what the user trusted (remembered in the TrustStore, and for
// this connection even when the store cannot remember) and which file
// contents were already asked about. The faces only carry the question
// (LSP window/showMessageRequest, ACP session/request_permission, the CLI's
// terminal) and hand the answer back: only a clear "trust" grants
// (Answer); anything else (no answer, an unknown option, a cancelled
// request) leaves the file untrusted.
type Trust struct {
	// Env finds the state directory of the store (nil: the process's
	// environment); read on each use, since an editor's settings may
	// change it.
	Env func(string) string
	// All trusts every file (agentls run --trust-workspace).
	All bool

	mu      sync.Mutex
	granted map[[2]string]bool
	asked   map[[2]string]bool
}

// Store is where trust is remembered.
func (t *Trust) Store() *TrustStore { return NewTrustStore(DefaultTrustFile(t.Env)) }

// Trusted is LoadOptions.Trusted.
func (t *Trust) Trusted(file, sum string) bool {
	t.mu.Lock()
	ok := t.All || t.granted[[2]string{file, sum}]
	t.mu.Unlock()
	return ok || t.Store().Trusted(file, sum)
}

// FirstAsk reports whether u was not asked about yet on this connection,
// and marks it asked: each file content is asked about once.
func (t *Trust) FirstAsk(u Untrusted) bool {
	t.mu.Lock()
	defer t.mu.Unlock()
	if t.asked == nil {
		t.asked = map[[2]string]bool{}
	}
	key := [2]string{u.File, u.SHA256}
	first := !t.asked[key]
	t.asked[key] = true
	return first
}

// Grant trusts u's content for this connection and remembers it in the
// store; an error says it is trusted for this connection only.
func (t *Trust) Grant(u Untrusted) error {
	t.mu.Lock()
	if t.granted == nil {
		t.granted = map[[2]string]bool{}
	}
	t.granted[[2]string{u.File, u.SHA256}] = true
	t.mu.Unlock()
	st := t.Store()
	if st.Path() == "" {
		return fmt.Errorf("there is no state directory to remember it in")
	}
	return st.Trust(u.File, u.SHA256)
}

// TrustQuestion is the question every face asks about u: what trusting its
// current content would do, one line each (config bounds and escapes the
// actions; the file's path is escaped here, since a folder's name is the
// repository's to choose), and what stays ignored until then.
func TrustQuestion(u Untrusted) string {
	var b strings.Builder
	fmt.Fprintf(&b, "This workspace's %s wants to act on your behalf. Trusting its current content would:\n", safetext.Line(u.File))
	for _, a := range u.Actions {
		fmt.Fprintf(&b, "- %s\n", a)
	}
	fmt.Fprintf(&b, "Until you trust it, these settings are ignored: %s.", strings.Join(u.Keys, ", "))
	return b.String()
}
