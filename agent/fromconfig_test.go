package agent

import (
	"reflect"
	"testing"

	"github.com/agentls/agentls/agent/config"
	"github.com/agentls/agentls/tools/mcp"
)

// The configuration's MCP server entry and the MCP client's must not
// drift: same fields with the same JSON names, and MCPServers copies all
// of them.
func TestMCPServersConvertsEveryField(t *testing.T) {
	for _, pair := range [][2]reflect.Type{
		{reflect.TypeFor[config.MCPServer](), reflect.TypeFor[mcp.ServerConfig]()},
		{reflect.TypeFor[config.MCPOAuth](), reflect.TypeFor[mcp.OAuthConfig]()},
	} {
		a, b := pair[0], pair[1]
		if a.NumField() != b.NumField() {
			t.Fatalf("%v has %d fields, %v %d", a, a.NumField(), b, b.NumField())
		}
		for i := range a.NumField() {
			fa, fb := a.Field(i), b.Field(i)
			if fa.Name != fb.Name || fa.Tag.Get("json") != fb.Tag.Get("json") {
				t.Errorf("field %d: %v.%s %q vs %v.%s %q", i, a, fa.Name, fa.Tag.Get("json"), b, fb.Name, fb.Tag.Get("json"))
			}
		}
	}
	c := config.Config{MCPServers: map[string]config.MCPServer{"s": {Command: "c", Args: []string{"a"}, Env: map[string]string{"E": "1"},
		Type: "http", URL: "u", Headers: map[string]string{"H": "2"}, Disabled: true,
		OAuth: &config.MCPOAuth{ClientID: "id", ClientSecret: "sec", Scopes: []string{"s"}, ClientMetadataURL: "m"}}}}
	got := MCPServers(c)["s"]
	want := mcp.ServerConfig{Command: "c", Args: []string{"a"}, Env: map[string]string{"E": "1"}, Type: "http", URL: "u",
		Headers: map[string]string{"H": "2"}, Disabled: true,
		OAuth: &mcp.OAuthConfig{ClientID: "id", ClientSecret: "sec", Scopes: []string{"s"}, ClientMetadataURL: "m"}}
	if !reflect.DeepEqual(got, want) {
		t.Fatalf("MCPServers = %+v, want %+v", got, want)
	}
}
