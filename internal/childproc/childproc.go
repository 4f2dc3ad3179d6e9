// Package childproc owns the long-lived helper processes agentls starts
// and talks to over stdio: MCP stdio servers and language servers. One
// copy of the rules that keep them from leaking:
//
//   - each child starts in its own process group, so stopping it also stops
//     whatever it spawned (npx, uvx and shell launchers run the real server
//     as a grandchild; tsserver runs helpers);
//   - on Linux it gets a parent death signal, so it dies with agentls even
//     when agentls is SIGKILLed (its descendants see EOF on stdin);
//   - its stderr is drained all the time (a full pipe would block it) and
//     the tail is kept to explain why it quit;
//   - Stop ends it with a ladder (stdin closed, SIGTERM, SIGKILL to the
//     group) and returns only when nothing of the group is left.
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
	"syscall"
	"time"
)

// StopGrace is how long each step of Stop's ladder waits: after stdin is
// closed the child gets StopGrace to exit on its own, then its process
// group gets SIGTERM and another StopGrace, then SIGKILL.
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
	cmd    *exec.Cmd
	pgid   int
	stdin  *os.File // our write end of the child's stdin
	stdout *os.File // our read end of the child's stdout
	stderr *os.File // our read end of the child's stderr

	exited  chan struct{} // closed once the child is reaped and its group killed
	exitErr error         // valid after exited

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
	cmd.SysProcAttr = sysProcAttr()

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
	if err := cmd.Start(); err != nil {
		closeAll(inR, inW, outR, outW, errR, errW)
		return nil, fmt.Errorf("start %s: %w", spec.Command, err)
	}
	// The child holds its ends now; keeping ours open would hide its EOF.
	closeAll(inR, outW, errW)

	p := &Process{
		cmd: cmd, pgid: cmd.Process.Pid,
		stdin: inW, stdout: outR, stderr: errR,
		exited: make(chan struct{}), drained: make(chan struct{}),
		tail: &tailBuffer{max: 4096},
	}
	go p.drainStderr(log, label)
	go p.wait()
	return p, nil
}

// Stdin is the write end of the child's standard input.
func (p *Process) Stdin() *os.File { return p.stdin }

// Stdout is the read end of the child's standard output.
func (p *Process) Stdout() *os.File { return p.stdout }

// Pid is the child's process id, which is also its process group id.
func (p *Process) Pid() int { return p.pgid }

// Exited is closed once the child has exited, been reaped, and the rest of
// its process group has been killed.
func (p *Process) Exited() <-chan struct{} { return p.exited }

// wait reaps the child and kills the rest of its process group: a server
// whose main process is gone is dead, and its helpers must not linger.
func (p *Process) wait() {
	p.exitErr = waitAndKillGroup(p.cmd, p.pgid)
	close(p.exited)
}

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
// servers exit on EOF), then SIGTERM, then SIGKILL. It returns once the
// child is reaped, no other member of its group is left, and our pipe
// ends are closed. A launcher (npx, uvx) often exits on EOF at once while
// the real server, its child in the same group, ignores EOF: the group is
// then ended with the same SIGTERM, SIGKILL ladder. Stop may be called more
// than once.
func (p *Process) Stop() {
	_ = p.stdin.Close()
	steps := []syscall.Signal{syscall.SIGTERM, syscall.SIGKILL}
	for i := 0; ; i++ {
		timer := time.NewTimer(StopGrace)
		select {
		case <-p.exited:
			timer.Stop()
			p.endGroup(steps[min(i, len(steps)):])
			p.closePipes()
			return
		case <-timer.C:
		}
		if i < len(steps) {
			_ = syscall.Kill(-p.pgid, steps[i])
		}
	}
}

// Kill ends the child's whole group at once with SIGKILL and waits until
// it is reaped, for a child that is known to be broken (it hung or answered
// garbage): there is nothing left to say to it.
func (p *Process) Kill() {
	_ = p.stdin.Close()
	_ = syscall.Kill(-p.pgid, syscall.SIGKILL)
	<-p.exited
	p.endGroup([]syscall.Signal{syscall.SIGKILL})
	p.closePipes()
}

// endGroup sends the signals left in steps to the child's process group
// until nothing in it answers, giving each StopGrace to work.
func (p *Process) endGroup(steps []syscall.Signal) {
	for _, sig := range steps {
		if !groupAlive(p.pgid) {
			return
		}
		_ = syscall.Kill(-p.pgid, sig)
		deadline := time.Now().Add(StopGrace)
		for groupAlive(p.pgid) && time.Now().Before(deadline) {
			time.Sleep(20 * time.Millisecond)
		}
	}
}

// groupAlive reports whether any process is left in group pgid (a zombie
// not yet reaped by its new parent counts until it is).
func groupAlive(pgid int) bool {
	return pgid > 0 && syscall.Kill(-pgid, 0) == nil
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
	if p.exitErr != nil {
		msg = "process exited: " + p.exitErr.Error()
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
