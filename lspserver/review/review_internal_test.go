package review

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"go.lsp.dev/protocol"
	"go.lsp.dev/uri"

	"github.com/agentls/agentls/internal/testwait"
	"github.com/agentls/agentls/internal/text"
	"github.com/agentls/agentls/internal/workspace"
	"github.com/agentls/agentls/lspserver/core"
	"github.com/agentls/agentls/lspserver/docs"
	"github.com/agentls/agentls/tools"
)

// editClient is a Client whose ApplyEdit applies the edit to the server's
// view through the didChange path (as an editor's didChange would) and
// records what it received; everything else succeeds silently.
type editClient struct {
	s     *Review
	mu    sync.Mutex
	edits []protocol.WorkspaceEdit
}

func (c *editClient) ApplyEdit(_ context.Context, p *protocol.ApplyWorkspaceEditParams) (*protocol.ApplyWorkspaceEditResult, error) {
	c.mu.Lock()
	c.edits = append(c.edits, p.Edit)
	c.mu.Unlock()
	for _, dc := range p.Edit.DocumentChanges {
		tde := dc.(*protocol.TextDocumentEdit)
		key := core.DocKey(tde.TextDocument.URI)
		snap, _ := c.s.view.Overlay(key)
		if tde.TextDocument.Version == nil || *tde.TextDocument.Version != *snap.Version {
			reason := "version mismatch"
			return &protocol.ApplyWorkspaceEditResult{FailureReason: &reason}, nil
		}
		var changes []text.Change
		for i := len(tde.Edits) - 1; i >= 0; i-- { // last first: earlier ranges stay valid
			te := tde.Edits[i].(*protocol.TextEdit)
			r := core.ToTextRange(te.Range)
			changes = append(changes, text.Change{Range: &r, Text: te.NewText})
		}
		if err := c.s.ChangeDocument(key, *snap.Version+1, changes, c.s.core.Session().Encoding); err != nil {
			return nil, err
		}
	}
	return &protocol.ApplyWorkspaceEditResult{Applied: true}, nil
}

func (c *editClient) ShowMessage(context.Context, *protocol.ShowMessageParams) error { return nil }
func (c *editClient) ShowMessageRequest(context.Context, *protocol.ShowMessageRequestParams) (*protocol.MessageActionItem, error) {
	return nil, nil
}
func (c *editClient) LogMessage(context.Context, *protocol.LogMessageParams) error { return nil }
func (c *editClient) Progress(context.Context, *protocol.ProgressParams) error     { return nil }
func (c *editClient) WorkDoneProgressCreate(context.Context, *protocol.WorkDoneProgressCreateParams) error {
	return nil
}
func (c *editClient) CodeLensRefresh(context.Context) error { return nil }
func (c *editClient) RegisterCapability(context.Context, *protocol.RegistrationParams) error {
	return nil
}
func (c *editClient) Notify(context.Context, string, any) error { return nil }

// newReviewServer is the review part of a session that is not serving:
// its client is an editClient and its session supports versioned
// workspace edits.
func newReviewServer(t testing.TB) (*Review, *editClient, string) {
	t.Helper()
	c := core.New(core.Options{})
	view := workspace.New(workspace.Options{})
	d := docs.New(c, view, docs.Options{NoWatcher: true})
	s := New(c, d)
	d.Follow(s)
	ec := &editClient{s: s}
	c.Attach(ec, &core.Session{Features: core.ClientFeatures{ApplyEdit: true, DocumentChanges: true}})
	root := t.TempDir()
	view.SetFolders([]string{root})
	t.Cleanup(c.Stop)
	return s, ec, root
}

// TestMain fails the package's tests when one leaks a goroutine.
func TestMain(m *testing.M) { testwait.VerifyTestMain(m) }

// The document changes between computing the accept plan and sending it
// (the store missed it here, as it would if didChange raced the accept):
// accept notices, recomputes on the current text, and the edit lands
// exactly.
func TestAcceptRecomputesOnStaleDocument(t *testing.T) {
	s, c, root := newReviewServer(t)
	path := filepath.Join(root, "a.txt")
	base := "one\ntwo\nthree\n"
	if err := os.WriteFile(path, []byte(base), 0o644); err != nil {
		t.Fatal(err)
	}
	s.view.Open(path, 1, base)
	s.Stage("run1", tools.StagedFile{Path: path, Base: base, Text: "one\nTWO\nthree\n"})

	// Bypass the hook: the view moves on, the store does not know.
	r := text.Range{Start: text.Position{Line: 0}, End: text.Position{Line: 0}}
	if err := s.view.Change(path, 2, []text.Change{{Range: &r, Text: "zero\n"}}, text.UTF16); err != nil {
		t.Fatal(err)
	}
	// (agent/desk's TestPlanRecomputesOnStaleDocument checks the
	// staleness itself.)
	res, _, err := s.acceptCommand(context.Background(), Args{})
	if err != nil || !res.Applied {
		t.Fatalf("accept = %+v, %v", res, err)
	}
	snap, _ := s.view.Overlay(path)
	if snap.Text != "zero\none\nTWO\nthree\n" {
		t.Fatalf("document = %q", snap.Text)
	}
	if v := c.edits[0].DocumentChanges[0].(*protocol.TextDocumentEdit).TextDocument.Version; v == nil || *v != 2 {
		t.Fatalf("edit version = %v, want 2", v)
	}
	if len(s.st.store.List("")) != 0 {
		t.Fatal("proposal left after accept")
	}
}

// Accepting and rejecting hunks of a run produce decisions for its
// session, not calls into the run: applied to the run's changeset (as
// agent.Session does between steps, with Decision.Apply) the accepted text becomes its base,
// rejected changes leave its proposed text, and nothing is staged back
// into review by the echo.
func TestReviewDecisionsForRunChangeset(t *testing.T) {
	s, _, root := newReviewServer(t)
	path := filepath.Join(root, "a.go")
	base := "a\nb\nc\nd\ne\n"
	if err := os.WriteFile(path, []byte(base), 0o644); err != nil {
		t.Fatal(err)
	}
	s.view.Open(path, 1, base)
	env := tools.NewEnv("run1", s.view, nil, tools.Policy{})
	cs := env.Changes
	stageEdit(t, env, path, "a\nB\nc\nD\ne\n")
	f, _ := cs.Get(path)
	s.Stage("run1", f)
	hunks := s.st.store.List(path)[0].Hunks
	if len(hunks) != 2 {
		t.Fatalf("hunks = %+v", hunks)
	}

	res, ds, err := s.acceptCommand(context.Background(), Args{HunkID: hunks[0].ID})
	if err != nil || !res.Applied {
		t.Fatalf("accept = %+v %v", res, err)
	}
	if len(ds) != 1 || !ds[0].Accepted || ds[0].RunID != "run1" || ds[0].Path != path || ds[0].Hunks != 1 ||
		ds[0].Applied != "a\nB\nc\nd\ne\n" || ds[0].Remaining == nil || *ds[0].Remaining != "a\nB\nc\nD\ne\n" {
		t.Fatalf("accept decisions = %+v", ds)
	}
	ds[0].Apply(cs)
	f, _ = cs.Get(path)
	if f.Base != "a\nB\nc\nd\ne\n" || f.Text != "a\nB\nc\nD\ne\n" {
		t.Fatalf("after accept the changeset holds base %q text %q", f.Base, f.Text)
	}
	if got := s.st.store.List(path); len(got) != 1 || len(got[0].Hunks) != 1 || got[0].Hunks[0].ID != hunks[1].ID {
		t.Fatalf("store after accept = %+v", got)
	}

	rres, ds, err := s.rejectCommand(context.Background(), Args{HunkID: hunks[1].ID, Reason: "keep d lower-case"})
	if err != nil || rres.Rejected != 1 {
		t.Fatalf("reject = %+v %v", rres, err)
	}
	if len(ds) != 1 || ds[0].Accepted || ds[0].Remaining != nil || ds[0].Reason != "keep d lower-case" {
		t.Fatalf("reject decisions = %+v", ds)
	}
	ds[0].Apply(cs)
	if f, ok := cs.Get(path); ok && f.Pending() {
		t.Fatalf("after rejecting the rest the changeset still proposes %q", f.Text)
	}
	if got := s.st.store.List(""); len(got) != 0 {
		t.Fatalf("store after reject = %+v", got)
	}
}

// stageEdit makes the run read path and rewrite it to proposed through the
// real tools (read_file, write_file), so the changeset stages it.
func stageEdit(t *testing.T, env *tools.Env, path, proposed string) {
	t.Helper()
	reg := tools.NewRegistry(tools.Builtins(env.Policy)...)
	for _, call := range []struct {
		name string
		args map[string]any
	}{
		{"read_file", map[string]any{"path": path}},
		{"write_file", map[string]any{"path": path, "content": proposed}},
	} {
		tool, ok := reg.Get(call.name)
		if !ok {
			t.Fatalf("no tool %s", call.name)
		}
		args, _ := json.Marshal(call.args)
		res, err := tool.Call(context.Background(), env, args)
		if err != nil || res.IsError {
			t.Fatalf("%s: %v %s", call.name, err, res.Text)
		}
	}
}

// BenchmarkCodeLensHandler is the codeLens handler alone (no transport):
// 1,000 open documents, 50 with a 3-hunk proposal, lenses for one of those.
func BenchmarkCodeLensHandler(b *testing.B) {
	s, _, root := newReviewServer(b)
	var first string
	for i := range 1000 {
		var sb strings.Builder
		for l := range 200 {
			fmt.Fprintf(&sb, "\tvalue%d := compute(%d, \"😀 日本\") // line %d\n", l, l*i, l)
		}
		content := sb.String()
		path := filepath.Join(root, fmt.Sprintf("f%04d.go", i))
		s.view.Open(path, 1, content)
		if i < 50 {
			proposed := strings.NewReplacer("value10 ", "renamed10 ", "value100 ", "renamed100 ", "value190 ", "renamed190 ").Replace(content)
			s.Stage(fmt.Sprintf("run%d", i), tools.StagedFile{Path: path, Base: content, Text: proposed})
			if first == "" {
				first = path
			}
		}
	}
	p := &protocol.CodeLensParams{TextDocument: protocol.TextDocumentIdentifier{URI: uri.File(first)}}
	body, err := s.CodeLens(context.Background(), p)
	var lenses []protocol.CodeLens
	if err == nil {
		err = protocol.Unmarshal(body.(json.RawMessage), &lenses)
	}
	if err != nil || len(lenses) != 6 {
		b.Fatalf("%d lenses, %v", len(lenses), err)
	}
	b.Run("cached", func(b *testing.B) {
		b.ReportAllocs()
		for range b.N {
			if _, err := s.CodeLens(context.Background(), p); err != nil {
				b.Fatal(err)
			}
		}
	})
	b.Run("built", func(b *testing.B) { // what a change to the store costs the next request
		b.ReportAllocs()
		enc := s.core.Session().Encoding
		for range b.N {
			if _, err := protocol.Marshal(s.buildLenses(first, enc)); err != nil {
				b.Fatal(err)
			}
		}
	})
}
