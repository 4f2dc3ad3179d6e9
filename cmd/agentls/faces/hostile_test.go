package faces_test

import (
	"context"
	"encoding/json"
	"errors"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	acp "github.com/coder/acp-go-sdk"
	"go.lsp.dev/protocol"

	"github.com/agentls/agentls/acpserver/acptest"
	"github.com/agentls/agentls/agent/llm/llmtest"
	"github.com/agentls/agentls/internal/testwait"
	"github.com/agentls/agentls/lspserver"
	"github.com/agentls/agentls/lspserver/lsptest"
)

// One core, three faces (docs/protocol "One core, three faces"): a rule
// about hostile or broken input holds on the LSP server, the ACP agent
// and `agentls run` alike. Each row is one rule; each face has a runner
// that drives the real protocol (lsptest, the ACP SDK client via
// acptest, the built binary) and reports what it saw in face-neutral
// terms (outcome), compared with the row's want.
//
// To add a rule: write one runner per face (func(t) outcome, using the
// face helpers below: lspFace, acpFace, cliFace, and tree to see what was
// written) and append a row. Add a field to outcome when a rule observes
// something new (zero on the rows that do not look at it).

// outcome is what a face did with a hostile input.
type outcome struct {
	// Ended: the run (LSP run, ACP prompt, CLI process) ended by itself,
	// not at the test's safety bound.
	Ended bool
	// Wrote: a file of the workspace changed, appeared or went away.
	Wrote bool
}

// hostileRow is one rule; every face must have a runner.
type hostileRow struct {
	name          string
	want          outcome
	lsp, acp, cli func(t *testing.T) outcome
}

func hostileRows() []hostileRow {
	return []hostileRow{
		{
			// Only a clear yes allows: an answer naming something that was
			// never offered is a no. LSP asks with showMessageRequest (the
			// command approval), ACP with session/request_permission (the
			// change); the CLI never asks: without --apply it writes
			// nothing.
			name: "unknown permission option writes nothing",
			want: outcome{Ended: true, Wrote: false},
			lsp: func(t *testing.T) outcome {
				f := newLSPFace(t, commandScript(), `{"tools": {"runCommand": "ask"}}`)
				f.client.Handle(protocol.MethodWindowShowMessageRequest, lsptest.Result(&protocol.MessageActionItem{Title: "Sure, go ahead"}))
				return f.run(t, "make out.txt")
			},
			acp: func(t *testing.T) outcome {
				f := newACPFace(t, editScript(), "")
				f.h.Client.OnPermission = func(acp.RequestPermissionRequest) acp.RequestPermissionResponse {
					return acptest.Allow("allow-everything")
				}
				return f.prompt(t, "greet the world")
			},
			cli: func(t *testing.T) outcome {
				return newCLIFace(t, editScript(), "").run(t, "greet the world")
			},
		},
		{
			// A permission nobody answers ends with the run's
			// maxWallClockSeconds; nothing is written. The CLI cannot ask
			// without a terminal: it denies and ends.
			name: "unanswered permission ends at maxWallClockSeconds",
			want: outcome{Ended: true, Wrote: false},
			lsp: func(t *testing.T) outcome {
				f := newLSPFace(t, commandScript(), `{"maxWallClockSeconds": 1, "tools": {"runCommand": "ask"}}`)
				f.client.Handle(protocol.MethodWindowShowMessageRequest, neverAnswer(t))
				return f.run(t, "make out.txt")
			},
			acp: func(t *testing.T) outcome {
				f := newACPFace(t, editScript(), `{"maxWallClockSeconds": 1}`)
				never := make(chan struct{})
				f.h.Client.OnPermission = func(acp.RequestPermissionRequest) acp.RequestPermissionResponse {
					<-never
					return acptest.Allow("allow")
				}
				t.Cleanup(func() { close(never) }) // before the harness closes
				return f.prompt(t, "greet the world")
			},
			cli: func(t *testing.T) outcome {
				return newCLIFace(t, commandScript(), `{"maxWallClockSeconds": 1, "tools": {"runCommand": "ask"}}`).run(t, "make out.txt")
			},
		},
	}
}

func TestHostileInputsOnEveryFace(t *testing.T) {
	for _, row := range hostileRows() {
		t.Run(row.name, func(t *testing.T) {
			for _, face := range []struct {
				name string
				run  func(t *testing.T) outcome
			}{{"lsp", row.lsp}, {"acp", row.acp}, {"cli", row.cli}} {
				t.Run(face.name, func(t *testing.T) {
					if face.run == nil {
						t.Fatalf("row %q has no %s runner: every rule holds on every face", row.name, face.name)
					}
					if got := face.run(t); got != row.want {
						t.Fatalf("%s: got %+v, want %+v", face.name, got, row.want)
					}
				})
			}
		})
	}
}

// Scripts the rows share.

// editScript reads a.txt and edits it (a change to permit).
func editScript() llmtest.Script {
	return func(r *llmtest.ChatRequest) llmtest.Reply {
		switch {
		case !r.HasToolResult("c1"):
			return acptest.Call("c1", "read_file", `{"path":"a.txt"}`)
		case !r.HasToolResult("c2"):
			return acptest.Call("c2", "edit_file", `{"path":"a.txt","old_string":"hello","new_string":"hello, world"}`)
		}
		return llmtest.Text("done")
	}
}

// commandScript asks to run a command that writes out.txt (an approval
// to grant).
func commandScript() llmtest.Script {
	return func(r *llmtest.ChatRequest) llmtest.Reply {
		if !r.HasToolResult("c1") {
			return acptest.Call("c1", "run_command", `{"command":"echo pwned > out.txt"}`)
		}
		return llmtest.Text("done")
	}
}

// neverAnswer is a showMessageRequest handler that waits until the test
// ends.
func neverAnswer(t *testing.T) lsptest.Handler {
	never := make(chan struct{})
	t.Cleanup(func() { close(never) })
	return func(lsptest.Message) (any, *lsptest.Error) {
		<-never
		return nil, nil
	}
}

// The faces. Each starts from the same workspace (a.txt holding
// "hello\n"), a scripted model and a user config file (config "" none).

// faceEnv is a closed-world environment: config, state and cache in
// temporary directories, the model at srv.
func faceEnv(t *testing.T, srv *llmtest.Server, config string) (dir string, env map[string]string) {
	t.Helper()
	dir = acptest.RealDir(t, t.TempDir())
	if err := os.WriteFile(filepath.Join(dir, "a.txt"), []byte("hello\n"), 0o644); err != nil {
		t.Fatal(err)
	}
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
}

func newLSPFace(t *testing.T, script llmtest.Script, config string) *lspFace {
	t.Helper()
	dir, env := faceEnv(t, llmtest.New(t, script), config)
	srv := lspserver.New(lspserver.Options{NoWatcher: true})
	srv.SetRunOptions(lspserver.RunOptions{Env: func(k string) string { return env[k] }, TranscriptDir: lspserver.NoTranscripts})
	c := lsptest.NewInProcessServer(t, srv)
	if _, err := c.Initialize(lsptest.Context(t), lsptest.InitOptions{Folders: []string{dir}}); err != nil {
		t.Fatal(err)
	}
	return &lspFace{dir: dir, client: c}
}

// run starts agentls.run and waits for the run's end.
func (f *lspFace) run(t *testing.T, prompt string) outcome {
	t.Helper()
	before := tree(t, f.dir)
	ctx := lsptest.Context(t)
	args, _ := json.Marshal(lspserver.RunArgs{Prompt: prompt})
	var res lspserver.RunResult
	if err := f.client.Call(ctx, protocol.MethodWorkspaceExecuteCommand, &protocol.ExecuteCommandParams{
		Command: lspserver.CommandRun, Arguments: []protocol.LSPAny{args}}, &res); err != nil {
		t.Fatalf("agentls.run: %v", err)
	}
	var end lspserver.RunEvent
	_, err := f.client.Await(ctx, lspserver.MethodRunEvent, func(m lsptest.Message) bool {
		var e lspserver.RunEvent
		if json.Unmarshal(m.Params, &e) != nil || e.RunID != res.RunID {
			return false
		}
		end = e
		return e.Kind == "finished" || e.Kind == "failed" || e.Kind == "cancelled"
	})
	t.Logf("LSP run ended %s %s (%v)", end.Kind, end.Error, err)
	return outcome{Ended: err == nil, Wrote: changed(before, tree(t, f.dir))}
}

// acpFace is an in-process ACP agent with the SDK's client.
type acpFace struct{ h *acptest.Harness }

func newACPFace(t *testing.T, script llmtest.Script, config string) *acpFace {
	t.Helper()
	h := acptest.Start(t, script, acptest.Options{})
	h.Write("a.txt", "hello\n")
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
}

func newCLIFace(t *testing.T, script llmtest.Script, config string) *cliFace {
	t.Helper()
	dir, env := faceEnv(t, llmtest.New(t, script), config)
	return &cliFace{bin: lsptest.BuildBinary(t), dir: dir, env: env}
}

// run runs `agentls run --dir DIR prompt` (no --apply, stdin not a
// terminal) to its exit.
func (f *cliFace) run(t *testing.T, prompt string, flags ...string) outcome {
	t.Helper()
	before := tree(t, f.dir)
	ctx, cancel := context.WithTimeout(context.Background(), testwait.Limit)
	defer cancel()
	cmd := exec.CommandContext(ctx, f.bin, append(append([]string{"run", "--dir", f.dir}, flags...), prompt)...)
	cmd.Env = []string{"PATH=" + os.Getenv("PATH")}
	for k, v := range f.env {
		cmd.Env = append(cmd.Env, k+"="+v)
	}
	var stdout, stderr strings.Builder
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	err := cmd.Run()
	var exit *exec.ExitError
	t.Logf("agentls run: %v\nstdout:\n%s\nstderr:\n%s", err, stdout.String(), stderr.String())
	ended := ctx.Err() == nil && (err == nil || errors.As(err, &exit))
	return outcome{Ended: ended, Wrote: changed(before, tree(t, f.dir))}
}
