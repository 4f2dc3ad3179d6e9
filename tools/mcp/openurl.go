package mcp

import (
	"errors"
	"fmt"
	"net"
	"net/url"
	"strings"

	"github.com/agentls/agentls/internal/safetext"
)

// ErrUnsafeURL is wrapped by CheckBrowserURL for an address agentls will
// not open.
var ErrUnsafeURL = errors.New("agentls opens only https addresses (or http on this machine)")

// CheckBrowserURL decides whether an address that came from an MCP server
// (an OAuth authorization_endpoint, a URL-mode elicitation) may be opened
// in the user's browser or shown as a link to follow: only https, or http
// to a loopback host (a local development server). Anything else is
// refused with ErrUnsafeURL: vscode:// and other app schemes run editor
// commands, file:// opens local files, javascript: runs script, and a
// string starting with "-" reaches an opener (xdg-open, open) as an
// option.
func CheckBrowserURL(raw string) error {
	shown := safetext.Bound(safetext.Line(raw), 200)
	u, err := url.Parse(raw)
	if err != nil || strings.TrimSpace(raw) != raw || raw == "" {
		return fmt.Errorf("%w: %q is not a valid address", ErrUnsafeURL, shown)
	}
	switch strings.ToLower(u.Scheme) {
	case "https":
	case "http":
		if !loopbackHost(u.Hostname()) {
			return fmt.Errorf("%w: %q is plain http to another machine", ErrUnsafeURL, shown)
		}
	default:
		scheme := u.Scheme
		if scheme == "" {
			scheme = "none"
		}
		return fmt.Errorf("%w: %q has the scheme %s", ErrUnsafeURL, shown, safetext.Line(scheme))
	}
	if u.Host == "" || u.Opaque != "" {
		return fmt.Errorf("%w: %q has no host", ErrUnsafeURL, shown)
	}
	return nil
}

// loopbackHost reports whether host is this machine: localhost or a
// loopback address.
func loopbackHost(host string) bool {
	if strings.EqualFold(host, "localhost") {
		return true
	}
	ip := net.ParseIP(host)
	return ip != nil && ip.IsLoopback()
}
