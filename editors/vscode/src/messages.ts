// Message texts the extension shows or filters. No "vscode" import:
// unit-tested under plain node (src/test/messages.test.ts).

/** Whether a window/showMessage text is the server's end-of-run message. */
export function isRunEndMessage(message: string): boolean {
  return /^Agent run \S+ (finished|failed|cancelled)\b/.test(message);
}

/** The message of an error from a request: the server's own text. */
export function errorMessage(err: unknown): string {
  if (err instanceof Error && err.message) {
    return err.message;
  }
  if (err && typeof err === "object" && typeof (err as { message?: unknown }).message === "string") {
    return (err as { message: string }).message;
  }
  return String(err);
}

/**
 * What to do when the server binary is not found. The module is not
 * published, so `go install …@latest` cannot work: the README installs from
 * a clone, into $(go env GOPATH)/bin, which the editor's PATH often lacks.
 */
export function missingBinaryMessage(configured: string): string {
  return (
    `agentls: cannot find the server binary "${configured}" (setting agentls.path, looked up on PATH and in $(go env GOPATH)/bin). ` +
    "Install it from a clone of agentls with `go install ./cmd/agentls` (see its README), then set agentls.path to the binary's full path " +
    "or put $(go env GOPATH)/bin on the PATH the editor starts with. The server starts as soon as agentls.path changes, or with Retry."
  );
}
