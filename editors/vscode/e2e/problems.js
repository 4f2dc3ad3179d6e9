// Drives language-server problems in a real VS Code (code-server): a run
// whose edit breaks main.go (gopls configured in the user settings) shows
// "⚠ introduces 1 problem (…)" beside the proposal and in its hover, and
// the end-of-run notification says it as a warning. Records what it saw in
// E2E_OUT (JSON) for editors/vscode/e2e_test.go (TestVSCodeProblems).
//
// Environment: E2E_URL, E2E_FOLDER, E2E_OUT, E2E_SHOTS, CHROMIUM.
const fs = require("fs");
const { chromium } = require("playwright-core");

const out = { steps: [] };
let page;
const h = require("./lib")(() => page);

async function main() {
  const browser = await chromium.launch({
    executablePath: process.env.CHROMIUM || "/usr/bin/chromium",
    args: ["--no-sandbox", "--disable-gpu", "--disable-background-networking", "--disable-component-update", "--disable-sync", "--no-first-run"],
  });
  try {
    page = await browser.newPage({ viewport: { width: 1400, height: 900 } });
    page.setDefaultTimeout(h.LIMIT); // clicks and hovers wait as long as any other wait
    await page.goto(`${process.env.E2E_URL}/?folder=${encodeURIComponent(process.env.E2E_FOLDER)}`);
    await page.waitForSelector(".explorer-folders-view .monaco-list-row", { timeout: h.LIMIT });
    await page.click('.explorer-folders-view .monaco-list-row:has-text("main.go")');
    await page.waitForSelector('.view-lines:has-text("func main")', { timeout: h.LIMIT });
    out.steps.push("opened");
    await h.waitForCommands();

    await h.runAgent("use undefinedThing");
    await h.hasAfter("undefinedThing");
    await h.toastWith("introduces 1 problem");
    await h.hasAfter("introduces 1 problem");
    out.after = await h.afterTexts();
    out.toasts = await h.toasts();
    out.shot = await h.shot("problems");
    out.steps.push("problems");
    out.hover = await h.hoverOn("println");
    out.hoverShot = await h.shot("problems-hover");
    out.steps.push("hover");
  } catch (err) {
    try {
      out.failToasts = await h.toasts();
      await h.palette("Notifications: Show Notifications");
      await page.waitForTimeout(1000);
      out.failCenter = await page.$$eval(".notifications-center .notification-list-item", (ts) => ts.map((t) => t.innerText));
      out.failAfter = await h.afterTexts();
      out.failShot = await h.shot("failure");
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
