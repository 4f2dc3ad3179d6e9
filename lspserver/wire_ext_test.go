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
	"strings"
	"testing"

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
	{"RememberArgs", reflect.TypeFor[lspserver.RememberArgs]()},
	{"RememberResult", reflect.TypeFor[lspserver.RememberResult]()},
	{"ModelsResult", reflect.TypeFor[lspserver.ModelsResult]()},
	{"ModelInfo", reflect.TypeFor[lspserver.ModelInfo]()},
	{"CompletionUsage", reflect.TypeFor[lspserver.CompletionUsage]()},
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
	{"PlansResult", reflect.TypeFor[lspserver.PlansResult]()},
	{"PlanInfo", reflect.TypeFor[lspserver.PlanInfo]()},
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
	handlerMethod(lspserver.MethodPlans, (*runs.Runs).ListPlans),
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
	"CommandRemember":        lspserver.CommandRemember,
	"MethodDocument":         lspserver.MethodDocument,
	"MethodProposals":        lspserver.MethodProposals,
	"MethodProposalsChanged": lspserver.MethodProposalsChanged,
	"MethodSessions":         lspserver.MethodSessions,
	"MethodPlans":            lspserver.MethodPlans,
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
