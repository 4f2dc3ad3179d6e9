package complete

import (
	"context"
	"sync"

	"github.com/agentls/agentls/internal/workspace"
	"github.com/agentls/agentls/tools"
	"github.com/agentls/agentls/tools/lang"
)

// Languages is the Declarer over the language servers of a configuration:
// the manager agent runs use, so completions ask the same warm processes
// instead of starting their own.
type Languages struct {
	view *workspace.View

	mu  sync.Mutex
	mgr *lang.Manager
	run *lang.Run // over mgr, made at the first question
}

// NewLanguages returns a Languages over view's files, with no manager
// until Use.
func NewLanguages(view *workspace.View) *Languages { return &Languages{view: view} }

// Use sets the manager of the current configuration (nil: none). A new
// manager drops the run made over the old one.
func (l *Languages) Use(m *lang.Manager) {
	l.mu.Lock()
	defer l.mu.Unlock()
	if m != l.mgr {
		l.mgr, l.run = m, nil
	}
}

// Declarations asks the file's language server; with none, nothing.
// The language run is made lazily and kept: making it looks at which
// servers the workspace has, too slow for every completion.
func (l *Languages) Declarations(ctx context.Context, path, text string, offsets []int) ([]string, error) {
	l.mu.Lock()
	m, r := l.mgr, l.run
	l.mu.Unlock()
	if m == nil {
		return nil, nil
	}
	if r == nil {
		r = m.NewRun(ctx, tools.NewEnv("completions", l.view, nil, tools.Policy{}))
		if r == nil {
			return nil, nil
		}
		l.mu.Lock()
		if l.mgr == m {
			l.run = r
		}
		l.mu.Unlock()
	}
	return r.Declarations(ctx, path, text, offsets)
}
