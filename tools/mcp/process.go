package mcp

import (
	"log/slog"
	"os"

	"github.com/agentls/agentls/internal/childproc"
	"github.com/agentls/agentls/tools"
)

// process is one stdio MCP server child (internal/childproc: own process
// group, parent death signal, stderr tail, stop ladder). We create the
// pipes ourselves (instead of letting mcp-go spawn the command) to own
// the child: we learn at once when it exits, and can kill the whole group.
type process struct {
	*childproc.Process
	pgid   int
	stdin  *os.File // our write end of the child's stdin
	stdout *os.File // our read end of the child's stdout
	exited <-chan struct{}
}

// startProcess starts command with args in dir, with the inherited
// allowlist of the environment plus env.
func startProcess(command string, args []string, env map[string]string, dir string, log *slog.Logger) (*process, error) {
	p, err := childproc.Start(childproc.Spec{
		Command: command, Args: args, Env: tools.ChildEnv(os.Environ(), env), Dir: dir,
		Logger: log, Label: "mcp server stderr",
	})
	if err != nil {
		return nil, err
	}
	return &process{Process: p, pgid: p.Pid(), stdin: p.Stdin(), stdout: p.Stdout(), exited: p.Exited()}, nil
}

func (p *process) stop()              { p.Stop() }
func (p *process) exitError() error   { return p.ExitError() }
func (p *process) stderrTail() string { return p.StderrTail() }
