package overlay

import (
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"syscall"

	"golang.org/x/sys/unix"
)

// init answers HelperArg before anything else of the program runs (main,
// TestMain, flag parsing): the process is the command's, and becomes it
// once the view is mounted.
func init() {
	if len(os.Args) > 1 && os.Args[1] == HelperArg {
		os.Exit(helper(os.Args[2:]))
	}
}

// helperFailed is the exit status of a helper that could not mount the
// view or start the command (the command's own statuses stay its own:
// callers probe before relying on a view, see Probe).
const helperFailed = 125

// helper mounts the view and execs the command. args: lower upper work
// dir path -- argv...
func helper(args []string) int {
	if len(args) < 7 || args[5] != "--" {
		fmt.Fprintln(os.Stderr, "agentls: overlay helper: bad arguments")
		return helperFailed
	}
	l := Layers{Lower: args[0], Upper: args[1], Work: args[2]}
	dir, path, argv := args[3], args[4], args[6:]
	if err := mountView(l); err != nil {
		fmt.Fprintf(os.Stderr, "agentls: the proposal view (an overlay) could not be mounted: %v\n", err)
		return helperFailed
	}
	if err := os.Chdir(dir); err != nil {
		fmt.Fprintf(os.Stderr, "agentls: proposal view: %v\n", err)
		return helperFailed
	}
	// The capability that mounted the view must not reach the command:
	// with a uid other than 0 in the namespace, exec then drops the rest.
	_ = unix.Prctl(unix.PR_CAP_AMBIENT, unix.PR_CAP_AMBIENT_CLEAR_ALL, 0, 0, 0)
	err := syscall.Exec(path, argv, os.Environ())
	fmt.Fprintf(os.Stderr, "agentls: proposal view: exec %s: %v\n", path, err)
	return helperFailed
}

// mountView makes every mount of the new namespace private (a root
// helper's namespace would otherwise share mount events with the host's,
// and the view would appear there) and mounts the overlay over Lower.
func mountView(l Layers) error {
	if err := unix.Mount("", "/", "", unix.MS_REC|unix.MS_PRIVATE, ""); err != nil {
		return fmt.Errorf("make mounts private: %w", err)
	}
	opts := "lowerdir=" + escape(l.Lower) + ",upperdir=" + escape(l.Upper) + ",workdir=" + escape(l.Work)
	if os.Getuid() != 0 || inUserNS() {
		// trusted.* xattrs cannot be written from a user namespace.
		opts += ",userxattr"
	}
	if err := unix.Mount("overlay", l.Lower, "overlay", 0, opts); err != nil {
		return fmt.Errorf("mount overlay on %s: %w", l.Lower, err)
	}
	return nil
}

// inUserNS reports whether the process runs in a user namespace other
// than the initial one (its uid map is not the identity over all ids).
func inUserNS() bool {
	b, err := os.ReadFile("/proc/self/uid_map")
	if err != nil {
		return false
	}
	f := strings.Fields(string(b))
	return !(len(f) == 3 && f[0] == "0" && f[1] == "0" && f[2] == "4294967295")
}

// escape protects the characters overlayfs's option parser splits on.
func escape(p string) string {
	r := strings.NewReplacer(`\`, `\\`, `,`, `\,`, `:`, `\:`)
	return r.Replace(p)
}

// whiteout makes path an overlayfs whiteout (a 0/0 character device),
// which kernels ≥ 5.8 let any user create.
func whiteout(path string) error {
	return unix.Mknod(path, unix.S_IFCHR, 0)
}

// Wrap rewrites cmd (not yet started, Path and Args set, Dir inside
// l.Lower or empty for l.Lower) to run in the view: the helper re-exec in
// new namespaces. It sets only namespace fields of cmd.SysProcAttr
// (internal/childproc adds its process-group ones).
func (l Layers) Wrap(cmd *exec.Cmd) error {
	exe, err := os.Executable()
	if err != nil {
		return fmt.Errorf("overlay view: %w", err)
	}
	dir := cmd.Dir
	if dir == "" {
		dir = l.Lower
	}
	args := append([]string{exe, HelperArg, l.Lower, l.Upper, l.Work, dir, cmd.Path, "--"}, cmd.Args...)
	cmd.Path, cmd.Args = exe, args
	cmd.Dir = "/" // the helper enters dir once the view is mounted over it
	attr := &syscall.SysProcAttr{Cloneflags: syscall.CLONE_NEWNS}
	if mode() == modeUserNS {
		uid, gid := os.Getuid(), os.Getgid()
		// The user's own ids inside, so files keep their owner and tools
		// that refuse to run as root still run; the helper keeps
		// CAP_SYS_ADMIN (in the namespace only) as an ambient capability
		// until it has mounted.
		attr.Cloneflags |= syscall.CLONE_NEWUSER
		attr.UidMappings = []syscall.SysProcIDMap{{ContainerID: uid, HostID: uid, Size: 1}}
		attr.GidMappings = []syscall.SysProcIDMap{{ContainerID: gid, HostID: gid, Size: 1}}
		attr.AmbientCaps = []uintptr{unix.CAP_SYS_ADMIN, unix.CAP_DAC_OVERRIDE}
	}
	cmd.SysProcAttr = attr
	return nil
}

const (
	modeDirect = "direct"  // root: a mount namespace is enough
	modeUserNS = "user-ns" // a user namespace too
)

// mode is how this process mounts views: directly when it runs as root,
// else in a user namespace. (A root without CAP_SYS_ADMIN, in a
// container, fails the probe and gets copies.)
func mode() string {
	if os.Geteuid() == 0 {
		return modeDirect
	}
	return modeUserNS
}

var (
	probeOnce sync.Once
	probeErr  error
)

// Supported reports whether overlay views work for this process: nil, or
// why not (ErrOff when EnvMode turns them off). The kernel is asked once
// per process, by mounting a view of a tiny directory and running a
// command in it; the answer is cached.
func Supported() error {
	if Off() {
		return ErrOff
	}
	probeOnce.Do(func() { probeErr = probeTemp() })
	return probeErr
}

func probeTemp() error {
	base, err := os.MkdirTemp("", "agentls-overlay-probe-")
	if err != nil {
		return fmt.Errorf("overlay probe: %w", err)
	}
	defer os.RemoveAll(base)
	lower := filepath.Join(base, "lower")
	if err := os.Mkdir(lower, 0o755); err != nil {
		return fmt.Errorf("overlay probe: %w", err)
	}
	if err := os.WriteFile(filepath.Join(lower, "gone"), nil, 0o644); err != nil {
		return fmt.Errorf("overlay probe: %w", err)
	}
	return Probe(lower, base)
}

// Probe mounts a view of lower with its layers in a fresh directory under
// base and checks that a command sees the upper layer's file and not a
// whited-out one; the layers are removed after. A view that passes here
// mounts for commands too (the same folder, the same base).
func Probe(lower, base string) error {
	dir, err := os.MkdirTemp(base, ".overlay-probe-")
	if err != nil {
		return fmt.Errorf("overlay probe: %w", err)
	}
	defer func() {
		_ = os.Chmod(filepath.Join(dir, "work", "work"), 0o700) // overlayfs leaves it mode 0
		os.RemoveAll(dir)
	}()
	l := Layers{Lower: lower, Upper: filepath.Join(dir, "upper"), Work: filepath.Join(dir, "work")}
	for _, d := range []string{l.Upper, l.Work} {
		if err := os.Mkdir(d, 0o700); err != nil {
			return fmt.Errorf("overlay probe: %w", err)
		}
	}
	const name = ".agentls-overlay-probe"
	if err := l.WriteFile(name, "ok\n"); err != nil {
		return err
	}
	script := "cat " + name
	if _, err := os.Lstat(filepath.Join(lower, "gone")); err == nil {
		if err := l.Remove("gone"); err != nil {
			return err
		}
		script += " && ! test -e gone"
	}
	cmd := exec.Command("/bin/sh", "-c", script)
	cmd.Env = []string{"PATH=/usr/bin:/bin"}
	if err := l.Wrap(cmd); err != nil {
		return err
	}
	out, err := cmd.CombinedOutput()
	if err != nil || string(out) != "ok\n" {
		msg := strings.TrimSpace(string(out))
		if err != nil {
			msg = strings.TrimSpace(err.Error() + ": " + msg)
		}
		return fmt.Errorf("overlay view (%s) unavailable: %s", mode(), msg)
	}
	if _, err := os.Lstat(filepath.Join(lower, name)); err == nil {
		return errors.New("overlay probe: the view wrote through to the directory below") // never expected
	}
	return nil
}
