package complete

import (
	"strings"

	"github.com/agentls/agentls/agent/config"
)

// Template is a fill-in-the-middle prompt layout. Most families put the
// prefix first; Codestral puts the suffix first (SuffixFirst).
type Template struct {
	Family      string
	Prefix      string // before the prefix text
	Suffix      string // before the suffix text
	Middle      string // after both: the model writes the middle from here
	SuffixFirst bool
	// Stop are the family's control tokens that end a completion (a model
	// that starts another file or hole is done).
	Stop []string
	// FileSep introduces another file's context chunk ("" when the family
	// has none; a comment line names the file then).
	FileSep string
}

// families are the templates agentls knows, matched by model name (the
// first whose name fragment the lower-cased model name contains).
var families = []struct {
	match []string
	tmpl  Template
}{
	{[]string{"qwen2.5-coder", "qwen2.5:coder", "qwen-2.5-coder", "qwen3-coder", "qwen2.5_coder"}, Template{
		Family: "qwen2.5-coder", Prefix: "<|fim_prefix|>", Suffix: "<|fim_suffix|>", Middle: "<|fim_middle|>",
		Stop: []string{"<|endoftext|>", "<|fim_prefix|>", "<|fim_suffix|>", "<|fim_middle|>", "<|fim_pad|>", "<|file_sep|>", "<|repo_name|>", "<|im_start|>"}, FileSep: "<|file_sep|>"}},
	{[]string{"starcoder2", "starcoder"}, Template{
		Family: "starcoder2", Prefix: "<fim_prefix>", Suffix: "<fim_suffix>", Middle: "<fim_middle>",
		Stop: []string{"<|endoftext|>", "<fim_prefix>", "<fim_suffix>", "<fim_middle>", "<file_sep>"}, FileSep: "<file_sep>"}},
	{[]string{"codellama", "code-llama", "code_llama"}, Template{
		Family: "codellama", Prefix: "<PRE> ", Suffix: " <SUF>", Middle: " <MID>",
		Stop: []string{"<EOT>", "<PRE>", "<SUF>", "<MID>"}}},
	{[]string{"deepseek-coder", "deepseek_coder", "deepseekcoder"}, Template{
		Family: "deepseek-coder", Prefix: "<｜fim▁begin｜>", Suffix: "<｜fim▁hole｜>", Middle: "<｜fim▁end｜>",
		Stop: []string{"<｜end▁of▁sentence｜>", "<｜fim▁begin｜>", "<｜fim▁hole｜>", "<｜fim▁end｜>", "<|EOT|>"}}},
	{[]string{"codestral"}, Template{
		Family: "codestral", Prefix: "[PREFIX]", Suffix: "[SUFFIX]", Middle: "", SuffixFirst: true,
		Stop: []string{"</s>", "[PREFIX]", "[SUFFIX]", "[MIDDLE]"}}},
}

// Detect returns the family template whose name the model name contains.
func Detect(model string) (Template, bool) {
	m := strings.ToLower(model)
	for _, f := range families {
		for _, frag := range f.match {
			if strings.Contains(m, frag) {
				return f.tmpl, true
			}
		}
	}
	return Template{}, false
}

// Mode is how a completion is asked for, resolved from completion.fim.
type Mode int

// Resolved modes.
const (
	ModeSuffix   Mode = iota // /completions with a suffix field
	ModeTemplate             // /completions with the template in the prompt
	ModeChat                 // a chat completion asking for the middle
)

func (m Mode) String() string {
	return [...]string{"suffix", "template", "chat"}[m]
}

// resolve picks the mode and template for a configuration: "auto" is
// "template" for a known family (or a configured template), else "suffix".
func resolve(fim string, custom *config.FIMTemplate, model string) (Mode, Template) {
	t, known := Detect(model)
	if custom != nil {
		t = Template{Family: "custom", Prefix: custom.Prefix, Suffix: custom.Suffix, Middle: custom.Middle, Stop: t.Stop, FileSep: t.FileSep}
		known = true
	}
	switch fim {
	case config.FIMSuffix:
		return ModeSuffix, t
	case config.FIMChat:
		return ModeChat, t
	case config.FIMFilled:
		if !known { // a template was asked for but none is known: the most common layout
			t = families[0].tmpl
			t.Family = "qwen2.5-coder (default)"
		}
		return ModeTemplate, t
	}
	if known {
		return ModeTemplate, t
	}
	return ModeSuffix, t
}

// fill lays prefix and suffix out in the template.
func (t Template) fill(prefix, suffix string) string {
	var b strings.Builder
	b.Grow(len(prefix) + len(suffix) + 64)
	if t.SuffixFirst {
		b.WriteString(t.Suffix)
		b.WriteString(suffix)
		b.WriteString(t.Prefix)
		b.WriteString(prefix)
		b.WriteString(t.Middle)
		return b.String()
	}
	b.WriteString(t.Prefix)
	b.WriteString(prefix)
	b.WriteString(t.Suffix)
	b.WriteString(suffix)
	b.WriteString(t.Middle)
	return b.String()
}
