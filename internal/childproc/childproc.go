// Package childproc owns every child process agentls starts: the shell
// commands of run_command and checks (internal/command), the script
// tool's interpreter, language servers and MCP stdio servers. One copy of
// the rules that keep them from leaking:
//
//   - each child starts in its own process group, so stopping it also stops
//     whatever it spawned (npx, uvx and shell launchers run the real server
//     as a grandchild; tsserver runs helpers; a command backgrounds a job);
//   - on Linux it gets a parent death signal, so it dies with agentls even
//     when agentls is SIGKILLed (its descendants see EOF on stdin);
//   - once it exits it is reaped and the rest of its group is killed;
//   - Stop ends the group with a bounded ladder (SIGTERM, then SIGKILL) and
//     returns only when nothing of the group is left.
//
// Group (StartCmd) is that core for a caller that wires the child's
// streams itself; Process (Start) adds the stdio pipes long-lived servers
// talk over, with their stderr drained and its tail kept.
//
// The caller builds the environment (tools.ChildEnv decides what a child
// may see); this package only runs what it is given.
package childproc

import (
	"bufio"
	"errors"
	"fmt"
	"log/slog"
	"os"
	"os/exec"
	"strings"
	"sync"
	"time"
)

// StopGrace is how long each step of a stop ladder waits: Process.Stop
// gives a child StopGrace to exit on its own after its stdin is closed;
// then its process group gets SIGTERM and another StopGrace, then SIGKILL.
const StopGrace = time.Second

// Spec says what to start.
type Spec struct {
	Command string
	Args    []string
	Env     []string // the whole environment of the child ("KEY=value")
	Dir     string   // working directory; "" is agentls's own
	// Logger receives the child's stderr lines at debug level, with Label;
	// nil discards them.
	Logger *slog.Logger
	Label  string // e.g. "mcp server stderr"
}

// Process is one running child with pipes on its stdin, stdout and
// stderr. Write requests to Stdin, read answers from Stdout.
type Process struct {
	*Group
	stdin  *os.File // our write end of the child's stdin
	stdout *os.File // our read end of the child's stdout
	stderr *os.File // our read end of the child's stderr

	tail    *tailBuffer
	drained chan struct{} // closed when stderr reaches EOF
}

// Start starts spec's command in its own process group with pipes on its
// standard streams.
func Start(spec Spec) (*Process, error) {
	if spec.Command == "" {
		return nil, errors.New("no command configured")
	}
	log := spec.Logger
	if log == nil {
		log = slog.New(slog.DiscardHandler)
	}
	label := spec.Label
	if label == "" {
		label = "child stderr"
	}
	cmd := exec.Command(spec.Command, spec.Args...)
	cmd.Env = spec.Env
	cmd.Dir = spec.Dir

	inR, inW, err := os.Pipe()
	if err != nil {
		return nil, fmt.Errorf("stdin pipe: %w", err)
	}
	outR, outW, err := os.Pipe()
	if err != nil {
		closeAll(inR, inW)
		return nil, fmt.Errorf("stdout pipe: %w", err)
	}
	errR, errW, err := os.Pipe()
	if err != nil {
		closeAll(inR, inW, outR, outW)
		return nil, fmt.Errorf("stderr pipe: %w", err)
	}
	cmd.Stdin, cmd.Stdout, cmd.Stderr = inR, outW, errW
	g, err := StartCmd(cmd)
	// The child holds its ends now; keeping ours open would hide its EOF.
	closeAll(inR, outW, errW)
	if err != nil {
		closeAll(inW, outR, errR)
		return nil, err
	}
	p := &Process{
		Group: g,
		stdin: inW, stdout: outR, stderr: errR,
		drained: make(chan struct{}),
		tail:    &tailBuffer{max: 4096},
	}
	go p.drainStderr(log, label)
	return p, nil
}

// Stdin is the write end of the child's standard input.
func (p *Process) Stdin() *os.File { return p.stdin }

// Stdout is the read end of the child's standard output.
func (p *Process) Stdout() *os.File { return p.stdout }

// drainStderr keeps the child's stderr pipe empty, logs each line at debug
// level and keeps the tail for error messages.
func (p *Process) drainStderr(log *slog.Logger, label string) {
	defer close(p.drained)
	sc := bufio.NewScanner(p.stderr)
	sc.Buffer(make([]byte, 0, 4096), 1<<20)
	for sc.Scan() {
		line := sc.Text()
		log.Debug(label, "line", line)
		p.tail.add(line)
	}
}

// Stop ends the child and everything in its group: stdin is closed (most
// servers exit on EOF) and the child gets StopGrace to go, then the
// group's ladder (Group.Stop). It returns once the child is reaped, no
// other member of its group is left, and our pipe ends are closed. A
// launcher (npx, uvx) often exits on EOF at once while the real server,
// its child in the same group, ignores EOF: the group is then ended with
// the same ladder. Stop may be called more than once.
func (p *Process) Stop() {
	_ = p.stdin.Close()
	timer := time.NewTimer(StopGrace)
	select {
	case <-p.Exited():
	case <-timer.C:
	}
	timer.Stop()
	p.Group.Stop()
	p.closePipes()
}

// Kill ends the child's whole group at once with SIGKILL and waits until
// it is reaped, for a child that is known to be broken (it hung or answered
// garbage): there is nothing left to say to it.
func (p *Process) Kill() {
	_ = p.stdin.Close()
	p.Group.Kill()
	p.closePipes()
}

// closePipes closes our read ends. A descendant that left the process group
// could still hold the write ends; closing ours unblocks the readers anyway.
func (p *Process) closePipes() {
	select {
	case <-p.drained:
	case <-time.After(100 * time.Millisecond):
	}
	closeAll(p.stdout, p.stderr)
}

// ExitError describes how the child ended, with the end of its stderr,
// which is where servers explain why they quit. Call after Exited.
func (p *Process) ExitError() error {
	select {
	case <-p.drained:
	case <-time.After(200 * time.Millisecond):
	}
	msg := "process exited"
	if err := p.Err(); err != nil {
		msg = "process exited: " + err.Error()
	}
	if t := p.tail.String(); t != "" {
		msg += "; stderr: " + t
	}
	return errors.New(msg)
}

// StderrTail is the last lines the child wrote to stderr.
func (p *Process) StderrTail() string { return p.tail.String() }

func closeAll(fs ...*os.File) {
	for _, f := range fs {
		_ = f.Close()
	}
}

// tailBuffer keeps the last max bytes of lines written to it.
type tailBuffer struct {
	mu    sync.Mutex
	max   int
	lines []string
	size  int
}

func (t *tailBuffer) add(line string) {
	t.mu.Lock()
	defer t.mu.Unlock()
	if len(line) > t.max {
		line = line[len(line)-t.max:]
	}
	t.lines = append(t.lines, line)
	t.size += len(line) + 1
	for t.size > t.max && len(t.lines) > 1 {
		t.size -= len(t.lines[0]) + 1
		t.lines = t.lines[1:]
	}
}

func (t *tailBuffer) String() string {
	t.mu.Lock()
	defer t.mu.Unlock()
	// The last few lines are what explains a failure; keep messages short.
	lines := t.lines
	if len(lines) > 5 {
		lines = lines[len(lines)-5:]
	}
	return strings.TrimSpace(strings.Join(lines, " | "))
}
