package mcp

import (
	"encoding/base64"
	"encoding/json"
	"fmt"
	"strings"
	"unicode/utf8"

	"github.com/mark3labs/mcp-go/mcp"
)

// MaxOutputBytes bounds the text of one MCP tool result sent to the model
// (the same 50 KB budget the built-in tools use). Longer output is cut on a
// UTF-8 boundary and ends with a note saying how much was dropped.
const MaxOutputBytes = 50 * 1024

// renderResult turns a tool result into the text the model sees: text blocks
// joined by newlines, binary blocks summarised by type and size (the model
// cannot use base64), resources by URI, structured content as JSON when
// there is nothing else.
func renderResult(res *mcp.CallToolResult) string {
	parts := make([]string, 0, len(res.Content))
	for _, c := range res.Content {
		if s := renderContent(c); s != "" {
			parts = append(parts, s)
		}
	}
	if len(parts) == 0 && res.StructuredContent != nil {
		if b, err := json.Marshal(res.StructuredContent); err == nil {
			parts = append(parts, string(b))
		}
	}
	return truncate(strings.Join(parts, "\n"), MaxOutputBytes)
}

func renderContent(c mcp.Content) string {
	switch v := c.(type) {
	case mcp.TextContent:
		return v.Text
	case *mcp.TextContent:
		return v.Text
	case mcp.ImageContent:
		return fmt.Sprintf("[image: %s, %d bytes]", v.MIMEType, base64Len(v.Data))
	case *mcp.ImageContent:
		return fmt.Sprintf("[image: %s, %d bytes]", v.MIMEType, base64Len(v.Data))
	case mcp.AudioContent:
		return fmt.Sprintf("[audio: %s, %d bytes]", v.MIMEType, base64Len(v.Data))
	case *mcp.AudioContent:
		return fmt.Sprintf("[audio: %s, %d bytes]", v.MIMEType, base64Len(v.Data))
	case mcp.ResourceLink:
		return renderLink(&v)
	case *mcp.ResourceLink:
		return renderLink(v)
	case mcp.EmbeddedResource:
		return renderResource(v.Resource)
	case *mcp.EmbeddedResource:
		return renderResource(v.Resource)
	default:
		if b, err := json.Marshal(c); err == nil {
			return string(b)
		}
		return fmt.Sprintf("[%T content]", c)
	}
}

func renderLink(l *mcp.ResourceLink) string {
	s := "[resource link: " + l.URI
	if l.Name != "" {
		s += " (" + l.Name + ")"
	}
	if l.MIMEType != "" {
		s += ", " + l.MIMEType
	}
	if l.Description != "" {
		s += ": " + l.Description
	}
	return s + "]"
}

func renderResource(r mcp.ResourceContents) string {
	switch v := r.(type) {
	case mcp.TextResourceContents:
		return fmt.Sprintf("[resource: %s]\n%s", v.URI, v.Text)
	case *mcp.TextResourceContents:
		return fmt.Sprintf("[resource: %s]\n%s", v.URI, v.Text)
	case mcp.BlobResourceContents:
		return fmt.Sprintf("[resource: %s, %s, %d bytes]", v.URI, v.MIMEType, base64Len(v.Blob))
	case *mcp.BlobResourceContents:
		return fmt.Sprintf("[resource: %s, %s, %d bytes]", v.URI, v.MIMEType, base64Len(v.Blob))
	default:
		return "[resource]"
	}
}

// base64Len is the decoded size of s without decoding it.
func base64Len(s string) int {
	s = strings.TrimRight(s, "=")
	return base64.RawStdEncoding.DecodedLen(len(s))
}

// truncate cuts s to at most limit bytes on a rune boundary and appends a
// note the model can act on.
func truncate(s string, limit int) string {
	if len(s) <= limit {
		return s
	}
	cut := limit
	for cut > 0 && !utf8.RuneStart(s[cut]) {
		cut--
	}
	return s[:cut] + fmt.Sprintf("\n[output truncated: showed the first %d of %d bytes; ask the tool for less (a narrower query or a page) to see the rest]", cut, len(s))
}
