// What the e2e drivers (e2e.js, review.js) share: reading the workbench's
// DOM (the editor's inline decorations, notifications, tabs, hovers) and
// driving it (the command palette, the extension's prompt box,
// screenshots). `page` is a function returning the current Playwright
// page.
//
// Waits: LIMIT bounds each wait for something that must happen (the test
// fails when it does not). It guards against hangs and is not a timing
// assertion: it is far longer than anything takes on a loaded CI machine,
// where code-server and Chromium share two cores with the rest of the
// tests. Shorter timeouts appear only as retry periods inside retry(),
// which itself gives up after LIMIT.
const LIMIT = 120000;

module.exports = (page) => {
  const h = {
    LIMIT,
    // Runs attempt until it resolves, running it again when it throws (a
    // wait that ended its retry period without the thing it waited for),
    // until LIMIT has passed; then the last error is thrown.
    async retry(attempt) {
      const deadline = Date.now() + LIMIT;
      for (;;) {
        try {
          return await attempt();
        } catch (err) {
          if (Date.now() > deadline) throw err;
        }
      }
    },
    // Waits until the extension's commands are in the palette (the
    // extension host registers them once it has scanned the extension,
    // which a loaded machine delays). An open palette does not pick up
    // commands registered after it opened, so it is opened again until
    // they are there.
    async waitForCommands() {
      await h.retry(async () => {
        await page().keyboard.press("F1");
        await page().waitForSelector(".quick-input-widget input", { state: "visible", timeout: LIMIT });
        await page().keyboard.type("agentls: ");
        try {
          await page().waitForFunction(() => document.querySelectorAll(".quick-input-list .monaco-list-row").length >= 10, null, { timeout: 5000 });
        } finally {
          await page().keyboard.press("Escape");
        }
      });
    },
    // The ::after contents of the editor's inline decorations (where the
    // extension shows a hunk's new text).
    afterTexts: () =>
      page().$$eval(".view-lines span", (spans) =>
        spans
          .map((s) => getComputedStyle(s, "::after").content.replace(/\u00a0/g, " "))
          .filter((c) => c && c !== "none" && c !== "normal"),
      ),
    // The proposed insertions' blocks (comment thread zones): each one's
    // text, its lines on lines of their own.
    insertions: () => page().$$eval(".review-widget", (ws) => ws.map((w) => w.innerText.replace(/\u00a0/g, " "))),
    insertionWith: (needle) =>
      page().waitForFunction((n) => [...document.querySelectorAll(".review-widget")].some((w) => w.innerText.includes(n)), needle, { timeout: LIMIT }),
    // The visible notifications' messages, and their buttons.
    toasts: () =>
      page().$$eval(".notifications-toasts .notification-toast", (ts) =>
        ts.map((t) => ({
          message: (t.querySelector(".notification-list-item-message") || t).innerText,
          buttons: [...t.querySelectorAll(".monaco-button")].map((b) => b.innerText.trim()).filter((s) => s),
        })),
      ),
    tabLabels: () => page().$$eval(".tabs-container .tab", (ts) => ts.map((t) => t.getAttribute("aria-label") || t.innerText)),
    // The text of the (first visible) editor.
    editorText: () => page().$eval(".view-lines", (e) => e.innerText.replace(/\u00a0/g, " ")),
    hasAfter: (needle) =>
      page().waitForFunction(
        (n) =>
          [...document.querySelectorAll(".view-lines span")].some((s) => getComputedStyle(s, "::after").content.replace(/\u00a0/g, " ").includes(n)),
        needle,
        { timeout: LIMIT },
      ),
    toastWith: (needle, timeout = LIMIT) =>
      page().waitForFunction(
        (n) => [...document.querySelectorAll(".notifications-toasts .notification-toast")].some((t) => t.innerText.includes(n)),
        needle,
        { timeout },
      ),
    // Runs a palette command. The extension's commands appear only once
    // the extension host has registered them, which on a loaded CI machine
    // can take longer than one palette wait: the palette is reopened until
    // the entry shows (at most LIMIT), then chosen.
    async palette(title) {
      await h.retry(async () => {
        await page().keyboard.press("F1");
        await page().waitForSelector(".quick-input-widget input", { state: "visible", timeout: LIMIT });
        await page().keyboard.type(title);
        try {
          await page().waitForSelector(`.quick-input-list .monaco-list-row[aria-label^="${title}"]`, { timeout: 5000 });
        } catch (err) {
          await page().keyboard.press("Escape");
          throw err;
        }
      });
      await page().keyboard.press("Enter");
    },
    async runAgent(prompt) {
      await h.palette("agentls: Run Agent");
      // The extension's prompt box (not the palette that is closing).
      await page().waitForSelector('.quick-input-widget input[placeholder^="e.g."]', { state: "visible", timeout: LIMIT });
      await page().keyboard.type(prompt);
      await page().keyboard.press("Enter");
    },
    async shot(name) {
      const file = require("path").join(process.env.E2E_SHOTS, name + ".png");
      await page().screenshot({ path: file });
      return file;
    },
    // Hovers the first word of the editor that contains `word` until an
    // agentls hover shows, and returns the hover's text.
    async hoverOn(word) {
      const target = page().locator(`.view-line span:has-text("${word}")`).first();
      await h.retry(async () => {
        await page().mouse.move(5, 5);
        await target.hover();
        await page().waitForFunction(
          () => [...document.querySelectorAll(".monaco-hover")].some((h) => h.offsetParent !== null && h.innerText.includes("agentls proposal")),
          null,
          { timeout: 5000 },
        );
      });
      return page().$$eval(".monaco-hover", (hs) => hs.filter((h) => h.offsetParent !== null).map((h) => h.innerText).join("\n"));
    },
  };
  return h;
};
