package main

import (
	"bytes"
	"strings"
	"testing"
)

// TestCLIElicitWithoutTerminal: without a terminal on stdin there is no
// prompt (the manager declines).
func TestCLIElicitWithoutTerminal(t *testing.T) {
	if cliElicit(strings.NewReader("y\n"), &bytes.Buffer{}) != nil {
		t.Error("a prompt without a terminal")
	}
}

func TestParseAnswer(t *testing.T) {
	for _, c := range []struct {
		in, typ string
		enum    []string
		want    any
		bad     bool
	}{
		{"yes", "boolean", nil, true, false},
		{"n", "boolean", nil, false, false},
		{"maybe", "boolean", nil, nil, true},
		{"42", "integer", nil, int64(42), false},
		{"4.5", "integer", nil, nil, true},
		{"4.5", "number", nil, 4.5, false},
		{"red", "string", []string{"red", "green"}, "red", false},
		{"blue", "string", []string{"red", "green"}, nil, true},
	} {
		got, err := parseAnswer(c.in, c.typ, c.enum)
		if (err != nil) != c.bad || (!c.bad && got != c.want) {
			t.Errorf("parseAnswer(%q, %s) = %v, %v", c.in, c.typ, got, err)
		}
	}
}
