// Package runs is the runs part of agentls's LSP server: agent runs in
// the editor. agentls.run and agentls.cancel (commands.go), the run's
// goroutine, concurrency slots and end (runs.go, runregistry.go),
// work-done progress (progress.go, stepwords.go), agentls/runEvent
// (events.go), approvals (approve.go), apply mode (apply.go), sessions
// and their persistence (sessions.go), plan mode (plan.go), the code
// actions that start runs (codeaction.go), the run configuration and
// workspace trust (config.go, trust.go), and MCP servers with their
// elicitation prompts (mcp.go, elicit.go). A run is built and executed by
// agent.Session; this package maps it onto LSP.
//
// Boundary: a preview run's staged changes go to review through the
// Review interface defined here (wired by lspserver to *review.Review);
// review's decisions come back as agent.Decisions through Decide. runs
// never imports lspserver/review.
package runs
