package lspserver_test

import (
	"fmt"
	"slices"
	"strconv"
	"strings"
	"unicode"
)

// A deliberately small TypeScript reader: it knows the forms lsp_ext.ts
// uses (interfaces, type aliases, `as const` objects, RequestType and
// NotificationType constants, one import) and fails on anything else, so
// a new form is taught to it rather than skipped.

type tsKind int

const (
	tsRef     tsKind = iota // a name, possibly generic: string, Range, Record<string, unknown>
	tsLiteral               // a string literal type
	tsArray                 // args[0][]
	tsUnion                 // args[0] | args[1] | ...
	tsObject                // { fields }
)

type tsType struct {
	kind   tsKind
	name   string // tsRef: the name; tsLiteral: the string
	args   []*tsType
	fields []tsField
}

func (tt *tsType) String() string {
	switch tt.kind {
	case tsLiteral:
		return strconv.Quote(tt.name)
	case tsArray:
		return tt.args[0].String() + "[]"
	case tsUnion:
		var s []string
		for _, a := range tt.args {
			s = append(s, a.String())
		}
		return strings.Join(s, " | ")
	case tsObject:
		return "{...}"
	}
	if len(tt.args) == 0 {
		return tt.name
	}
	var s []string
	for _, a := range tt.args {
		s = append(s, a.String())
	}
	return tt.name + "<" + strings.Join(s, ", ") + ">"
}

// is says whether tt is the plain name name.
func (tt *tsType) is(name string) bool {
	return tt.kind == tsRef && tt.name == name && len(tt.args) == 0
}

// stringLiterals says whether tt is a string literal or a union of them.
func (tt *tsType) stringLiterals() bool {
	if tt.kind == tsLiteral {
		return true
	}
	if tt.kind != tsUnion {
		return false
	}
	for _, a := range tt.args {
		if a.kind != tsLiteral {
			return false
		}
	}
	return true
}

type tsField struct {
	name     string
	optional bool
	typ      *tsType
}

type tsMethod struct {
	notification   bool
	params, result *tsType
}

type tsFile struct {
	order      []string // interfaces and aliases in file order
	interfaces map[string][]tsField
	aliases    map[string]*tsType
	commands   map[string]bool // the values of Commands
	methods    map[string]tsMethod
}

// resolve follows type aliases.
func (f *tsFile) resolve(tt *tsType) *tsType {
	for i := 0; tt.kind == tsRef && len(tt.args) == 0 && i < 10; i++ {
		a, ok := f.aliases[tt.name]
		if !ok {
			break
		}
		tt = a
	}
	return tt
}

type tsToken struct {
	kind string // "ident", "string", "number", or the punctuation itself
	text string
	line int
}

func lexTS(src string) ([]tsToken, error) {
	var toks []tsToken
	line := 1
	for i := 0; i < len(src); {
		ch := src[i]
		switch {
		case ch == '\n':
			line++
			i++
		case ch == ' ' || ch == '\t' || ch == '\r':
			i++
		case strings.HasPrefix(src[i:], "//"):
			for i < len(src) && src[i] != '\n' {
				i++
			}
		case strings.HasPrefix(src[i:], "/*"):
			end := strings.Index(src[i+2:], "*/")
			if end < 0 {
				return nil, fmt.Errorf("line %d: unterminated comment", line)
			}
			line += strings.Count(src[i:i+2+end], "\n")
			i += end + 4
		case ch == '"':
			j := i + 1
			for j < len(src) && src[j] != '"' && src[j] != '\n' {
				if src[j] == '\\' {
					j++
				}
				j++
			}
			s, err := strconv.Unquote(src[i : j+1])
			if err != nil {
				return nil, fmt.Errorf("line %d: string %s: %w", line, src[i:min(j+1, len(src))], err)
			}
			toks = append(toks, tsToken{"string", s, line})
			i = j + 1
		case ch == '_' || ch == '$' || unicode.IsLetter(rune(ch)):
			j := i
			for j < len(src) && (src[j] == '_' || src[j] == '$' || unicode.IsLetter(rune(src[j])) || unicode.IsDigit(rune(src[j]))) {
				j++
			}
			toks = append(toks, tsToken{"ident", src[i:j], line})
			i = j
		case unicode.IsDigit(rune(ch)):
			j := i
			for j < len(src) && (unicode.IsDigit(rune(src[j])) || src[j] == '.') {
				j++
			}
			toks = append(toks, tsToken{"number", src[i:j], line})
			i = j
		case strings.ContainsRune("{}()<>[],;:?|=.*", rune(ch)):
			toks = append(toks, tsToken{string(ch), string(ch), line})
			i++
		default:
			return nil, fmt.Errorf("line %d: unexpected %q", line, ch)
		}
	}
	return toks, nil
}

type tsParser struct {
	toks []tsToken
	pos  int
}

type tsError struct{ err error }

func (p *tsParser) fail(format string, args ...any) {
	line := 0
	if p.pos < len(p.toks) {
		line = p.toks[p.pos].line
	} else if len(p.toks) > 0 {
		line = p.toks[len(p.toks)-1].line
	}
	panic(tsError{fmt.Errorf("line %d: %s", line, fmt.Sprintf(format, args...))})
}

func (p *tsParser) peek() tsToken {
	if p.pos >= len(p.toks) {
		return tsToken{kind: "EOF"}
	}
	return p.toks[p.pos]
}

func (p *tsParser) next() tsToken {
	t := p.peek()
	if t.kind == "EOF" {
		p.fail("unexpected end of file")
	}
	p.pos++
	return t
}

// expect takes the next token, which must be of kind (and text, if given).
func (p *tsParser) expect(kind string, text ...string) tsToken {
	t := p.peek()
	if t.kind != kind || (len(text) > 0 && t.text != text[0]) {
		want := kind
		if len(text) > 0 {
			want = text[0]
		}
		p.fail("want %s, found %q (this reader knows only the forms lsp_ext.ts uses: teach it the new one)", want, t.text)
	}
	return p.next()
}

func (p *tsParser) accept(kind string) bool {
	if p.peek().kind == kind {
		p.pos++
		return true
	}
	return false
}

func parseTS(src string) (f *tsFile, err error) {
	toks, err := lexTS(src)
	if err != nil {
		return nil, err
	}
	p := &tsParser{toks: toks}
	f = &tsFile{interfaces: map[string][]tsField{}, aliases: map[string]*tsType{}, commands: map[string]bool{}, methods: map[string]tsMethod{}}
	defer func() {
		if r := recover(); r != nil {
			e, ok := r.(tsError)
			if !ok {
				panic(r)
			}
			f, err = nil, e.err
		}
	}()
	declare := func(name string) {
		if slices.Contains(f.order, name) {
			p.fail("%s declared twice", name)
		}
		f.order = append(f.order, name)
	}
	for p.peek().kind != "EOF" {
		kw := p.expect("ident")
		if kw.text == "import" { // import * as lc from "...";
			p.expect("*")
			p.expect("ident", "as")
			p.expect("ident")
			p.expect("ident", "from")
			p.expect("string")
			p.expect(";")
			continue
		}
		if kw.text != "export" {
			p.fail("want export or import, found %q", kw.text)
		}
		switch what := p.expect("ident").text; what {
		case "interface":
			name := p.expect("ident").text
			declare(name)
			f.interfaces[name] = p.objectType()
		case "type":
			name := p.expect("ident").text
			declare(name)
			p.expect("=")
			f.aliases[name] = p.typ()
			p.expect(";")
		case "const":
			name := p.expect("ident").text
			p.expect("=")
			p.constValue(f, name)
			p.expect(";")
		default:
			p.fail("export %s: not a form this reader knows", what)
		}
	}
	return f, nil
}

// constValue reads `{...} as const` or `new lc.RequestType<...>("method")`.
func (p *tsParser) constValue(f *tsFile, name string) {
	if p.peek().kind == "{" {
		values := p.objectLiteral()
		p.expect("ident", "as")
		p.expect("ident", "const")
		if name == "Commands" {
			for _, v := range values {
				if f.commands[v] {
					p.fail("Commands names %q twice", v)
				}
				f.commands[v] = true
			}
		}
		return
	}
	p.expect("ident", "new")
	p.expect("ident", "lc")
	p.expect(".")
	var m tsMethod
	switch kind := p.expect("ident").text; kind {
	case "RequestType":
		p.expect("<")
		m.params = p.typ()
		p.expect(",")
		m.result = p.typ()
		p.expect(",")
		p.expect("ident", "void")
		p.expect(">")
	case "NotificationType":
		m.notification = true
		p.expect("<")
		m.params = p.typ()
		p.expect(">")
	default:
		p.fail("lc.%s: want RequestType or NotificationType", kind)
	}
	p.expect("(")
	method := p.expect("string").text
	p.accept(",")
	p.expect(")")
	if _, dup := f.methods[method]; dup {
		p.fail("%s typed twice", method)
	}
	f.methods[method] = m
}

// objectLiteral reads { key: value, ... } whose values are string,
// boolean or number literals or nested objects; it returns the strings.
func (p *tsParser) objectLiteral() []string {
	var strs []string
	p.expect("{")
	for !p.accept("}") {
		p.expect("ident")
		p.expect(":")
		switch t := p.peek(); {
		case t.kind == "{":
			strs = append(strs, p.objectLiteral()...)
		case t.kind == "string":
			strs = append(strs, p.next().text)
		case t.kind == "number" || (t.kind == "ident" && (t.text == "true" || t.text == "false")):
			p.next()
		default:
			p.fail("object literal value %q: not a literal", t.text)
		}
		if !p.accept(",") {
			p.expect("}")
			break
		}
	}
	return strs
}

// objectType reads { name?: type; ... }.
func (p *tsParser) objectType() []tsField {
	var fields []tsField
	p.expect("{")
	for !p.accept("}") {
		name := p.expect("ident").text
		if slices.ContainsFunc(fields, func(f tsField) bool { return f.name == name }) {
			p.fail("member %s twice", name)
		}
		opt := p.accept("?")
		p.expect(":")
		fields = append(fields, tsField{name, opt, p.typ()})
		if !p.accept(";") && !p.accept(",") && p.peek().kind != "}" {
			p.fail("want ; after member %s", name)
		}
	}
	return fields
}

// typ reads a union of array types.
func (p *tsParser) typ() *tsType {
	p.accept("|")
	members := []*tsType{p.arrayType()}
	for p.accept("|") {
		members = append(members, p.arrayType())
	}
	if len(members) == 1 {
		return members[0]
	}
	return &tsType{kind: tsUnion, args: members}
}

func (p *tsParser) arrayType() *tsType {
	tt := p.primaryType()
	for p.peek().kind == "[" {
		p.next()
		p.expect("]")
		tt = &tsType{kind: tsArray, args: []*tsType{tt}}
	}
	return tt
}

func (p *tsParser) primaryType() *tsType {
	switch t := p.peek(); t.kind {
	case "string":
		p.next()
		return &tsType{kind: tsLiteral, name: t.text}
	case "{":
		return &tsType{kind: tsObject, fields: p.objectType()}
	case "(":
		p.next()
		tt := p.typ()
		p.expect(")")
		return tt
	case "ident":
		p.next()
		tt := &tsType{kind: tsRef, name: t.text}
		if p.accept("<") {
			tt.args = append(tt.args, p.typ())
			for p.accept(",") {
				tt.args = append(tt.args, p.typ())
			}
			p.expect(">")
		}
		return tt
	}
	p.fail("type: unexpected %q", p.peek().text)
	return nil
}
