package inline

import (
	"github.com/agentls/agentls/agent/complete"
	"github.com/agentls/agentls/agent/config"
	"github.com/agentls/agentls/tools/lang"
)

// LanguageServers sets where the language servers of a configuration
// come from (the runs part's, so that completions and runs share the
// processes); call it before Serve. Without it completions have no
// declarations.
func (in *Inline) LanguageServers(fn func(config.Config) *lang.Manager) {
	in.langFor = fn
	in.decl = complete.NewLanguages(in.docs.View())
	in.eng.SetDeclarer(in.core.Context(), in.decl)
}
