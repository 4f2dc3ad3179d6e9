// Package mcptest provides a real MCP server (mcp-go's server package) with
// tools that exercise the agentls MCP client: echo, errors, cancellation,
// run-time tool registration (tools/list_changed), large and mixed content,
// names that need sanitising, and generated tools of typical size. Tests in
// other packages serve it over streamable HTTP with StartHTTP; the
// tools/mcp tests also serve it over stdio from a re-executed test binary.
package mcptest

import (
	"context"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"io"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/mark3labs/mcp-go/mcp"
	"github.com/mark3labs/mcp-go/server"
)

// Options shape the server.
type Options struct {
	// GeneratedTools adds that many tools shaped like typical real MCP tools
	// (two-sentence description, four documented parameters).
	GeneratedTools int
	// Log receives one line per notable event ("helper: wait started",
	// "helper: wait cancelled"); nil discards them.
	Log io.Writer
	// Exit, when set, adds the "die" tool, which logs and calls Exit(3) in
	// the middle of the call (for servers running in their own process).
	Exit func(code int)
}

// Tool names and texts tests can rely on.
const (
	LongToolName  = "a_really_long_tool_name_xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx"
	WeirdToolName = "weird.name/with spaces"
)

// NewServer builds the server. Its tools:
//
//	echo {text}       → "helper: <text>" (readOnlyHint)
//	fail              → isError "the widget is broken"
//	wait              → blocks until cancelled (logs "helper: wait started"/"helper: wait cancelled")
//	add_tool {name}   → registers tool <name> answering "I am <name>" (sends tools/list_changed)
//	big               → 200 KB of text
//	mixed             → text, image, audio, resource link, embedded text and blob resources
//	die               → only with Options.Exit: exits the process mid-call
//	plus WeirdToolName, LongToolName and the generated tools.
func NewServer(o Options) *server.MCPServer {
	log := o.Log
	if log == nil {
		log = io.Discard
	}
	s := server.NewMCPServer("agentls-helper", "1.0", server.WithToolCapabilities(true), server.WithPaginationLimit(7))
	s.AddTool(mcp.NewTool("echo", mcp.WithDescription("Echo the text back."), mcp.WithReadOnlyHintAnnotation(true),
		mcp.WithString("text", mcp.Required(), mcp.Description("text to echo"))),
		func(ctx context.Context, r mcp.CallToolRequest) (*mcp.CallToolResult, error) {
			out := "helper: " + r.GetString("text", "")
			res := mcp.NewToolResultText(out)
			res.StructuredContent = map[string]any{"echo": out, "length": len(out)}
			return res, nil
		})
	if o.Exit != nil {
		s.AddTool(mcp.NewTool("die", mcp.WithDescription("Exit the server in the middle of the call.")),
			func(ctx context.Context, r mcp.CallToolRequest) (*mcp.CallToolResult, error) {
				fmt.Fprintln(log, "helper: dying on purpose")
				o.Exit(3)
				return nil, nil
			})
	}
	s.AddTool(mcp.NewTool("wait", mcp.WithDescription("Wait until cancelled.")),
		func(ctx context.Context, r mcp.CallToolRequest) (*mcp.CallToolResult, error) {
			fmt.Fprintln(log, "helper: wait started")
			select {
			case <-ctx.Done():
				fmt.Fprintln(log, "helper: wait cancelled")
				return nil, ctx.Err()
			case <-time.After(time.Minute):
				return mcp.NewToolResultText("waited a minute"), nil
			}
		})
	s.AddTool(mcp.NewTool("add_tool", mcp.WithDescription("Register another tool."),
		mcp.WithString("name", mcp.Required())),
		func(ctx context.Context, r mcp.CallToolRequest) (*mcp.CallToolResult, error) {
			name := r.GetString("name", "")
			s.AddTool(mcp.NewTool(name, mcp.WithDescription("Added at run time.")),
				func(context.Context, mcp.CallToolRequest) (*mcp.CallToolResult, error) {
					return mcp.NewToolResultText("I am " + name), nil
				})
			return mcp.NewToolResultText("added " + name), nil
		})
	s.AddTool(mcp.NewTool("big", mcp.WithDescription("Return 200 KB of text.")),
		func(ctx context.Context, r mcp.CallToolRequest) (*mcp.CallToolResult, error) {
			return mcp.NewToolResultText(strings.Repeat("0123456789abcdé\n", 200*1024/17)), nil
		})
	s.AddTool(mcp.NewTool("fail", mcp.WithDescription("Report a tool error.")),
		func(ctx context.Context, r mcp.CallToolRequest) (*mcp.CallToolResult, error) {
			return mcp.NewToolResultError("the widget is broken"), nil
		})
	s.AddTool(mcp.NewTool("mixed", mcp.WithDescription("Return every kind of content.")),
		func(ctx context.Context, r mcp.CallToolRequest) (*mcp.CallToolResult, error) {
			img := base64.StdEncoding.EncodeToString(make([]byte, 1234))
			return &mcp.CallToolResult{Content: []mcp.Content{
				mcp.NewTextContent("intro"),
				mcp.NewImageContent(img, "image/png"),
				mcp.NewAudioContent(base64.StdEncoding.EncodeToString(make([]byte, 10)), "audio/wav"),
				mcp.NewResourceLink("file:///tmp/report.txt", "report", "the report", "text/plain"),
				mcp.NewEmbeddedResource(mcp.TextResourceContents{URI: "mem://note", Text: "note body"}),
				mcp.NewEmbeddedResource(mcp.BlobResourceContents{URI: "mem://blob", MIMEType: "application/gzip", Blob: base64.StdEncoding.EncodeToString(make([]byte, 99))}),
			}}, nil
		})
	s.AddTool(mcp.NewTool(WeirdToolName, mcp.WithDescription("A name that needs sanitising.")),
		func(ctx context.Context, r mcp.CallToolRequest) (*mcp.CallToolResult, error) {
			return mcp.NewToolResultText("weird ok"), nil
		})
	s.AddTool(mcp.NewTool(LongToolName, mcp.WithDescription("A name that needs shortening.")),
		func(ctx context.Context, r mcp.CallToolRequest) (*mcp.CallToolResult, error) {
			return mcp.NewToolResultText("long ok"), nil
		})
	for i := range o.GeneratedTools {
		addGeneratedTool(s, i)
	}
	return s
}

// addGeneratedTool adds a tool shaped like a typical real MCP tool.
func addGeneratedTool(s *server.MCPServer, i int) {
	nouns := []string{"issue", "ticket", "invoice", "customer", "deployment", "alert", "dashboard", "document"}
	verbs := []string{"create", "update", "list", "archive", "search", "export"}
	noun, verb := nouns[i%len(nouns)], verbs[(i/len(nouns))%len(verbs)]
	name := fmt.Sprintf("%s_%s_%d", verb, noun, i)
	s.AddTool(mcp.NewTool(name,
		mcp.WithDescription(fmt.Sprintf("%s a %s in the project tracker. Returns the %s as JSON with its id, title, status, owner and timestamps; fails when the caller lacks permission.", strings.ToUpper(verb[:1])+verb[1:], noun, noun)),
		mcp.WithString("project", mcp.Required(), mcp.Description("Project key, for example ENG or OPS.")),
		mcp.WithString("title", mcp.Description("Human-readable title of the "+noun+".")),
		mcp.WithString("status", mcp.Description("One of open, in_progress, blocked, done.")),
		mcp.WithNumber("limit", mcp.Description("Maximum number of results to return (1-100).")),
	), func(ctx context.Context, r mcp.CallToolRequest) (*mcp.CallToolResult, error) {
		return mcp.NewToolResultText(name + " ok"), nil
	})
}

// StartHTTP serves s over streamable HTTP on 127.0.0.1 until the test ends
// and returns the endpoint URL (for a "type": "http" server entry).
func StartHTTP(t testing.TB, s *server.MCPServer) string {
	h := server.NewStreamableHTTPServer(s)
	ts := httptest.NewServer(h)
	t.Cleanup(func() {
		_ = h.Shutdown(context.Background())
		ts.CloseClientConnections()
		ts.Close()
	})
	return ts.URL + "/mcp"
}

// SchemaToolSchema is the input schema of the tool AddSchemaTool adds: a
// top-level $ref, oneOf and $schema, which a client that decodes schemas
// into a fixed struct loses.
const SchemaToolSchema = `{"$schema":"https://json-schema.org/draft/2020-12/schema","$ref":"#/$defs/SearchArgs","$defs":{"SearchArgs":{"type":"object","properties":{"query":{"type":"string","description":"words to look for"},"id":{"type":"integer"}},"oneOf":[{"required":["query"]},{"required":["id"]}]}}}`

// AddSchemaTool adds "search" with SchemaToolSchema, answering
// "search: <query or id>".
func AddSchemaTool(s *server.MCPServer) {
	s.AddTool(mcp.NewToolWithRawSchema("search", "Search by query or by id.", []byte(SchemaToolSchema)),
		func(ctx context.Context, r mcp.CallToolRequest) (*mcp.CallToolResult, error) {
			if q := r.GetString("query", ""); q != "" {
				return mcp.NewToolResultText("search: " + q), nil
			}
			return mcp.NewToolResultText(fmt.Sprintf("search: #%d", r.GetInt("id", 0))), nil
		})
}

// AddClientRequestTools adds tools that send requests to the client in the
// middle of a call and report the answer as text:
//
//	sample        → sampling/createMessage; "sampling error: <err>" (agentls does not support it)
//	ask {message, form, schema} → elicitation/create with a form (name:
//	                string, default "anon"; color: enum red/green; only color
//	                when form is "color"; the schema argument, JSON text,
//	                when given); "<action> <content JSON>"
//	ask_url {url}   → a URL-mode elicitation/create; "<action>"
//	ask_many {n}    → n confirmation elicitations at once (a flood);
//	                "accept=A decline=D cancel=C error=E"
//	ask_later {ms}  → "scheduled" at once; ms later, with no call of this
//	                server in progress, an elicitation; asked_later then
//	                returns "<action>" (or "pending", "error: …")
func AddClientRequestTools(s *server.MCPServer) {
	var laterMu sync.Mutex
	later := "none"
	confirm := func(msg string) mcp.ElicitationRequest {
		req := mcp.ElicitationRequest{}
		req.Params.Message = msg
		req.Params.RequestedSchema = map[string]any{"type": "object", "properties": map[string]any{}}
		return req
	}
	s.AddTool(mcp.NewTool("ask_url", mcp.WithDescription("Ask the user to open a URL."), mcp.WithString("url")),
		func(ctx context.Context, r mcp.CallToolRequest) (*mcp.CallToolResult, error) {
			req := mcp.ElicitationRequest{}
			req.Params.Mode, req.Params.ElicitationID = mcp.ElicitationModeURL, "e1"
			req.Params.Message, req.Params.URL = "Open this page to continue.", r.GetString("url", "")
			res, err := s.RequestElicitation(ctx, req)
			if err != nil {
				return mcp.NewToolResultError("elicitation failed: " + err.Error()), nil
			}
			return mcp.NewToolResultText(string(res.Action)), nil
		})
	s.AddTool(mcp.NewTool("ask_many", mcp.WithDescription("Ask the user many times at once."), mcp.WithNumber("n")),
		func(ctx context.Context, r mcp.CallToolRequest) (*mcp.CallToolResult, error) {
			n := r.GetInt("n", 200)
			var mu sync.Mutex
			counts := map[string]int{}
			var wg sync.WaitGroup
			for i := range n {
				wg.Add(1)
				go func() {
					defer wg.Done()
					res, err := s.RequestElicitation(ctx, confirm(fmt.Sprintf("Prompt %d of %d", i+1, n)))
					mu.Lock()
					defer mu.Unlock()
					if err != nil {
						counts["error"]++
						return
					}
					counts[string(res.Action)]++
				}()
			}
			wg.Wait()
			return mcp.NewToolResultText(fmt.Sprintf("accept=%d decline=%d cancel=%d error=%d",
				counts["accept"], counts["decline"], counts["cancel"], counts["error"])), nil
		})
	s.AddTool(mcp.NewTool("ask_later", mcp.WithDescription("Ask the user later, after this call."), mcp.WithNumber("ms")),
		func(ctx context.Context, r mcp.CallToolRequest) (*mcp.CallToolResult, error) {
			laterMu.Lock()
			later = "pending"
			laterMu.Unlock()
			go func() {
				time.Sleep(time.Duration(r.GetInt("ms", 100)) * time.Millisecond)
				res, err := s.RequestElicitation(context.WithoutCancel(ctx), confirm("Unsolicited: approve?"))
				laterMu.Lock()
				defer laterMu.Unlock()
				if err != nil {
					later = "error: " + err.Error()
					return
				}
				later = string(res.Action)
			}()
			return mcp.NewToolResultText("scheduled"), nil
		})
	s.AddTool(mcp.NewTool("asked_later", mcp.WithDescription("The answer to ask_later's elicitation.")),
		func(ctx context.Context, r mcp.CallToolRequest) (*mcp.CallToolResult, error) {
			laterMu.Lock()
			defer laterMu.Unlock()
			return mcp.NewToolResultText(later), nil
		})
	s.AddTool(mcp.NewTool("sample", mcp.WithDescription("Ask the client's model.")),
		func(ctx context.Context, r mcp.CallToolRequest) (*mcp.CallToolResult, error) {
			req := mcp.CreateMessageRequest{}
			req.Messages = []mcp.SamplingMessage{{Role: mcp.RoleUser, Content: mcp.NewTextContent("hi")}}
			req.MaxTokens = 10
			//lint:ignore SA1019 the test asks on the handshake-era protocol agentls pins
			_, err := s.RequestSampling(ctx, req)
			return mcp.NewToolResultText(fmt.Sprintf("sampling error: %v", err)), nil
		})
	s.AddTool(mcp.NewTool("ask", mcp.WithDescription("Ask the user."), mcp.WithString("message"), mcp.WithString("form"),
		mcp.WithString("schema", mcp.Description("a requestedSchema as JSON text, asked instead of the built-in forms"))),
		func(ctx context.Context, r mcp.CallToolRequest) (*mcp.CallToolResult, error) {
			req := mcp.ElicitationRequest{}
			req.Params.Message = r.GetString("message", "Who are you?")
			props := map[string]any{
				"name":  map[string]any{"type": "string", "default": "anon"},
				"color": map[string]any{"type": "string", "enum": []string{"red", "green"}},
			}
			if r.GetString("form", "") == "color" {
				delete(props, "name")
			}
			req.Params.RequestedSchema = map[string]any{"type": "object", "properties": props}
			if raw := r.GetString("schema", ""); raw != "" {
				req.Params.RequestedSchema = json.RawMessage(raw)
			}
			res, err := s.RequestElicitation(ctx, req)
			if err != nil {
				return mcp.NewToolResultError("elicitation failed: " + err.Error()), nil
			}
			b, _ := json.Marshal(res.Content)
			return mcp.NewToolResultText(fmt.Sprintf("%s %s", res.Action, b)), nil
		})
}
