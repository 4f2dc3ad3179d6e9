package faces_test

import (
	"context"
	"encoding/json"
	"errors"
	"io"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"go.lsp.dev/protocol"

	"github.com/agentls/agentls/acpserver/acptest"
	"github.com/agentls/agentls/agent/llm/llmtest"
	"github.com/agentls/agentls/internal/testwait"
	"github.com/agentls/agentls/lspserver"
	"github.com/agentls/agentls/lspserver/lsptest"
)

// The faces. Each starts from the same workspace (a.txt holding
// "hello\n", plus the files a row asks for), a scripted model and a user
// config file (config "" none).

// setup is what a row asks of a face beyond the script and the config.
type setup struct {
	dirName string            // the workspace's own name ("" a plain temporary directory)
	files   map[string]string // more workspace files, by relative path
	fs      bool              // ACP: the client offers fs/read_text_file
}

// option shapes a face's setup.
type option func(*setup)

// inDir names the workspace directory (a hostile name, say).
func inDir(name string) option { return func(s *setup) { s.dirName = name } }

// withFiles adds files to the workspace.
func withFiles(files map[string]string) option { return func(s *setup) { s.files = files } }

// clientFS makes the ACP client offer fs/read_text_file.
func clientFS() option { return func(s *setup) { s.fs = true } }

func setupOf(opts []option) setup {
	var s setup
	for _, o := range opts {
		o(&s)
	}
	return s
}

// workspace makes the workspace directory with its files.
func (s setup) workspace(t *testing.T) string {
	t.Helper()
	dir := acptest.RealDir(t, t.TempDir())
	if s.dirName != "" {
		dir = filepath.Join(dir, s.dirName)
	}
	files := map[string]string{"a.txt": "hello\n"}
	for k, v := range s.files {
		files[k] = v
	}
	for rel, content := range files {
		p := filepath.Join(dir, rel)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return dir
}

// faceEnv is a closed-world environment: config, state and cache in
// temporary directories, the model at srv.
func faceEnv(t *testing.T, srv *llmtest.Server, config string, s setup) (dir string, env map[string]string) {
	t.Helper()
	dir = s.workspace(t)
	home := t.TempDir()
	env = map[string]string{"HOME": home, "XDG_CONFIG_HOME": filepath.Join(home, "config"), "XDG_STATE_HOME": filepath.Join(home, "state"),
		"XDG_CACHE_HOME": filepath.Join(home, "cache"), "OPENAI_BASE_URL": srv.URL(), "AGENTLS_MODEL": "test-model", "OPENAI_API_KEY": ""}
	writeUserConfig(t, env, config)
	return dir, env
}

func writeUserConfig(t *testing.T, env map[string]string, config string) {
	t.Helper()
	if config == "" {
		return
	}
	p := filepath.Join(env["XDG_CONFIG_HOME"], "agentls", "config.json")
	if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(p, []byte(config), 0o644); err != nil {
		t.Fatal(err)
	}
}

// tree is every file under dir with its content.
func tree(t *testing.T, dir string) map[string]string {
	t.Helper()
	out := map[string]string{}
	err := filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		b, err := os.ReadFile(p)
		out[p] = string(b)
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	return out
}

func changed(a, b map[string]string) bool {
	if len(a) != len(b) {
		return true
	}
	for k, v := range a {
		if w, ok := b[k]; !ok || w != v {
			return true
		}
	}
	return false
}

// lspFace is an in-process LSP server on a workspace.
type lspFace struct {
	dir    string
	client *lsptest.Client
	model  *llmtest.Server
}

func newLSPFace(t *testing.T, script llmtest.Script, config string, opts ...option) *lspFace {
	t.Helper()
	f := startLSPFace(t, script, config, opts...)
	f.initialize(t)
	return f
}

// startLSPFace makes the server and its client without initializing, so
// a row can install handlers for what the server asks at initialize.
func startLSPFace(t *testing.T, script llmtest.Script, config string, opts ...option) *lspFace {
	t.Helper()
	model := llmtest.New(t, script)
	dir, env := faceEnv(t, model, config, setupOf(opts))
	srv := lspserver.New(lspserver.Options{NoWatcher: true})
	srv.SetRunOptions(lspserver.RunOptions{Env: func(k string) string { return env[k] }, TranscriptDir: lspserver.NoTranscripts})
	return &lspFace{dir: dir, client: lsptest.NewInProcessServer(t, srv), model: model}
}

func (f *lspFace) initialize(t *testing.T) {
	t.Helper()
	if _, err := f.client.Initialize(lsptest.Context(t), lsptest.InitOptions{Folders: []string{f.dir}}); err != nil {
		t.Fatal(err)
	}
}

// run starts agentls.run and waits for the run's end.
func (f *lspFace) run(t *testing.T, prompt string) outcome {
	t.Helper()
	before := tree(t, f.dir)
	_, err := f.runToEnd(t, prompt)
	return outcome{Ended: err == nil, Wrote: changed(before, tree(t, f.dir))}
}

// start calls agentls.run; the error is the command's.
func (f *lspFace) start(t *testing.T, prompt string) (string, error) {
	t.Helper()
	args, _ := json.Marshal(lspserver.RunArgs{Prompt: prompt})
	var res lspserver.RunResult
	err := f.client.Call(lsptest.Context(t), protocol.MethodWorkspaceExecuteCommand, &protocol.ExecuteCommandParams{
		Command: lspserver.CommandRun, Arguments: []protocol.LSPAny{args}}, &res)
	return res.RunID, err
}

// runToEnd starts agentls.run and returns the run's last runEvent
// (finished, failed or cancelled); the error says it never came.
func (f *lspFace) runToEnd(t *testing.T, prompt string) (lspserver.RunEvent, error) {
	t.Helper()
	id, err := f.start(t, prompt)
	if err != nil {
		t.Fatalf("agentls.run: %v", err)
	}
	var end lspserver.RunEvent
	_, err = f.client.Await(lsptest.Context(t), lspserver.MethodRunEvent, func(m lsptest.Message) bool {
		var e lspserver.RunEvent
		if json.Unmarshal(m.Params, &e) != nil || e.RunID != id {
			return false
		}
		end = e
		return e.Kind == "finished" || e.Kind == "failed" || e.Kind == "cancelled"
	})
	t.Logf("LSP run ended %s %s (%v)", end.Kind, end.Error, err)
	return end, err
}

// proposals is what agentls/proposals lists.
func (f *lspFace) proposals(t *testing.T) []lspserver.ProposalInfo {
	t.Helper()
	var res lspserver.ProposalsResult
	if err := f.client.Call(lsptest.Context(t), lspserver.MethodProposals, struct{}{}, &res); err != nil {
		t.Fatalf("agentls/proposals: %v", err)
	}
	return res.Proposals
}

// acpFace is an in-process ACP agent with the SDK's client.
type acpFace struct{ h *acptest.Harness }

func newACPFace(t *testing.T, script llmtest.Script, config string, opts ...option) *acpFace {
	t.Helper()
	s := setupOf(opts)
	h := acptest.Start(t, script, acptest.Options{Dir: s.workspace(t), FS: s.fs})
	if config != "" {
		h.UserConfig(config)
	}
	return &acpFace{h: h}
}

// prompt sends one prompt in a new session and waits for its answer.
func (f *acpFace) prompt(t *testing.T, text string) outcome {
	t.Helper()
	before := tree(t, f.h.Dir)
	stop, err := f.h.Prompt(f.h.NewSession(), text)
	t.Logf("acp prompt ended: %q %v", stop, err)
	return outcome{Ended: err == nil, Wrote: changed(before, tree(t, f.h.Dir))}
}

// cliFace is the built binary's `agentls run` on a workspace.
type cliFace struct {
	bin, dir string
	env      map[string]string
	model    *llmtest.Server
}

func newCLIFace(t *testing.T, script llmtest.Script, config string, opts ...option) *cliFace {
	t.Helper()
	model := llmtest.New(t, script)
	dir, env := faceEnv(t, model, config, setupOf(opts))
	return &cliFace{bin: lsptest.BuildBinary(t), dir: dir, env: env, model: model}
}

// cliResult is how `agentls run` ended.
type cliResult struct {
	ended          bool // by itself, not at the test's safety bound
	code           int
	stdout, stderr string
}

// command is `agentls run --dir DIR args...` in the face's environment.
func (f *cliFace) command(ctx context.Context, args ...string) *exec.Cmd {
	cmd := exec.CommandContext(ctx, f.bin, append([]string{"run", "--dir", f.dir}, args...)...)
	cmd.Env = []string{"PATH=" + os.Getenv("PATH")}
	for k, v := range f.env {
		cmd.Env = append(cmd.Env, k+"="+v)
	}
	return cmd
}

// exec runs `agentls run --dir DIR args...` with stdin (nil: none, not a
// terminal) to its exit.
func (f *cliFace) exec(t *testing.T, stdin io.Reader, args ...string) cliResult {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), testwait.Limit)
	defer cancel()
	cmd := f.command(ctx, args...)
	cmd.Stdin = stdin
	var stdout, stderr strings.Builder
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	err := cmd.Run()
	var exit *exec.ExitError
	t.Logf("agentls run: %v\nstdout:\n%s\nstderr:\n%s", err, stdout.String(), stderr.String())
	return cliResult{ended: ctx.Err() == nil && (err == nil || errors.As(err, &exit)), code: cmd.ProcessState.ExitCode(),
		stdout: stdout.String(), stderr: stderr.String()}
}

// run runs `agentls run --dir DIR prompt` (no --apply, stdin not a
// terminal) to its exit.
func (f *cliFace) run(t *testing.T, prompt string, flags ...string) outcome {
	t.Helper()
	before := tree(t, f.dir)
	r := f.exec(t, nil, append(flags, prompt)...)
	return outcome{Ended: r.ended, Wrote: changed(before, tree(t, f.dir))}
}
