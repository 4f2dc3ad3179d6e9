package lspserver_test

import (
	"encoding/json"
	"fmt"
	"go/ast"
	"go/parser"
	"go/token"
	"os"
	"path"
	"reflect"
	"slices"
	"strconv"
	"strings"
	"testing"
	"unicode"

	"go.lsp.dev/protocol"

	"github.com/agentls/agentls/lspserver"
	"github.com/agentls/agentls/lspserver/docs"
	"github.com/agentls/agentls/lspserver/review"
	"github.com/agentls/agentls/lspserver/runs"
)

// The VS Code extension copies the agentls wire types by hand into
// editors/vscode/src/lsp_ext.ts (it is TypeScript; the Go types cannot be
// imported). TestVSCodeWireTypes holds that copy to the Go types so that a
// field added, renamed or made optional on one side fails here, as
// rust-analyzer's test holds lsp_ext.ts to lsp_ext.rs. docs/development.md
// says how to change both sides.

const lspExtPath = "../editors/vscode/src/lsp_ext.ts"

// wireTypes pairs every interface of lsp_ext.ts with the Go type it
// mirrors. Where the names differ the TypeScript one is the extension's
// older name; a Go struct met inside a mirrored type must be in this
// list too (its TypeScript field then names its interface).
var wireTypes = []wireType{
	{"Position", reflect.TypeFor[protocol.Position]()},
	{"Range", reflect.TypeFor[protocol.Range]()},
	{"RunArgs", reflect.TypeFor[lspserver.RunArgs]()},
	{"RunResult", reflect.TypeFor[lspserver.RunResult]()},
	{"CancelArgs", reflect.TypeFor[lspserver.CancelArgs]()},
	{"CancelResult", reflect.TypeFor[lspserver.CancelResult]()},
	{"ApprovePlanArgs", reflect.TypeFor[lspserver.ApprovePlanArgs]()},
	{"ReviewArgs", reflect.TypeFor[lspserver.ReviewArgs]()},
	{"AcceptResult", reflect.TypeFor[lspserver.AcceptResult]()},
	{"Conflict", reflect.TypeFor[lspserver.HunkConflict]()},
	{"RejectResult", reflect.TypeFor[lspserver.RejectResult]()},
	{"RevertArgs", reflect.TypeFor[lspserver.RevertArgs]()},
	{"RevertResult", reflect.TypeFor[lspserver.RevertResult]()},
	{"RevertConflict", reflect.TypeFor[lspserver.RevertConflict]()},
	{"ReportArgs", reflect.TypeFor[lspserver.ReportArgs]()},
	{"ReportResult", reflect.TypeFor[lspserver.ReportResult]()},
	{"ModelsResult", reflect.TypeFor[lspserver.ModelsResult]()},
	{"ModelInfo", reflect.TypeFor[lspserver.ModelInfo]()},
	{"ProposalsParams", reflect.TypeFor[lspserver.ProposalsParams]()},
	{"ProposalsResult", reflect.TypeFor[lspserver.ProposalsResult]()},
	{"Proposal", reflect.TypeFor[lspserver.ProposalInfo]()},
	{"Hunk", reflect.TypeFor[lspserver.HunkInfo]()},
	{"Problem", reflect.TypeFor[lspserver.Problem]()},
	{"ProposalsChangedParams", reflect.TypeFor[lspserver.ProposalsChangedParams]()},
	{"DocumentParams", reflect.TypeFor[lspserver.DocumentParams]()},
	{"DocumentResult", reflect.TypeFor[lspserver.DocumentResult]()},
	{"SessionsResult", reflect.TypeFor[lspserver.SessionsResult]()},
	{"SessionInfo", reflect.TypeFor[lspserver.SessionInfo]()},
	{"RunEvent", reflect.TypeFor[lspserver.RunEvent]()},
	{"TokenUsage", reflect.TypeFor[lspserver.Usage]()},
	{"CheckState", reflect.TypeFor[lspserver.CheckState]()},
	{"Todo", reflect.TypeFor[lspserver.Todo]()},
	{"ElicitParams", reflect.TypeFor[lspserver.ElicitParams]()},
	{"ElicitResult", reflect.TypeFor[lspserver.ElicitAnswer]()},
	{"RegisterToolsParams", reflect.TypeFor[lspserver.RegisterToolsParams]()},
	{"EditorToolDef", reflect.TypeFor[lspserver.EditorToolDef]()},
	{"InvokeClientToolParams", reflect.TypeFor[lspserver.InvokeClientToolParams]()},
	{"InvokeClientToolResult", reflect.TypeFor[lspserver.InvokeClientToolResult]()},
}

// notMirrored are the types api.go exports that lsp_ext.ts leaves out,
// and why. A type added to api.go must be mirrored or listed here.
var notMirrored = map[reflect.Type]string{
	reflect.TypeFor[lspserver.Client]():         "the server's side of the connection, not a message",
	reflect.TypeFor[lspserver.Session]():        "what initialize negotiated, held by the server",
	reflect.TypeFor[lspserver.ClientFeatures](): "read from the client's capabilities, not an agentls message",
	reflect.TypeFor[lspserver.RunOptions]():     "the server's configuration from cmd, not on the wire",
	reflect.TypeFor[lspserver.SessionArgs]():    "agentls.deleteSession: the extension does not delete sessions",
}

// tsOnly are the interfaces and type aliases of lsp_ext.ts that
// mirror no Go type: string unions the Go side keeps as a plain string.
var tsOnly = map[string]string{
	"Mode":         "RunArgs.mode's values (Go: a string)",
	"RunEventKind": "RunEvent.kind's values (Go: a string)",
}

// wireMethods are the agentls/* methods with their Go params and result
// types. The client → server ones are read off their handlers' signatures,
// so they cannot drift from the server; the server → client ones are sent
// untyped (core.Client.Notify, Request), so their types are stated here.
var wireMethods = []wireMethod{
	handlerMethod(lspserver.MethodDocument, (*docs.Docs).Document),
	handlerMethod(lspserver.MethodProposals, (*review.Review).Proposals),
	handlerMethod(lspserver.MethodSessions, (*runs.Runs).ListSessions),
	handlerMethod(lspserver.MethodModels, (*runs.Runs).Models),
	handlerMethod(lspserver.MethodRegisterTools, (*runs.Runs).RegisterTools),
	{lspserver.MethodRunEvent, true, reflect.TypeFor[lspserver.RunEvent](), nil},
	{lspserver.MethodProposalsChanged, true, reflect.TypeFor[lspserver.ProposalsChangedParams](), nil},
	{lspserver.MethodElicit, false, reflect.TypeFor[lspserver.ElicitParams](), reflect.TypeFor[lspserver.ElicitAnswer]()},
	{lspserver.MethodInvokeClientTool, false, reflect.TypeFor[lspserver.InvokeClientToolParams](), reflect.TypeFor[lspserver.InvokeClientToolResult]()},
}

// wireNames are api.go's Command* and Method* constants (their values
// cannot be read off api.go's syntax); the test checks this list against
// api.go.
var wireNames = map[string]string{
	"CommandRun":             lspserver.CommandRun,
	"CommandCancel":          lspserver.CommandCancel,
	"CommandAccept":          lspserver.CommandAccept,
	"CommandReject":          lspserver.CommandReject,
	"CommandApprovePlan":     lspserver.CommandApprovePlan,
	"CommandDeleteSession":   lspserver.CommandDeleteSession,
	"CommandClearSessions":   lspserver.CommandClearSessions,
	"CommandRevert":          lspserver.CommandRevert,
	"CommandOpenReport":      lspserver.CommandOpenReport,
	"MethodDocument":         lspserver.MethodDocument,
	"MethodProposals":        lspserver.MethodProposals,
	"MethodProposalsChanged": lspserver.MethodProposalsChanged,
	"MethodSessions":         lspserver.MethodSessions,
	"MethodModels":           lspserver.MethodModels,
	"MethodRunEvent":         lspserver.MethodRunEvent,
	"MethodElicit":           lspserver.MethodElicit,
	"MethodRegisterTools":    lspserver.MethodRegisterTools,
	"MethodInvokeClientTool": lspserver.MethodInvokeClientTool,
}

// namesNotMirrored are the commands lsp_ext.ts's Commands leaves out.
var namesNotMirrored = map[string]string{
	lspserver.CommandDeleteSession: "the extension does not delete sessions",
	lspserver.CommandClearSessions: "the extension does not delete sessions",
}

// handlerMethod reads a request's params and result types off its
// handler, func(*Part, context.Context, *P) (R, error).
func handlerMethod(method string, handler any) wireMethod {
	ft := reflect.TypeOf(handler)
	if ft.NumIn() != 3 || ft.In(2).Kind() != reflect.Pointer || ft.NumOut() != 2 {
		panic(fmt.Sprintf("%s: handler %v is not func(*Part, context.Context, *P) (R, error)", method, ft))
	}
	return wireMethod{method, false, ft.In(2).Elem(), ft.Out(0)}
}

func TestVSCodeWireTypes(t *testing.T) {
	src, err := os.ReadFile(lspExtPath)
	if err != nil {
		t.Fatal(err)
	}
	ts, err := parseTS(string(src))
	if err != nil {
		t.Fatalf("%s: %v", lspExtPath, err)
	}
	c := &wireChecker{t: t, ts: ts, names: map[reflect.Type]string{}}
	for _, w := range wireTypes {
		if prev, dup := c.names[w.goType]; dup {
			t.Fatalf("wireTypes: %v is mirrored twice (%s, %s)", w.goType, prev, w.ts)
		}
		c.names[w.goType] = w.ts
	}

	t.Run("types", func(t *testing.T) {
		c.t = t
		for _, w := range wireTypes {
			fields, ok := ts.interfaces[w.ts]
			if !ok {
				t.Errorf("lsp_ext.ts has no interface %s (mirror of Go %v)", w.ts, w.goType)
				continue
			}
			c.structFields(w.ts, w.goType, fields)
		}
		for _, name := range ts.order {
			if _, ok := tsOnly[name]; ok {
				continue
			}
			if !slices.ContainsFunc(wireTypes, func(w wireType) bool {
				return w.ts == name
			}) {
				t.Errorf("lsp_ext.ts: %s mirrors no Go type: add it to wireTypes (or tsOnly, with why)", name)
			}
		}
	})

	t.Run("api.go", func(t *testing.T) {
		aliases, consts := apiGoNames(t)
		for _, a := range aliases {
			found := false
			for typ := range c.names {
				found = found || (path.Base(typ.PkgPath()) == a.pkg && typ.Name() == a.name)
			}
			for typ := range notMirrored {
				found = found || (path.Base(typ.PkgPath()) == a.pkg && typ.Name() == a.name)
			}
			if !found {
				t.Errorf("api.go exports %s (%s.%s): mirror it in lsp_ext.ts and add it to wireTypes, or list it in notMirrored with why", a.alias, a.pkg, a.name)
			}
		}
		for _, n := range consts {
			if _, ok := wireNames[n]; !ok {
				t.Errorf("api.go has %s: add it to wireNames", n)
			}
		}
		for n := range wireNames {
			if !slices.Contains(consts, n) {
				t.Errorf("wireNames has %s, api.go does not", n)
			}
		}
	})

	t.Run("names", func(t *testing.T) {
		for _, name := range wireNames {
			_, cmd := ts.commands[name]
			_, meth := ts.methods[name]
			_, skip := namesNotMirrored[name]
			if !cmd && !meth && !skip {
				t.Errorf("lsp_ext.ts does not name %q: add it (Commands or a RequestType/NotificationType), or list it in namesNotMirrored", name)
			}
		}
		known := map[string]bool{}
		for _, v := range wireNames {
			known[v] = true
		}
		for name := range ts.commands {
			if !known[name] {
				t.Errorf("lsp_ext.ts Commands has %q; the server has no such command", name)
			}
		}
		for name := range ts.methods {
			if !known[name] {
				t.Errorf("lsp_ext.ts names method %q; the server has no such method", name)
			}
		}
	})

	t.Run("methods", func(t *testing.T) {
		c.t = t
		for _, m := range wireMethods {
			tm, ok := ts.methods[m.method]
			if !ok {
				t.Errorf("lsp_ext.ts has no RequestType/NotificationType for %s", m.method)
				continue
			}
			if tm.notification != m.notification {
				t.Errorf("%s: lsp_ext.ts notification=%v, the server's notification=%v", m.method, tm.notification, m.notification)
				continue
			}
			c.match(m.method+" params", m.params, tm.params)
			if !m.notification {
				c.match(m.method+" result", m.result, tm.result)
			}
		}
		for name := range ts.methods {
			if !slices.ContainsFunc(wireMethods, func(m wireMethod) bool {
				return m.method == name
			}) {
				t.Errorf("lsp_ext.ts types %s, which wireMethods does not list", name)
			}
		}
	})
}

// wireType pairs a TypeScript interface with its Go type.
type wireType struct {
	ts     string
	goType reflect.Type
}

// wireMethod is an agentls/* method's Go types (result nil: a notification).
type wireMethod struct {
	method         string
	notification   bool
	params, result reflect.Type
}

// apiAlias is one `Alias = pkg.Name` of api.go.
type apiAlias struct{ alias, pkg, name string }

// apiGoNames reads api.go's exported type aliases and its Command* and
// Method* constant names.
func apiGoNames(t *testing.T) ([]apiAlias, []string) {
	t.Helper()
	f, err := parser.ParseFile(token.NewFileSet(), "api.go", nil, 0)
	if err != nil {
		t.Fatal(err)
	}
	var aliases []apiAlias
	var consts []string
	for _, d := range f.Decls {
		g, ok := d.(*ast.GenDecl)
		if !ok {
			continue
		}
		for _, s := range g.Specs {
			switch s := s.(type) {
			case *ast.TypeSpec:
				sel, ok := s.Type.(*ast.SelectorExpr)
				if !s.Assign.IsValid() || !ok {
					t.Fatalf("api.go: type %s is not an alias of another package's type", s.Name.Name)
				}
				aliases = append(aliases, apiAlias{s.Name.Name, sel.X.(*ast.Ident).Name, sel.Sel.Name})
			case *ast.ValueSpec:
				for _, n := range s.Names {
					if g.Tok == token.CONST && (strings.HasPrefix(n.Name, "Command") || strings.HasPrefix(n.Name, "Method")) {
						consts = append(consts, n.Name)
					}
				}
			}
		}
	}
	return aliases, consts
}

// wireChecker compares Go types with lsp_ext.ts's.
type wireChecker struct {
	t     *testing.T
	ts    *tsFile
	names map[reflect.Type]string // Go struct → its TypeScript interface
}

var rawMessage = reflect.TypeFor[json.RawMessage]()

// goField is one JSON member of a Go struct.
type goField struct {
	name     string
	optional bool // omitempty or omitzero: may be absent
	typ      reflect.Type
}

// goFields lists st's JSON members as encoding/json sees them, embedded
// structs flattened.
func goFields(st reflect.Type) []goField {
	var out []goField
	for i := range st.NumField() {
		f := st.Field(i)
		tag := f.Tag.Get("json")
		if tag == "-" {
			continue
		}
		name, opts, _ := strings.Cut(tag, ",")
		if f.Anonymous && name == "" && f.Type.Kind() == reflect.Struct {
			out = append(out, goFields(f.Type)...)
			continue
		}
		if !f.IsExported() {
			continue
		}
		if name == "" {
			name = f.Name
		}
		optional := false
		for o := range strings.SplitSeq(opts, ",") {
			optional = optional || o == "omitempty" || o == "omitzero"
		}
		out = append(out, goField{name, optional, f.Type})
	}
	return out
}

// structFields compares Go struct st with the TypeScript members fields.
func (c *wireChecker) structFields(where string, st reflect.Type, fields []tsField) {
	gf := goFields(st)
	byName := map[string]tsField{}
	for _, f := range fields {
		byName[f.name] = f
	}
	for _, g := range gf {
		f, ok := byName[g.name]
		if !ok {
			c.t.Errorf("%s: Go %v has %q, lsp_ext.ts does not", where, st, g.name)
			continue
		}
		delete(byName, g.name)
		at := where + "." + g.name
		if f.optional != g.optional {
			c.t.Errorf("%s: optional in lsp_ext.ts is %v, but Go's tag says omitempty/omitzero is %v (docs/protocol.md decides which is right)", at, f.optional, g.optional)
		}
		c.field(at, g, f.typ)
	}
	for name := range byName {
		c.t.Errorf("%s: lsp_ext.ts has %q, Go %v does not", where, name, st)
	}
}

// field compares one member; a Go pointer that is always sent is null
// when unset, which TypeScript must say.
func (c *wireChecker) field(at string, g goField, tt *tsType) {
	nullable := g.typ.Kind() == reflect.Pointer && !g.optional
	tsNull := false
	if tt.kind == tsUnion {
		var rest []*tsType
		for _, m := range tt.args {
			if m.kind == tsRef && m.name == "null" {
				tsNull = true
			} else {
				rest = append(rest, m)
			}
		}
		if tsNull && len(rest) == 1 {
			tt = rest[0]
		} else if tsNull {
			tt = &tsType{kind: tsUnion, args: rest}
		}
	}
	if nullable != tsNull {
		c.t.Errorf("%s: `| null` in lsp_ext.ts is %v, but Go (%v, always sent) can be null: %v", at, tsNull, g.typ, nullable)
	}
	c.match(at, g.typ, tt)
}

// match compares Go type gt with TypeScript type tt.
func (c *wireChecker) match(at string, gt reflect.Type, tt *tsType) {
	for gt.Kind() == reflect.Pointer {
		gt = gt.Elem()
	}
	tt = c.ts.resolve(tt)
	fail := func() { c.t.Errorf("%s: Go %v does not match lsp_ext.ts %s", at, gt, tt) }
	isRef := func(names ...string) bool { return slices.ContainsFunc(names, func(n string) bool { return tt.is(n) }) }
	isRecord := func() bool {
		return tt.kind == tsRef && tt.name == "Record" && len(tt.args) == 2 && c.ts.resolve(tt.args[0]).name == "string"
	}
	switch {
	case gt == rawMessage || gt.Kind() == reflect.Interface:
		if !isRef("unknown", "object") && !(isRecord() && tt.args[1].is("unknown")) {
			fail()
		}
		return
	}
	switch gt.Kind() {
	case reflect.String:
		if !isRef("string") && !tt.stringLiterals() {
			fail()
		}
	case reflect.Bool:
		if !isRef("boolean") {
			fail()
		}
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64,
		reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64,
		reflect.Float32, reflect.Float64:
		if !isRef("number") {
			fail()
		}
	case reflect.Slice:
		if tt.kind != tsArray {
			fail()
			return
		}
		c.match(at+"[]", gt.Elem(), tt.args[0])
	case reflect.Map:
		if gt.Key().Kind() != reflect.String || !isRecord() {
			fail()
			return
		}
		c.match(at+"{}", gt.Elem(), tt.args[1])
	case reflect.Struct:
		if name, ok := c.names[gt]; ok {
			if !isRef(name) {
				c.t.Errorf("%s: Go %v is lsp_ext.ts's %s, not %s", at, gt, name, tt)
			}
			return
		}
		if gt.Name() != "" {
			c.t.Errorf("%s: Go %v reaches the wire but wireTypes does not pair it with an interface of lsp_ext.ts", at, gt)
			return
		}
		if gt.NumField() == 0 {
			if !isRecord() || !tt.args[1].is("never") {
				fail()
			}
			return
		}
		if tt.kind != tsObject {
			fail()
			return
		}
		c.structFields(at, gt, tt.fields)
	default:
		fail()
	}
}

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
