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
