package mcp

import (
	"encoding/json"
	"fmt"
	"maps"
	"slices"
	"strings"

	"github.com/mark3labs/mcp-go/mcp"
)

// A front-end without forms (an LSP client without our plugin, an ACP
// client) can still answer some elicitations: a confirmation with no
// fields, a single yes/no field or a single enum field become a question
// with one choice per answer plus "Decline"; a URL-mode request offers
// "Open" and "Decline". Any other form cannot be asked that way and is
// declined. The rule lives here once so that every face asks the same
// question and maps the answer back the same way: a choice that was not
// offered declines (fail closed, as agent.Decide does). Dismissing the
// question is the face's "cancel"; the schema's defaults are applied by
// the manager after the answer.

// Choices every question without a form offers.
const (
	DeclineChoice = "Decline"
	OpenChoice    = "Open" // URL mode: the user goes to the address
)

// Question is an elicitation as a front-end without forms asks it.
type Question struct {
	// Text says which server asks what (and, in URL mode, where to go).
	Text string
	// Choices are offered in order; the last is DeclineChoice. Nil when
	// Declined is set.
	Choices []Choice
	// URL is the address of a URL-mode request: a face opens it (or shows
	// it) when the answer is OpenChoice.
	URL string
	// Declined, when not "", is why the request cannot be asked without a
	// form: the face declines it at once and tells the user.
	Declined string

	field   string // the one field answered, "" for none
	boolean bool   // the field is a yes/no
}

// Choice is one answer a Question offers.
type Choice struct {
	Title string
	// Accept: choosing it accepts the request (with the value Title
	// stands for); only DeclineChoice does not.
	Accept bool
}

// formFields is a requestedSchema as far as a question with choices can
// show it.
type formFields struct {
	Properties map[string]struct {
		Type  string   `json:"type"`
		Title string   `json:"title"`
		Enum  []string `json:"enum"`
	} `json:"properties"`
}

// AskWithoutForm is e as a question with choices, or (Declined) why it
// needs a form.
func AskWithoutForm(e Elicitation) Question {
	q := Question{Text: fmt.Sprintf("MCP server %q asks: %s", e.Server, e.Message)}
	if e.Mode == mcp.ElicitationModeURL {
		q.Text += "\n" + e.URL
		q.URL = e.URL
		return q.offer(OpenChoice)
	}
	var f formFields
	if err := json.Unmarshal(e.Schema, &f); err != nil {
		q.Declined = "the form is not one a question with choices can show"
		return q
	}
	switch len(f.Properties) {
	case 0:
		return q.offer("Accept")
	case 1:
	default:
		q.Declined = fmt.Sprintf("the form has %d fields; without a form only a confirmation, one yes/no or one choice can be asked", len(f.Properties))
		return q
	}
	name := slices.Collect(maps.Keys(f.Properties))[0]
	p := f.Properties[name]
	q.field = name
	if p.Title != "" {
		q.Text += " (" + p.Title + ")"
	}
	switch {
	case len(p.Enum) > 0:
		// A value that reads like another choice, or twice, would make
		// the answer ambiguous: the user could accept while meaning to
		// decline.
		for i, v := range p.Enum {
			if strings.TrimSpace(v) == "" || v == DeclineChoice || slices.Contains(p.Enum[:i], v) {
				q.Declined = fmt.Sprintf("the field %q offers the choice %q, which cannot be told apart from another answer", name, v)
				return q
			}
		}
		return q.offer(p.Enum...)
	case p.Type == "boolean":
		q.boolean = true
		return q.offer("Yes", "No")
	}
	q.Declined = fmt.Sprintf("the field %q is to be typed in (%s); without a form only a confirmation, one yes/no or one choice can be asked", name, p.Type)
	return q
}

// offer makes answers, then DeclineChoice, q's choices.
func (q Question) offer(answers ...string) Question {
	q.Choices = make([]Choice, 0, len(answers)+1)
	for _, a := range answers {
		q.Choices = append(q.Choices, Choice{Title: a, Accept: true})
	}
	q.Choices = append(q.Choices, Choice{Title: DeclineChoice})
	return q
}

// Answer is the result of choosing the choice titled title: accept with
// the field's value (a yes/no as a boolean, an enum value as itself),
// decline for DeclineChoice and for anything q did not offer.
func (q Question) Answer(title string) ElicitResult {
	i := slices.IndexFunc(q.Choices, func(c Choice) bool { return c.Title == title })
	if q.Declined != "" || i < 0 || !q.Choices[i].Accept {
		return ElicitResult{Action: ElicitDecline}
	}
	res := ElicitResult{Action: ElicitAccept}
	if q.field != "" {
		var v any = title
		if q.boolean {
			v = title == "Yes"
		}
		res.Content = map[string]any{q.field: v}
	}
	return res
}
