package mcp

import (
	"encoding/json"
	"reflect"
	"strings"
	"testing"
)

func titles(q Question) string {
	var out []string
	for _, c := range q.Choices {
		t := c.Title
		if !c.Accept {
			t = "!" + t
		}
		out = append(out, t)
	}
	return strings.Join(out, ",")
}

// TestAskWithoutForm: the shapes a client without forms can answer become
// a question with one choice per answer plus Decline; any other form is
// declined with the reason.
func TestAskWithoutForm(t *testing.T) {
	form := func(schema string) Elicitation {
		return Elicitation{Server: "helper", Message: "Go?", Mode: "form", Schema: json.RawMessage(schema)}
	}
	cases := []struct {
		name     string
		e        Elicitation
		text     string
		choices  string // "!" marks a choice that does not accept
		declined string // a part of the reason; "" when asked
	}{
		{"confirmation", form(`{"type":"object","properties":{}}`), `MCP server "helper" asks: Go?`, "Accept,!Decline", ""},
		{"yes/no", form(`{"properties":{"ok":{"type":"boolean","title":"Proceed"}}}`), `MCP server "helper" asks: Go? (Proceed)`, "Yes,No,!Decline", ""},
		{"enum", form(`{"properties":{"color":{"type":"string","enum":["red","green"]}}}`), `MCP server "helper" asks: Go?`, "red,green,!Decline", ""},
		{"url", Elicitation{Server: "helper", Message: "Sign.", Mode: "url", URL: "https://example.com/x"}, "MCP server \"helper\" asks: Sign.\nhttps://example.com/x", "Open,!Decline", ""},
		{"two fields", form(`{"properties":{"a":{"type":"string"},"b":{"type":"string"}}}`), "", "", "the form has 2 fields"},
		{"typed", form(`{"properties":{"name":{"type":"string"}}}`), "", "", `the field "name" is to be typed in (string)`},
		{"enum naming Decline", form(`{"properties":{"c":{"type":"string","enum":["keep","Decline"]}}}`), "", "", `offers the choice "Decline"`},
		{"enum twice", form(`{"properties":{"c":{"type":"string","enum":["a","a"]}}}`), "", "", `offers the choice "a"`},
		{"empty enum value", form(`{"properties":{"c":{"type":"string","enum":["a",""]}}}`), "", "", `offers the choice ""`},
		{"number enum", form(`{"properties":{"n":{"type":"number","enum":[1,2]}}}`), "", "", "not one a question with choices can show"},
		{"no schema", form(``), "", "", "not one a question with choices can show"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			q := AskWithoutForm(tc.e)
			if tc.declined != "" {
				if !strings.Contains(q.Declined, tc.declined) || q.Choices != nil {
					t.Fatalf("declined %q choices %q, want a reason with %q", q.Declined, titles(q), tc.declined)
				}
				if res := q.Answer("Accept"); res.Action != ElicitDecline || res.Content != nil {
					t.Errorf("answer of a declined question: %+v", res)
				}
				return
			}
			if q.Declined != "" || q.Text != tc.text || titles(q) != tc.choices {
				t.Fatalf("question %q choices %q declined %q", q.Text, titles(q), q.Declined)
			}
		})
	}
	if q := AskWithoutForm(cases[3].e); q.URL != "https://example.com/x" {
		t.Errorf("URL %q", q.URL)
	}
}

// TestQuestionAnswer: the chosen title maps back to the result the server
// gets, its value typed by the field; anything not offered declines.
func TestQuestionAnswer(t *testing.T) {
	ask := func(schema string) Question {
		return AskWithoutForm(Elicitation{Server: "s", Message: "m", Mode: "form", Schema: json.RawMessage(schema)})
	}
	boolean := ask(`{"properties":{"ok":{"type":"boolean"}}}`)
	enum := ask(`{"properties":{"color":{"type":"string","enum":["red","green"]}}}`)
	confirm := ask(`{"properties":{}}`)
	url := AskWithoutForm(Elicitation{Server: "s", Mode: "url", URL: "https://example.com"})
	cases := []struct {
		name   string
		q      Question
		choice string
		want   ElicitResult
	}{
		{"yes", boolean, "Yes", ElicitResult{Action: ElicitAccept, Content: map[string]any{"ok": true}}},
		{"no", boolean, "No", ElicitResult{Action: ElicitAccept, Content: map[string]any{"ok": false}}},
		{"enum value", enum, "green", ElicitResult{Action: ElicitAccept, Content: map[string]any{"color": "green"}}},
		{"confirm", confirm, "Accept", ElicitResult{Action: ElicitAccept}},
		{"open", url, "Open", ElicitResult{Action: ElicitAccept}},
		{"decline", enum, "Decline", ElicitResult{Action: ElicitDecline}},
		{"value not offered", enum, "blue", ElicitResult{Action: ElicitDecline}},
		{"other question's answer", enum, "Yes", ElicitResult{Action: ElicitDecline}},
		{"case differs", boolean, "yes", ElicitResult{Action: ElicitDecline}},
		{"empty", confirm, "", ElicitResult{Action: ElicitDecline}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			if got := tc.q.Answer(tc.choice); !reflect.DeepEqual(got, tc.want) {
				t.Errorf("Answer(%q) = %+v, want %+v", tc.choice, got, tc.want)
			}
		})
	}
}
