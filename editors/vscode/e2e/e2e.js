// Drives the agentls extension in a real VS Code (code-server) through
// headless Chromium, the way a user would: opens a file, runs the agent from
// the command palette, looks at the inline preview, accepts a hunk, runs
// again and rejects everything. It records what it saw in E2E_OUT (JSON);
// editors/vscode/e2e_test.go starts code-server, the scripted model and
// this script, and asserts on the JSON.
//
// Environment: E2E_URL (code-server), E2E_FOLDER (the workspace),
// E2E_OUT (result file), E2E_SHOTS (screenshot directory), CHROMIUM,
// E2E_SCENARIO ("demo": only the README's no-model demo, see demo()).
const fs = require("fs");
const path = require("path");
const { chromium } = require("playwright-core");

const out = { steps: [] };
let page;

// Shared helpers (e2e/lib.js).
const { LIMIT, retry, waitForCommands, afterTexts, toasts, tabLabels, editorText, hasAfter, palette, runAgent, shot } = require("./lib")(() => page);
const agentHoverVisible = () =>
  page.$$eval(".monaco-hover", (hs) => hs.some((h) => h.offsetParent !== null && h.innerText.includes("agentls proposal")));
const noAfter = () =>
  page.waitForFunction(
    () => ![...document.querySelectorAll(".view-lines span")].some((s) => /[⟶⤒⤓]/.test(getComputedStyle(s, "::after").content)),
    null,
    { timeout: LIMIT },
  );

async function planAgent(prompt) {
  await palette("agentls: Plan with Agent");
  await page.waitForSelector('.quick-input-widget input[placeholder^="e.g."]', { state: "visible", timeout: LIMIT });
  await page.keyboard.type(prompt);
  await page.keyboard.press("Enter");
}

// The README's editor demo without a model, as written: open examples/hello
// (its .vscode/settings.json sets agentls.model.replay), open greet.py, Run
// Agent… with the recorded task, see the fix inline, click Accept above it.
async function demo() {
  await page.click('.explorer-folders-view .monaco-list-row:has-text("greet.py")');
  await page.waitForSelector('.view-lines:has-text("nme")', { timeout: LIMIT });
  out.steps.push("opened");
  await waitForCommands();
  await runAgent("Fix the bug in greet.py");
  await hasAfter("name");
  // The server's Accept | Reject code lenses, which the README points at.
  await page.waitForFunction(() => [...document.querySelectorAll(".codelens-decoration")].some((l) => l.innerText.includes("Accept")), null, {
    timeout: LIMIT,
  });
  out.pendingLenses = await page.$$eval(".codelens-decoration", (ls) => ls.map((l) => l.innerText));
  out.pendingAfter = await afterTexts();
  out.pendingText = await editorText();
  out.pendingShot = await shot("demo-preview");
  // The README's picture (docs/images/vscode-preview.png): the explorer and
  // the editor's first lines, where the proposal shows.
  await page.screenshot({ path: path.join(process.env.E2E_SHOTS, "readme-vscode.png"), clip: { x: 0, y: 0, width: 1110, height: 250 } });
  out.steps.push("previewed");
  // As the README says: click Accept above the change.
  await page.locator(".codelens-decoration a", { hasText: "Accept" }).first().click();
  await noAfter();
  await page.waitForFunction(() => !document.querySelector(".view-lines").innerText.includes("nme"), null, { timeout: LIMIT });
  out.acceptedText = await editorText();
  out.acceptedShot = await shot("demo-accepted");
  out.steps.push("accepted");
}

// Run history (issues 23 and 25): pick the model, run over two files,
// accept all, revert the run from the notification, undo brings the
// accepted text back in both files, a follow-up keeps the model, the
// status bar shows tokens and cost, and the run's report opens from the
// run history in a webview.
async function history() {
  await page.click('.explorer-folders-view .monaco-list-row:has-text("greet.go")');
  await page.waitForSelector('.view-lines:has-text("hello")', { timeout: LIMIT });
  await waitForCommands();
  out.steps.push("opened");

  // The model picker lists the server's models; the pick shows in the status bar.
  await palette("agentls: Choose Model for Next Runs");
  await page.waitForFunction(() => document.querySelectorAll(".quick-input-list .monaco-list-row").length >= 3, null, { timeout: LIMIT });
  out.modelTitle = await page.$eval(".quick-input-widget .quick-input-title", (e) => e.innerText).catch(() => "");
  out.modelItems = await page.$$eval(".quick-input-list .monaco-list-row", (rows) => rows.map((r) => r.getAttribute("aria-label")));
  await page.keyboard.type("picked-model");
  await page.waitForSelector('.quick-input-list .monaco-list-row[aria-label^="picked-model"]', { timeout: LIMIT });
  await page.keyboard.press("Enter");
  await page.waitForFunction(() => [...document.querySelectorAll(".statusbar-item")].some((i) => i.innerText.includes("picked-model")), null, { timeout: LIMIT });
  out.steps.push("model");

  // A run over two files; its end notification offers the review and the report.
  await runAgent("shout in both files");
  await toastWith("changes proposed in", LIMIT);
  out.endToasts = await toasts();
  await page.waitForFunction(() => [...document.querySelectorAll(".statusbar-item")].some((i) => i.innerText.includes("tok")), null, { timeout: LIMIT });
  out.statusBar = await statusTexts();
  out.runShot = await shot("history-run");
  out.steps.push("ran");

  // Accept All from the notification: both files change; the next
  // notification offers the revert.
  await clickToastButton("changes proposed in", "Accept All");
  await visibleEditorHas("HELLO");
  await toastWith("accepted the changes of run", LIMIT);
  out.acceptToasts = await toasts();
  out.acceptedText = await visibleEditorText();
  out.steps.push("accepted");

  await clickToastButton("accepted the changes of run", "Revert Run");
  await visibleEditorHas("hello");
  await toastWith("reverted run", LIMIT);
  out.revertToasts = await toasts();
  out.revertedText = await visibleEditorText();
  out.revertShot = await shot("history-reverted");
  out.steps.push("reverted");

  // Undo in the editor brings the accepted text back, in both files.
  await visibleLine("package main").click();
  await page.keyboard.press("Control+Z");
  await page.waitForTimeout(1000);
  out.undoPressedShot = await shot("history-undo-pressed");
  // VS Code either asks whether to undo in every file the revert changed
  // (a dialog) or undoes at once: wait for whichever it does (on a loaded
  // machine the dialog can take seconds to show).
  await page.waitForFunction(
    () =>
      [...document.querySelectorAll(".monaco-dialog-box .monaco-button")].some((b) => /Undo in \d+ Files/.test(b.innerText)) ||
      [...document.querySelectorAll(".editor-instance .view-lines")].some((v) => v.offsetParent !== null && v.innerText.replace(/\u00a0/g, " ").includes("HELLO")),
    null,
    { timeout: LIMIT },
  );
  const dialogButton = page.locator(".monaco-dialog-box .monaco-button", { hasText: /Undo in \d+ Files/ });
  out.undoDialog = "";
  if ((await dialogButton.count()) > 0) {
    out.undoDialog = await page.$eval(".monaco-dialog-box", (d) => d.innerText);
    await dialogButton.first().click();
  }
  await visibleEditorHas("HELLO");
  out.undoneText = await visibleEditorText();
  await page.click('.explorer-folders-view .monaco-list-row:has-text("other.go")');
  await page.waitForFunction(
    () =>
      [...document.querySelectorAll(".editor-instance .view-lines")].some((v) => {
        const text = v.innerText.replace(/\u00a0/g, " ");
        return v.offsetParent !== null && text.includes("func bye") && !text.includes("func greet");
      }),
    null,
    { timeout: LIMIT },
  );
  // VS Code undoes the revert's one workspace edit in every file it
  // changed; were it per file, other.go would need its own undo.
  out.otherBeforeOwnUndo = await visibleEditorText();
  if (!out.otherBeforeOwnUndo.includes("BYE")) {
    await visibleLine("package main").click();
    await page.keyboard.press("Control+Z");
  }
  await visibleEditorHas("BYE");
  out.otherUndoneText = await visibleEditorText();
  out.undoShot = await shot("history-undone");
  out.steps.push("undone");

  // A follow-up in the run's session: it keeps the picked model.
  await palette("agentls: Follow Up on Agent Session");
  await page.waitForSelector('.quick-input-widget input[placeholder^="e.g."]', { state: "visible", timeout: LIMIT });
  await page.keyboard.type("what happened to my files?");
  await page.keyboard.press("Enter");
  await toastWith("You reverted my changes", LIMIT);
  await page.waitForFunction(() => [...document.querySelectorAll(".statusbar-item")].some((i) => i.innerText.includes("session")), null, { timeout: LIMIT });
  out.followupStatusBar = await statusTexts();
  out.steps.push("followed-up");

  // The run history lists both runs and the session; the first run's
  // report opens in a webview.
  await palette("agentls: Agent Runs");
  await page.waitForFunction(() => [...document.querySelectorAll(".quick-input-list .monaco-list-row")].some((r) => (r.getAttribute("aria-label") || "").includes("shout in both files")), null, {
    timeout: LIMIT,
  });
  out.runItems = await page.$$eval(".quick-input-list .monaco-list-row", (rows) => rows.map((r) => r.innerText.replace(/\s+/g, " ").trim()));
  out.runsShot = await shot("history-runs");
  await page.locator(".quick-input-list .monaco-list-row", { hasText: "shout in both files" }).first().click();
  await page.waitForSelector('.quick-input-list .monaco-list-row[aria-label^="Open Report"]', { timeout: LIMIT });
  out.runActions = await page.$$eval(".quick-input-list .monaco-list-row", (rows) => rows.map((r) => r.getAttribute("aria-label")));
  await page.locator('.quick-input-list .monaco-list-row[aria-label^="Open Report"]').click();
  await page.waitForFunction(() => [...document.querySelectorAll(".tabs-container .tab")].some((t) => t.innerText.includes("Agent report")), null, { timeout: LIMIT });
  const report = page.frameLocator("iframe.webview.ready").frameLocator("#active-frame");
  await report.locator("body", { hasText: "shout in both files" }).waitFor({ timeout: LIMIT });
  out.reportText = await report.locator("body").innerText();
  out.reportTabs = await tabLabels();
  out.reportShot = await shot("history-report");
  out.steps.push("report");
}

// Waits until the editor on screen holds `needle` (case-sensitive, unlike
// Playwright's :has-text).
const visibleEditorHas = (needle) =>
  page.waitForFunction(
    (n) => [...document.querySelectorAll(".editor-instance .view-lines")].some((v) => v.offsetParent !== null && v.innerText.replace(/\u00a0/g, " ").includes(n)),
    needle,
    { timeout: LIMIT },
  );

// The text of the editor on screen.
const visibleEditorText = () =>
  page.evaluate(() => {
    const v = [...document.querySelectorAll(".editor-instance .view-lines")].find((x) => x.offsetParent !== null);
    return v ? v.innerText.replace(/\u00a0/g, " ") : "";
  });

// A line of the editor on screen.
const visibleLine = (text) => page.locator(".editor-instance .view-line:visible", { hasText: text }).first();

const toastWith = (needle, timeout) =>
  page.waitForFunction(
    (n) => [...document.querySelectorAll(".notifications-toasts .notification-toast")].some((t) => t.innerText.includes(n)),
    needle,
    { timeout },
  );

async function clickToastButton(needle, button) {
  await page.locator(".notifications-toasts .notification-toast", { hasText: needle }).first().locator(".monaco-button", { hasText: button }).first().click();
}

const statusTexts = () => page.$$eval(".statusbar-item", (items) => items.map((i) => i.innerText).filter((s) => s.trim() !== ""));

async function main() {
  const browser = await chromium.launch({
    executablePath: process.env.CHROMIUM || "/usr/bin/chromium",
    args: ["--no-sandbox", "--disable-gpu", "--disable-background-networking", "--disable-component-update", "--disable-sync", "--no-first-run"],
  });
  try {
    page = await browser.newPage({ viewport: { width: 1400, height: 900 } });
    page.setDefaultTimeout(LIMIT); // clicks and hovers wait as long as any other wait
    await page.goto(`${process.env.E2E_URL}/?folder=${encodeURIComponent(process.env.E2E_FOLDER)}`);
    await page.waitForSelector(".explorer-folders-view .monaco-list-row", { timeout: LIMIT });
    if (process.env.E2E_SCENARIO === "demo") {
      await demo();
      return;
    }
    if (process.env.E2E_SCENARIO === "history") {
      await history();
      return;
    }
    await page.click('.explorer-folders-view .monaco-list-row:has-text("greet.go")');
    await page.waitForSelector('.view-lines:has-text("hello")', { timeout: LIMIT });
    out.steps.push("opened");

    // The palette lists the extension's commands once it is active.
    await waitForCommands();
    await page.keyboard.press("F1");
    await page.waitForSelector(".quick-input-widget input", { state: "visible", timeout: LIMIT });
    await page.keyboard.type("agentls: ");
    await page.waitForFunction(() => document.querySelectorAll(".quick-input-list .monaco-list-row").length >= 10, null, { timeout: LIMIT });
    // The list renders only the rows in view: walk the focus down through
    // it one row at a time, each time waiting for the focus to move (a
    // loaded machine renders key presses late), until it wraps around to
    // the first row.
    const focusedLabel = (prev) =>
      page
        .waitForFunction(
          (p) => {
            const r = document.querySelector(".quick-input-list .monaco-list-row.focused");
            const label = r && r.getAttribute("aria-label");
            return label && label !== p ? label : null;
          },
          prev,
          { timeout: LIMIT },
        )
        .then((handle) => handle.jsonValue());
    const seen = [];
    for (let label = await focusedLabel(null); !seen.includes(label) && seen.length < 100; ) {
      seen.push(label);
      await page.keyboard.press("ArrowDown"); // the list scrolls to the focused row
      label = await focusedLabel(label);
    }
    out.palette = seen;
    await page.keyboard.press("Escape");
    out.steps.push("palette");

    // Run 1 (preview mode): the proposal shows inline, the text is unchanged.
    await runAgent("make greet loud");
    await hasAfter("HELLO");
    out.pendingAfter = await afterTexts();
    out.pendingText = await editorText();
    await page.waitForFunction(() => [...document.querySelectorAll(".codelens-decoration")].some((l) => l.innerText.includes("Accept")), null, {
      timeout: LIMIT,
    });
    out.pendingLenses = await page.$$eval(".codelens-decoration", (ls) => ls.map((l) => l.innerText));
    out.pendingShot = await shot("pending");
    out.steps.push("previewed");

    // The end-of-run notification names the file and offers the review.
    await page.waitForFunction(
      () => [...document.querySelectorAll(".notifications-toasts .notification-toast")].some((t) => t.innerText.includes("changes proposed in")),
      null,
      { timeout: LIMIT },
    );
    out.endToasts = await toasts();
    out.statusBar = await page.$$eval(".statusbar-item", (items) => items.map((i) => i.innerText).filter((s) => s.includes("gent")));
    out.steps.push("notified");

    // Accept from the hover's link: the text changes, the preview and the
    // hover go.
    // The mouse on the old text of the hunk (moved off and back until the
    // hover shows: the first move can land before the editor listens).
    const word = page.locator('.view-line span:has-text("hello")').first();
    await retry(async () => {
      await page.mouse.move(5, 5);
      await word.hover();
      await page.waitForFunction(
        () => [...document.querySelectorAll(".monaco-hover")].some((h) => h.offsetParent !== null && h.innerText.includes("agentls proposal")),
        null,
        { timeout: 5000 },
      );
    });
    out.hoverShot = await shot("hover");
    out.hoverText = await page.$$eval(".monaco-hover", (hs) => hs.filter((h) => h.offsetParent !== null).map((h) => h.innerText).join("\n"));
    await page.locator(".monaco-hover a", { hasText: "Accept" }).first().click();
    await page.waitForSelector('.view-lines:has-text("HELLO")', { timeout: LIMIT });
    await noAfter();
    await page.waitForFunction(
      () => ![...document.querySelectorAll(".monaco-hover")].some((h) => h.offsetParent !== null && h.innerText.includes("agentls proposal")),
      null,
      { timeout: LIMIT },
    );
    out.hoverAfterAccept = await agentHoverVisible();
    // The server's Accept | Reject code lenses go with the hunk.
    await page.waitForFunction(() => ![...document.querySelectorAll(".codelens-decoration")].some((l) => l.innerText.includes("Accept")), null, {
      timeout: LIMIT,
    });
    out.lensesAfterAccept = await page.$$eval(".codelens-decoration", (ls) => ls.map((l) => l.innerText));
    out.acceptedText = await editorText();
    out.acceptedAfter = await afterTexts();
    out.steps.push("accepted");

    // Run 2 proposes a multi-line change: every new line shows inline.
    await runAgent("make bye polite");
    await hasAfter("politely");
    await hasAfter("goodbye");
    out.multiAfter = await afterTexts();
    out.multiShot = await shot("multiline");
    out.steps.push("multiline");

    // The diff view opens in its own tab, beside greet.go's, and accepts
    // from its title bar; then it closes and greet.go stays.
    await palette("agentls: Show Proposed Changes as Diff");
    await page.waitForFunction(() => [...document.querySelectorAll(".tabs-container .tab")].some((t) => t.innerText.includes("agent proposal")), null, {
      timeout: LIMIT,
    });
    const acceptFile = '.editor-actions .action-label[aria-label^="Accept All Changes in File"]';
    await page.waitForSelector(acceptFile, { state: "visible", timeout: LIMIT });
    await page.waitForSelector('.monaco-diff-editor .view-lines:has-text("politely")', { timeout: LIMIT });
    out.diffTabs = await tabLabels();
    out.diffShot = await shot("diff");
    await page.click(acceptFile);
    await page.waitForFunction(() => ![...document.querySelectorAll(".tabs-container .tab")].some((t) => t.innerText.includes("agent proposal")), null, {
      timeout: LIMIT,
    });
    await page.waitForSelector('.view-lines:has-text("politely")', { timeout: LIMIT });
    out.afterDiffTabs = await tabLabels();
    out.afterDiffText = await editorText();
    out.afterDiffShot = await shot("after-diff");
    out.steps.push("diff");

    // Run 3, then reject everything: the text stays, the preview goes.
    await runAgent("make goodbye loud");
    await hasAfter("GOODBYE");
    out.secondAfter = await afterTexts();
    await palette("agentls: Reject All Proposed Changes");
    await noAfter();
    out.rejectedText = await editorText();
    out.rejectedShot = await shot("rejected");
    out.steps.push("rejected");

    // Plan mode: the run only plans; its end notification offers Show
    // Plan and Approve Plan; after Show Plan, the palette's Approve Plan
    // carries it out as a proposal.
    await planAgent("plan to whisper hello");
    await page.waitForFunction(
      () => [...document.querySelectorAll(".notifications-toasts .notification-toast")].some((t) => t.innerText.includes("plan ready")),
      null,
      { timeout: LIMIT },
    );
    out.planToasts = await toasts();
    out.planText = await editorText();
    out.planShot = await shot("plan");
    // Show Plan takes the notification away: the plan's document has an
    // Approve Plan lens, and the palette approves it.
    await page.locator(".notifications-toasts .notification-toast .monaco-button", { hasText: "Show Plan" }).first().click();
    await page.waitForFunction(() => [...document.querySelectorAll(".codelens-decoration")].some((l) => l.innerText.includes("Approve Plan")), null, {
      timeout: LIMIT,
    });
    out.planLenses = await page.$$eval(".codelens-decoration", (ls) => ls.map((l) => l.innerText));
    out.planViewShot = await shot("plan-view");
    await palette("agentls: Approve Plan");
    await page.locator(".tabs-container .tab", { hasText: "greet.go" }).first().click();
    await hasAfter("quietly");
    out.approvedAfter = await afterTexts();
    out.approvedShot = await shot("plan-approved");
    await palette("agentls: Reject All Proposed Changes");
    await noAfter();
    out.steps.push("plan");

    // Editor tools: the model asks VS Code for its diagnostics (here from
    // the built-in JSON language server), the selection and the open
    // editors; e2e_test.go checks what the model was given.
    await page.click('.explorer-folders-view .monaco-list-row:has-text("broken.json")');
    await page.waitForSelector(".view-lines .squiggly-error, .squiggly-error", { timeout: LIMIT });
    await page.click('.tabs-container .tab:has-text("greet.go")');
    await page.waitForSelector('.view-lines:has-text("package main")', { timeout: LIMIT });
    await page.locator('.view-line:has-text("package main")').first().click();
    await page.keyboard.press("Home");
    await page.keyboard.press("Shift+End");
    await runAgent("ask the editor");
    await page.waitForFunction(
      () => [...document.querySelectorAll(".notifications-toasts .notification-toast")].some((t) => t.innerText.includes("EDITOR-TOOLS-DONE")),
      null,
      { timeout: LIMIT },
    );
    out.editorToolsShot = await shot("editor-tools");
    out.steps.push("editor-tools");

    // A command the server refuses shows the server's reason: break the
    // model's base URL in the user settings (as a user would, in
    // settings.json), then run.
    await palette("Preferences: Open User Settings (JSON)");
    await page.waitForSelector('.view-lines:has-text("agentls.model.baseURL")', { timeout: LIMIT });
    await page.keyboard.press("Control+H");
    await page.waitForSelector(".find-widget.visible", { timeout: LIMIT });
    await page.keyboard.type("http://127");
    await page.getByPlaceholder("Replace").first().click();
    await page.keyboard.type("ftp://127");
    await page.keyboard.press("Control+Alt+Enter");
    await page.keyboard.press("Escape");
    await page.keyboard.press("Control+S");
    // The server reports the bad value once the new settings reached it.
    await page.waitForFunction(
      () => [...document.querySelectorAll(".notifications-toasts .notification-toast")].some((t) => t.innerText.includes("model.baseURL")),
      null,
      { timeout: LIMIT },
    );
    // Close the settings editor (a modal over the workbench in recent VS
    // Code, which keeps F1 from the palette) with its title bar's close.
    await page.evaluate(() => {
      const closers = [...document.querySelectorAll(".codicon-close")].filter((e) => {
        const r = e.getBoundingClientRect();
        return r.width > 0 && r.top < 140 && !e.closest(".find-widget") && !e.closest(".tabs-container");
      });
      const el = closers[closers.length - 1];
      (el.closest("a, .action-label, .monaco-button") || el).click();
    });
    await page.waitForFunction(() => ![...document.querySelectorAll(".view-lines")].some((v) => v.offsetParent !== null && v.innerText.includes("agentls.model.baseURL")), null, {
      timeout: LIMIT,
    });
    const toastWith = (needle, timeout) =>
      page.waitForFunction(
        (n) => [...document.querySelectorAll(".notifications-toasts .notification-toast")].some((t) => t.innerText.includes(n)),
        needle,
        { timeout },
      );
    await retry(async () => {
      await runAgent("make it fail");
      await toastWith("cannot start an agent run", 5000);
    });
    out.errorToasts = await toasts();
    out.errorShot = await shot("error");
    out.steps.push("error");
  } catch (err) {
    try {
      out.failShot = await shot("failure");
    } catch {
      // the page may be gone
    }
    throw err;
  } finally {
    await browser.close();
  }
}

main()
  .then(() => {
    out.ok = true;
  })
  .catch((err) => {
    out.ok = false;
    out.error = String(err && err.stack ? err.stack : err);
  })
  .finally(() => {
    fs.writeFileSync(process.env.E2E_OUT, JSON.stringify(out, null, 2));
  });
