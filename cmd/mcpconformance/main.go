// Command mcpconformance is the client the official MCP conformance suite
// (@modelcontextprotocol/conformance, client scenarios) drives: it connects
// agentls's MCP client (tools/mcp, the code the editor and the CLI use) to
// the scenario's server, lists the tools and calls each one, answering
// elicitations with the schema's defaults and authorizations as a browser
// would (following the authorization server's redirect to the loopback
// listener). The suite passes the server URL as the last argument, the
// scenario in MCP_CONFORMANCE_SCENARIO and extra data (pre-registered
// client credentials) as JSON in MCP_CONFORMANCE_CONTEXT. .ci/run runs it.
package main

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"os"
	"sort"
	"time"

	"github.com/agentls/agentls/tools"
	"github.com/agentls/agentls/tools/mcp"
)

// clientMetadataURL is the client ID metadata document URL the suite's
// auth/basic-cimd scenario expects.
const clientMetadataURL = "https://conformance-test.local/client-metadata.json"

func main() {
	os.Exit(run(os.Args[1:], os.Stderr))
}

func run(args []string, stderr io.Writer) int {
	if len(args) == 0 {
		fmt.Fprintln(stderr, "usage: mcpconformance SERVER_URL")
		return 2
	}
	url := args[len(args)-1]
	scenario := os.Getenv("MCP_CONFORMANCE_SCENARIO")
	var cctx struct {
		ClientID     string `json:"client_id"`
		ClientSecret string `json:"client_secret"`
	}
	if c := os.Getenv("MCP_CONFORMANCE_CONTEXT"); c != "" {
		_ = json.Unmarshal([]byte(c), &cctx)
	}
	logger := slog.New(slog.NewTextHandler(stderr, &slog.HandlerOptions{Level: slog.LevelDebug}))
	ctx, cancel := context.WithTimeout(context.Background(), 25*time.Second)
	defer cancel()

	cfg := mcp.ServerConfig{Type: "http", URL: url, OAuth: &mcp.OAuthConfig{
		ClientID: cctx.ClientID, ClientSecret: cctx.ClientSecret, ClientMetadataURL: clientMetadataURL}}
	reg := tools.NewRegistry()
	m := mcp.NewManager(mcp.Options{
		Servers: map[string]mcp.ServerConfig{"conformance": cfg}, Registry: reg, Logger: logger,
		ReconnectAttempts: 1, ConnectTimeout: 20 * time.Second, CallTimeout: 20 * time.Second, ClientVersion: "conformance",
		Elicit: func(context.Context, mcp.Elicitation) (mcp.ElicitResult, error) {
			return mcp.ElicitResult{Action: mcp.ElicitAccept, Content: map[string]any{}}, nil // defaults fill the form
		},
		OAuth: mcp.OAuthOptions{Open: browse, Timeout: 20 * time.Second},
	})
	m.Start(ctx)
	defer m.Close()
	if err := m.WaitReady(ctx); err != nil {
		fmt.Fprintf(stderr, "mcpconformance %s: %v\n", scenario, err)
		return 1
	}
	st := m.Status()[0]
	if st.State != mcp.StateReady {
		fmt.Fprintf(stderr, "mcpconformance %s: server %s: %s\n", scenario, st.State, st.Err)
		return 1
	}
	names := make([]string, 0)
	for _, t := range reg.List() {
		names = append(names, t.Name())
	}
	sort.Strings(names)
	failed := false
	for _, n := range names {
		t, _ := reg.Get(n)
		res, err := t.Call(ctx, nil, sampleArgs(t.Schema()))
		switch {
		case err != nil:
			fmt.Fprintf(stderr, "%s: %v\n", n, err)
			failed = true
		default:
			fmt.Fprintf(stderr, "%s: error=%v %s\n", n, res.IsError, res.Text)
		}
	}
	if failed {
		return 1
	}
	return 0
}

// browse plays the user's browser: it follows the authorization server's
// redirects, which end at the client's loopback listener.
func browse(ctx context.Context, _ string, authURL string) error {
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, authURL, nil)
	if err != nil {
		return err
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		return err
	}
	_, _ = io.Copy(io.Discard, resp.Body)
	return resp.Body.Close()
}

// sampleArgs fills a tool's required (and listed) properties with values of
// their type, as a model would.
func sampleArgs(schema json.RawMessage) json.RawMessage {
	var sc struct {
		Properties map[string]struct {
			Type string `json:"type"`
			Enum []any  `json:"enum"`
		} `json:"properties"`
	}
	_ = json.Unmarshal(schema, &sc)
	args := map[string]any{}
	i := 0
	names := make([]string, 0, len(sc.Properties))
	for n := range sc.Properties {
		names = append(names, n)
	}
	sort.Strings(names)
	for _, n := range names {
		p := sc.Properties[n]
		i++
		switch {
		case len(p.Enum) > 0:
			args[n] = p.Enum[0]
		case p.Type == "number" || p.Type == "integer":
			args[n] = i
		case p.Type == "boolean":
			args[n] = true
		case p.Type == "string":
			args[n] = "test"
		}
	}
	b, _ := json.Marshal(args)
	return b
}
