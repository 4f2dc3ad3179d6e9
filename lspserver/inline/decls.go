package inline

import (
	"context"
	"sync"

	"github.com/agentls/agentls/agent/config"
	"github.com/agentls/agentls/tools"
	"github.com/agentls/agentls/tools/lang"
)

// declarer gives the completion engine the declarations the workspace's
// language servers show in hovers, through the same manager (the same
// warm server processes) as agent runs.
type declarer struct {
	in *Inline

	mu  sync.Mutex
	mgr *lang.Manager
	run *lang.Run // over mgr, made at the first question
}

// use sets the manager of the current configuration (nil: none).
func (d *declarer) use(m *lang.Manager) {
	d.mu.Lock()
	defer d.mu.Unlock()
	if m != d.mgr {
		d.mgr, d.run = m, nil
	}
}

// Declarations asks the file's language server; with none, nothing.
// The language run is made lazily and kept: making it looks at which
// servers the workspace has, too slow for every completion.
func (d *declarer) Declarations(ctx context.Context, path, text string, offsets []int) ([]string, error) {
	d.mu.Lock()
	m, r := d.mgr, d.run
	d.mu.Unlock()
	if m == nil {
		return nil, nil
	}
	if r == nil {
		view := d.in.docs.View()
		r = m.NewRun(ctx, tools.NewEnv("completions", view, nil, tools.Policy{}))
		if r == nil {
			return nil, nil
		}
		d.mu.Lock()
		if d.mgr == m {
			d.run = r
		}
		d.mu.Unlock()
	}
	return r.Declarations(ctx, path, text, offsets)
}

// LanguageServers sets where the language servers of a configuration
// come from (the runs part's, so that completions and runs share the
// processes); call it before Serve. Without it completions have no
// declarations.
func (in *Inline) LanguageServers(fn func(config.Config) *lang.Manager) {
	in.langFor = fn
	in.decl = &declarer{in: in}
	in.eng.SetDeclarer(in.core.Context(), in.decl)
}
