package nvim_test

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/agentls/agentls/agent/llm/llmtest"
)

const calcGo = "package calc\n\nfunc a() int { return 1 }\n\nfunc b() int { return 2 }\n"

const helperBlock = "// helper doubles x.\nfunc helper(x int) int {\n\treturn 2 * x\n}\n\n"

// TestTwoOverlappingRunsNeverDuplicate: the same prompt run twice proposes
// the same block twice; whatever the user accepts, in whatever order
// (the file, the second run's hunk first, everything), the block lands
// once, the other run's hunk is shown as not applicable (no virtual lines
// offering it again), a second accept applies nothing and says why.
func TestTwoOverlappingRunsNeverDuplicate(t *testing.T) {
	t.Parallel()
	for _, order := range []string{"file", "hunk2", "all"} {
		t.Run(order, func(t *testing.T) {
			t.Parallel()
			srv := llmtest.New(t, readThenEdit("calc.go", "Added a helper.", [2]string{"func b", helperBlock + "func b"}))
			env := modelEnv(srv)
			env["AGENTLS_TEST_ORDER"] = order
			r := runScript(t, "run_overlap.lua", options{env: env, files: map[string]string{"calc.go": calcGo}})
			want := strings.Replace(calcGo, "func b", helperBlock+"func b", 1)
			if got := r.str(t, "before"); got != calcGo {
				t.Fatalf("buffer changed before any accept:\n%s", got)
			}
			for _, key := range []string{"after", "after_second_accept", "server_text"} {
				if got := r.str(t, key); got != want {
					t.Errorf("%s:\n%s\nwant the block once:\n%s", key, got, want)
				}
			}
			var left struct {
				RunID        string `json:"runId"`
				Status       string `json:"status"`
				SupersededBy any    `json:"supersededBy"`
			}
			r.fact(t, "left", &left)
			if left.Status != "conflicted" || left.SupersededBy == nil {
				t.Errorf("hunk left after the accept: %+v, want conflicted and superseded", left)
			}
			var marks []mark
			r.fact(t, "marks", &marks)
			for _, m := range marks {
				if len(m.Virt) > 0 || strings.Contains(m.Hint, ":AgentAccept") {
					t.Errorf("the superseded hunk is still drawn as applicable: %+v", m)
				}
			}
			if ex := r.str(t, "explain"); !strings.Contains(ex, "already made this same change") || !strings.Contains(ex, "twice") {
				t.Errorf(":AgentExplain of the left hunk:\n%s", ex)
			}
			var second struct {
				Applied   bool `json:"applied"`
				Conflicts []struct {
					Reason string `json:"reason"`
				} `json:"conflicts"`
				FailureReason string `json:"failureReason"`
			}
			raw, _ := json.Marshal(r.Facts["second_accept"])
			if err := json.Unmarshal(r.Facts["second_accept"], &second); err != nil {
				t.Fatalf("second accept %s: %v", raw, err)
			}
			if second.Applied || len(second.Conflicts) != 1 || !strings.Contains(second.Conflicts[0].Reason, "which was accepted") {
				t.Errorf("second accept = %s, want nothing applied and the accepted change named", raw)
			}
			var pending int
			r.fact(t, "pending_after", &pending)
			if pending != 0 {
				t.Errorf("%d proposals left after rejecting the superseded hunk", pending)
			}
			for _, n := range r.Notifications {
				if strings.Contains(n.Msg, "does not contain the change") {
					t.Errorf("notification %q", n.Msg)
				}
			}
		})
	}
}

// writeNewFile is a model that reads cart.py, then proposes test_cart.py
// with content (write_file), then answers.
func writeNewFile(content string) llmtest.Script {
	return func(req *llmtest.ChatRequest) llmtest.Reply {
		if !req.HasToolResult("read") {
			return llmtest.ToolCalls(llmtest.Call{ID: "read", Name: "read_file", Args: `{"path":"cart.py"}`})
		}
		if !req.HasToolResult("write") {
			args, _ := json.Marshal(map[string]string{"path": "test_cart.py", "content": content})
			return llmtest.ToolCalls(llmtest.Call{ID: "write", Name: "write_file", Args: string(args)})
		}
		return llmtest.Text("Wrote tests.")
	}
}

// TestNewFileProposal: a proposed new file is seen in its own (empty)
// buffer before it exists, pending, and lands byte for byte, with or
// without a final newline, accepted there or from another buffer.
func TestNewFileProposal(t *testing.T) {
	t.Parallel()
	const withNL = "from cart import total\n\n\ndef test_total():\n    assert total([1, 2]) == 3\n"
	for _, tc := range []struct{ name, content, accept string }{
		{"open", withNL, "open"},
		{"open, no final newline", strings.TrimSuffix(withNL, "\n"), "open"},
		{"elsewhere", withNL, "elsewhere"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			srv := llmtest.New(t, writeNewFile(tc.content))
			env := modelEnv(srv)
			env["AGENTLS_TEST_ACCEPT"] = tc.accept
			r := runScript(t, "run_newfile.lua", options{env: env, files: map[string]string{
				"cart.py": "def total(xs):\n    return sum(xs)\n"}})
			if got := r.str(t, "status"); got != "finished" {
				t.Fatalf("run %s", got)
			}
			if r.boolean(t, "exists_before") {
				t.Fatal("the file exists before the accept")
			}
			if tc.accept == "open" {
				var h struct {
					Status  string `json:"status"`
					Created any    `json:"created"`
				}
				r.fact(t, "hunk", &h)
				if h.Status != "pending" || h.Created != true {
					t.Errorf("the new file's hunk in its buffer: %+v, want pending and created", h)
				}
				var marks []mark
				r.fact(t, "marks", &marks)
				var shown []string
				for _, m := range marks {
					shown = append(shown, m.virtTexts()...)
				}
				if !strings.Contains(strings.Join(shown, "\n"), "def test_total():") {
					t.Errorf("the buffer does not show the proposed file: %+v", marks)
				}
				var listed []struct {
					URI     string `json:"uri"`
					Status  string `json:"status"`
					Created bool   `json:"created"`
				}
				r.fact(t, "listed", &listed)
				if len(listed) != 1 || !strings.HasSuffix(listed[0].URI, "/test_cart.py") || !listed[0].Created || listed[0].Status != "pending" {
					t.Errorf("agentls/proposals lists %+v", listed)
				}
			}
			if got := r.str(t, "buffer_text"); got != tc.content {
				t.Errorf("buffer text %q, want %q", got, tc.content)
			}
			if got := r.str(t, "disk"); got != tc.content {
				t.Errorf("saved file %q, want exactly %q", got, tc.content)
			}
			for _, n := range r.Notifications {
				if strings.Contains(n.Msg, "not applied") || strings.Contains(n.Msg, "conflicted") {
					t.Errorf("notification %q", n.Msg)
				}
			}
		})
	}
}

// The explanation of a hunk superseded by another run's accepted change
// says "twice" only when that change was the same; a different change to
// the same lines overlaps (issue 31).
func TestExplainSupersededWording(t *testing.T) {
	t.Parallel()
	r := runScript(t, "explain_overlap.lua", options{})
	if same := r.str(t, "same"); !strings.Contains(same, "already made this same change") || !strings.Contains(same, "twice") {
		t.Errorf("same change explained as:\n%s", same)
	}
	if diff := r.str(t, "different"); strings.Contains(diff, "twice") || !strings.Contains(diff, "changed these lines differently") || !strings.Contains(diff, "only one of them can be applied") {
		t.Errorf("a different change explained as:\n%s", diff)
	}
}
