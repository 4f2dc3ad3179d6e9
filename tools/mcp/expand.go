package mcp

import (
	"sort"
	"strings"
)

// expander replaces ${VAR} and ${VAR:-default} in configuration values, the
// syntax other MCP clients accept in mcpServers. A bare $VAR is left alone so
// arguments such as regular expressions survive. Variables that are unset
// (and have no default) expand to "" and are remembered in missing so the
// caller can warn once.
type expander struct {
	lookup  func(string) string
	missing map[string]bool
}

func (e *expander) expand(s string) string {
	if !strings.Contains(s, "${") {
		return s
	}
	var b strings.Builder
	for {
		i := strings.Index(s, "${")
		if i < 0 {
			b.WriteString(s)
			return b.String()
		}
		j := strings.IndexByte(s[i:], '}')
		if j < 0 {
			b.WriteString(s)
			return b.String()
		}
		b.WriteString(s[:i])
		name := s[i+2 : i+j]
		def, hasDef := "", false
		if k := strings.Index(name, ":-"); k >= 0 {
			name, def, hasDef = name[:k], name[k+2:], true
		}
		v := e.lookup(name)
		if v == "" && hasDef {
			v = def
		} else if v == "" {
			if e.missing == nil {
				e.missing = map[string]bool{}
			}
			e.missing[name] = true
		}
		b.WriteString(v)
		s = s[i+j+1:]
	}
}

func (e *expander) expandAll(ss []string) []string {
	out := make([]string, len(ss))
	for i, s := range ss {
		out[i] = e.expand(s)
	}
	return out
}

// expandMap expands the values of m.
func (e *expander) expandMap(m map[string]string) map[string]string {
	out := make(map[string]string, len(m))
	for k, v := range m {
		out[k] = e.expand(v)
	}
	return out
}

// missingNames lists the variables that expanded to "", sorted.
func (e *expander) missingNames() []string {
	out := make([]string, 0, len(e.missing))
	for k := range e.missing {
		out = append(out, k)
	}
	sort.Strings(out)
	return out
}
