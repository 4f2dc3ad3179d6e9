package mcp

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

	"github.com/agentls/agentls/tools"
)

// Shutdown timings for a stdio server: after stdin is closed the server gets
// stopGrace to exit on its own, then its process group gets SIGTERM and
// another stopGrace, then SIGKILL.
const stopGrace = time.Second

// process is one stdio MCP server child. It is started in its own process
// group so that stopping it also stops whatever it spawned (npx, uvx and
// shell launchers run the real server as a grandchild), and with a parent
// death signal so that the child dies with agentls even when agentls is
// killed. We create the pipes ourselves (instead of letting mcp-go spawn the
// command) to own the child: we learn at once when it exits, and can kill
// the whole group.
type process struct {
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

// startProcess starts command with args in dir, with the inherited
// allowlist of the environment plus env.
func startProcess(command string, args []string, env map[string]string, dir string, log *slog.Logger) (*process, error) {
	if command == "" {
		return nil, errors.New("no command configured")
	}
	cmd := exec.Command(command, args...)
	cmd.Env = tools.ChildEnv(os.Environ(), env)
	cmd.Dir = dir
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
		return nil, fmt.Errorf("start %s: %w", command, err)
	}
	// The child holds its ends now; keeping ours open would hide its EOF.
	closeAll(inR, outW, errW)

	p := &process{
		cmd: cmd, pgid: cmd.Process.Pid,
		stdin: inW, stdout: outR, stderr: errR,
		exited: make(chan struct{}), drained: make(chan struct{}),
		tail: &tailBuffer{max: 4096},
	}
	go p.drainStderr(log)
	go p.wait()
	return p, nil
}

// wait reaps the child and kills the rest of its process group: a server
// whose main process is gone is dead, and its helpers must not linger.
func (p *process) wait() {
	p.exitErr = waitAndKillGroup(p.cmd, p.pgid)
	close(p.exited)
}

// drainStderr keeps the child's stderr pipe empty (a full pipe would block
// the child), logs each line at debug level and keeps the tail for error
// messages.
func (p *process) drainStderr(log *slog.Logger) {
	defer close(p.drained)
	sc := bufio.NewScanner(p.stderr)
	sc.Buffer(make([]byte, 0, 4096), 1<<20)
	for sc.Scan() {
		line := sc.Text()
		log.Debug("mcp server stderr", "line", line)
		p.tail.add(line)
	}
}

// stop ends the child and everything in its group: stdin is closed (most
// servers exit on EOF), then SIGTERM, then SIGKILL. It returns once the child
// is reaped, no other member of its group is left, and our pipe ends are
// closed. A launcher (npx, uvx) often exits on EOF at once while the real
// server, its child in the same group, ignores EOF: the group is then ended
// with the same SIGTERM, SIGKILL ladder.
func (p *process) stop() {
	_ = p.stdin.Close()
	steps := []syscall.Signal{syscall.SIGTERM, syscall.SIGKILL}
	for i := 0; ; i++ {
		timer := time.NewTimer(stopGrace)
		select {
		case <-p.exited:
			timer.Stop()
			p.endGroup(steps[i:])
			p.closePipes()
			return
		case <-timer.C:
		}
		if i < len(steps) {
			_ = syscall.Kill(-p.pgid, steps[i])
		}
	}
}

// endGroup sends the signals left in steps to the child's process group
// until nothing in it answers, giving each stopGrace to work.
func (p *process) endGroup(steps []syscall.Signal) {
	for _, sig := range steps {
		if !groupAlive(p.pgid) {
			return
		}
		_ = syscall.Kill(-p.pgid, sig)
		deadline := time.Now().Add(stopGrace)
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
func (p *process) closePipes() {
	select {
	case <-p.drained:
	case <-time.After(100 * time.Millisecond):
	}
	closeAll(p.stdout, p.stderr)
}

// exitError describes how the child ended, with the end of its stderr,
// which is where servers explain why they quit. Call after exited.
func (p *process) exitError() error {
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

// stderrTail is the last lines the child wrote to stderr.
func (p *process) stderrTail() string { return p.tail.String() }

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
