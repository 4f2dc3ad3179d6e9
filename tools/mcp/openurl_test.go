package mcp

import (
	"errors"
	"testing"
)

func TestCheckBrowserURL(t *testing.T) {
	for _, ok := range []string{
		"https://auth.example.com/authorize?x=1", "HTTPS://auth.example.com/a",
		"http://127.0.0.1:8080/authorize", "http://localhost/a", "http://[::1]:9/a",
	} {
		if err := CheckBrowserURL(ok); err != nil {
			t.Errorf("%s refused: %v", ok, err)
		}
	}
	for _, bad := range []string{
		"vscode://vscode.git/clone?url=x", "file:///etc/passwd", "javascript:alert(1)", "--help", "-a",
		"http://evil.example/authorize", "data:text/html,x", "https:opaque", "https:///nohost", "", " https://x.example",
		"https://x.example/\n", "ftp://x.example/",
	} {
		if err := CheckBrowserURL(bad); !errors.Is(err, ErrUnsafeURL) {
			t.Errorf("%q allowed (%v)", bad, err)
		}
	}
}
