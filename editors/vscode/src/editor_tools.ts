// The tools this editor gives the agent (agentls/registerTools): the model
// sees them as editor__get_diagnostics, editor__get_selection and
// editor__open_editors, and each call arrives as agentls/invokeClientTool,
// answered from what VS Code knows and agentls cannot see on its own: the
// diagnostics of every language server and linter the editor runs, the
// selection, the open editors.
import * as path from "path";
import * as vscode from "vscode";
import type { EditorToolDef, InvokeClientToolParams, InvokeClientToolResult } from "./lsp_ext";

const readOnly = { readOnlyHint: true };

/** The tool definitions sent once the server is up. */
export function editorToolDefs(): EditorToolDef[] {
  return [
    {
      name: "get_diagnostics",
      description:
        "Diagnostics VS Code has from all its language servers and linters, as path:line:col: severity: message [source]. Default: every file that has some; paths limits it.",
      inputSchema: {
        type: "object",
        properties: { paths: { type: "array", items: { type: "string" }, description: "files (workspace-relative or absolute)" } },
      },
      annotations: readOnly,
    },
    {
      name: "get_selection",
      description: "The user's selection in the active editor: file, line range and selected text.",
      inputSchema: { type: "object", properties: {} },
      annotations: readOnly,
    },
    {
      name: "open_editors",
      description: "Files open in VS Code tabs, one per line, active first, [modified] when unsaved.",
      inputSchema: { type: "object", properties: {} },
      annotations: readOnly,
    },
  ];
}

const maxSelection = 10_000;
const severities = ["error", "warning", "info", "hint"];

/** The path shown to the model: workspace-relative when inside a folder. */
function shown(uri: vscode.Uri): string {
  if (uri.scheme !== "file") {
    return uri.toString();
  }
  const folder = vscode.workspace.getWorkspaceFolder(uri);
  return folder ? path.relative(folder.uri.fsPath, uri.fsPath) : uri.fsPath;
}

function toUri(p: string): vscode.Uri {
  if (path.isAbsolute(p)) {
    return vscode.Uri.file(p);
  }
  const folder = vscode.workspace.workspaceFolders?.[0];
  return folder ? vscode.Uri.joinPath(folder.uri, p) : vscode.Uri.file(path.resolve(p));
}

function getDiagnostics(args: Record<string, unknown>): string {
  const paths = Array.isArray(args.paths) ? args.paths.filter((p): p is string => typeof p === "string") : [];
  const entries: [vscode.Uri, readonly vscode.Diagnostic[]][] =
    paths.length > 0 ? paths.map((p) => { const u = toUri(p); return [u, vscode.languages.getDiagnostics(u)]; }) : vscode.languages.getDiagnostics();
  const lines: string[] = [];
  for (const [uri, diags] of entries.sort((a, b) => shown(a[0]).localeCompare(shown(b[0])))) {
    const sorted = [...diags].sort((a, b) => a.range.start.line - b.range.start.line || a.range.start.character - b.range.start.character);
    for (const d of sorted) {
      if (d.source === "agentls") {
        continue; // agentls's own preview diagnostics show proposals, not problems
      }
      let line = `${shown(uri)}:${d.range.start.line + 1}:${d.range.start.character + 1}: ${severities[d.severity] ?? "error"}: ${d.message.replace(/\n/g, " ")}`;
      if (d.source) {
        line += ` [${d.source}]`;
      }
      lines.push(line);
    }
  }
  return lines.length > 0 ? lines.join("\n") : "no diagnostics";
}

function getSelection(): string {
  const ed = vscode.window.activeTextEditor;
  if (!ed) {
    return "no active editor";
  }
  const s = ed.selection;
  const where = `${shown(ed.document.uri)}:${s.start.line + 1}:${s.start.character + 1}-${s.end.line + 1}:${s.end.character + 1}`;
  if (s.isEmpty) {
    return `${where} (cursor, nothing selected)`;
  }
  let text = ed.document.getText(s);
  if (text.length > maxSelection) {
    text = text.slice(0, maxSelection) + `\n[selection cut: ${text.length - maxSelection} more characters]`;
  }
  return `${where}\n${text}`;
}

function openEditors(): string {
  const active = vscode.window.activeTextEditor?.document.uri.toString();
  const seen = new Set<string>();
  const out: { uri: vscode.Uri; dirty: boolean }[] = [];
  for (const group of vscode.window.tabGroups.all) {
    for (const tab of group.tabs) {
      if (tab.input instanceof vscode.TabInputText && !seen.has(tab.input.uri.toString())) {
        seen.add(tab.input.uri.toString());
        out.push({ uri: tab.input.uri, dirty: tab.isDirty });
      }
    }
  }
  out.sort((a, b) => Number(b.uri.toString() === active) - Number(a.uri.toString() === active));
  if (out.length === 0) {
    return "no open files";
  }
  return out.map((e) => shown(e.uri) + (e.dirty ? " [modified]" : "")).join("\n");
}

/** Answers agentls/invokeClientTool. */
export function invokeEditorTool(p: InvokeClientToolParams): InvokeClientToolResult {
  const args = p.arguments && typeof p.arguments === "object" ? p.arguments : {};
  try {
    switch (p.name) {
      case "get_diagnostics":
        return { content: getDiagnostics(args) };
      case "get_selection":
        return { content: getSelection() };
      case "open_editors":
        return { content: openEditors() };
    }
    return { content: `VS Code has no tool "${p.name}"`, isError: true };
  } catch (err) {
    return { content: `VS Code failed: ${String(err)}`, isError: true };
  }
}
