package mcp

import (
	"errors"
	"fmt"
	"testing"
)

// The errors a request gets when the server has gone away count as a lost
// connection (the tool says the server is unavailable and reconnecting
// starts); a server's own rejection does not. net/http's "server closed
// idle connection" is what a POST on a kept-alive connection gets when
// the server shut down between two calls (TestRemoteServers/http failed
// on it once in CI).
func TestIsConnError(t *testing.T) {
	gone := fmt.Errorf("failed to send request: %w", errors.New(`Post "http://127.0.0.1:1/mcp": http: server closed idle connection`))
	if !isConnError(gone) {
		t.Errorf("not a lost connection: %v", gone)
	}
	if rejected := errors.New("request failed with status 400: bad arguments"); isConnError(rejected) {
		t.Errorf("a rejection counted as a lost connection: %v", rejected)
	}
}
