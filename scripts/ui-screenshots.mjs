// Takes the screenshots in docs/img/ (docs/ui.md, README): the run page and a cell of the CVE
// triage example, in headless Chromium against a running `switchyard ui`.
// usage: node scripts/ui-screenshots.mjs URL [OUT_DIR]      (URL as `switchyard ui` prints it)
import { chromium } from "playwright-core";
import { mkdirSync, mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";

const [printed, out = "docs/img"] = process.argv.slice(2);
// The address without its write token (after `#`): the screenshots only read.
const url = printed?.replace(/#.*$/, "");
if (!printed) {
  console.error("usage: node scripts/ui-screenshots.mjs URL [OUT_DIR]");
  process.exit(2);
}
mkdirSync(out, { recursive: true });
const profile = mkdtempSync(join(tmpdir(), "switchyard-shots-"));
const context = await chromium.launchPersistentContext(profile, {
  executablePath: "/usr/bin/chromium",
  headless: true,
  viewport: { width: 1280, height: 860 },
  args: [
    "--headless",
    "--no-sandbox",
    "--disable-gpu",
    "--no-first-run",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
  ],
});
try {
  const page = await context.newPage();
  const runs = await (await fetch(new URL("api/runs", url))).json();
  const run = runs.runs.find((r) => r.playbook === "triage") ?? runs.runs[0];
  await page.goto(`${url}#/runs/${run.run}`);
  await page.locator(".rows .grid-row").first().waitFor();
  await page.screenshot({ path: join(out, "ui-run.png") });
  const cell = page.locator('.rows .grid-row[data-key="CVE-2023-26125"] .cell[data-task="match"]');
  await cell.click();
  await page.locator(".cell-view .decision").first().waitFor();
  await page.screenshot({ path: join(out, "ui-cell.png") });
  console.log(`wrote ${join(out, "ui-run.png")} and ${join(out, "ui-cell.png")}`);
} finally {
  await context.close();
  rmSync(profile, { recursive: true, force: true });
}
