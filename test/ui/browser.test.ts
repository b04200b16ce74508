// The web view, in headless Chromium (Debian's, driven by playwright-core) against a real
// `switchyard ui` over real state folders: the run list, the triage example's grid per key
// against show --json, a route cell's probabilities, a run started after the page opened
// appearing and filling in live, a 10,000-element run loading and scrolling, and `show --html`
// rendering the same grid from file:// with the network off.

import { test, before, after } from "node:test";
import assert from "node:assert/strict";
import { spawn } from "node:child_process";
import { existsSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { pathToFileURL } from "node:url";
import { chromium, type BrowserContext, type Page } from "playwright-core";
import { BIN, CHROMIUM, CHROMIUM_ARGS, runTriage, startUi, type Triage, type Ui } from "./support.js";
import { makeBigRun } from "../../bench/big-run.js";
import { runCliInProcess } from "../support/cli-in-process.js";

// The page functions below run in the browser; this Node program has no DOM types, so they are
// declared loosely here (the client's own code is type-checked against the DOM).
/* eslint-disable @typescript-eslint/no-explicit-any */
declare const document: any;
declare const window: any;
type HTMLElement = any;

const skip = !existsSync(CHROMIUM) && !process.env.CI ? `${CHROMIUM} is not installed (CI installs it)` : false;

let t: Triage;
let ui: Ui;
let context: BrowserContext;
let profile: string;

before(async () => {
  if (skip) return;
  t = runTriage();
  ui = await startUi(t.state);
  profile = mkdtempSync(join(tmpdir(), "sy-ui-chromium-"));
  context = await chromium.launchPersistentContext(profile, {
    executablePath: CHROMIUM,
    headless: true,
    args: CHROMIUM_ARGS,
    viewport: { width: 1280, height: 1800 },
  });
});
after(async () => {
  await context?.close();
  await ui?.stop();
  if (t) rmSync(t.dir, { recursive: true, force: true });
  if (profile) rmSync(profile, { recursive: true, force: true });
});

async function newPage(): Promise<{ page: Page; errors: string[] }> {
  const page = await context.newPage();
  const errors: string[] = [];
  page.on("pageerror", (e) => errors.push(String(e)));
  page.on("console", (m) => {
    if (m.type() === "error") errors.push(m.text());
  });
  return { page, errors };
}

/** Per key and mapped task, the cell's status and label as show --json has them. */
function expectedCells(tr: Triage): Array<{ key: string; task: string; status: string; label: string | null }> {
  const out: Array<{ key: string; task: string; status: string; label: string | null }> = [];
  for (const [task, s] of Object.entries(tr.shown.tasks)) {
    if (!s.instances) continue;
    for (const [key, i] of Object.entries(s.instances)) {
      let label: string | null = null;
      if (i.status === "not_taken") label = `– ${i.label}`;
      else if (s.kind === "route") label = Object.values(i.output as Record<string, { label: string }>)[0]!.label;
      out.push({ key, task, status: i.status, label });
    }
  }
  return out;
}

/** The grid as drawn: key → task → {status, label text}. */
function drawnGrid(page: Page): Promise<Record<string, Record<string, { status: string; label: string }>>> {
  return page.evaluate(() => {
    const out: Record<string, Record<string, { status: string; label: string }>> = {};
    for (const row of Array.from(document.querySelectorAll(".rows .grid-row")) as HTMLElement[]) {
      const cells: Record<string, { status: string; label: string }> = {};
      for (const c of Array.from(row.querySelectorAll(".cell[data-task]")) as HTMLElement[])
        cells[c.dataset.task!] = { status: c.dataset.status!, label: c.querySelector(".label")?.textContent ?? "" };
      out[row.dataset.key!] = cells;
    }
    return out;
  });
}

function assertGrid(drawn: Awaited<ReturnType<typeof drawnGrid>>, tr: Triage): void {
  const expected = expectedCells(tr);
  assert.equal(Object.keys(drawn).length, 40, "one row per ticket");
  for (const e of expected) {
    const cell = drawn[e.key]?.[e.task];
    assert.ok(cell, `no cell ${e.task}[${e.key}]`);
    assert.equal(cell.status, e.status, `${e.task}[${e.key}]`);
    if (e.label !== null) assert.equal(cell.label, e.label, `${e.task}[${e.key}]`);
  }
}

test(
  "web view: the run list shows the runs; the grid shows each key's status and label as show --json",
  { skip, timeout: 120_000 },
  async () => {
    const { page, errors } = await newPage();
    await page.goto(ui.url);
    await page.locator(`tr[data-run="${t.run}"]`).waitFor();
    assert.match(await page.locator(`tr[data-run="${t.run}"]`).innerText(), /passed\s+triage/);
    await page.locator(`tr[data-run="${t.run}"] a`).click();
    await page.locator(".rows .grid-row").first().waitFor();
    assertGrid(await drawnGrid(page), t);
    // The plan graph: every task a node, aligned edges marked, gates labelled.
    assert.equal(await page.locator("svg.graph g.node").count(), Object.keys(t.shown.tasks).length);
    assert.ok((await page.locator('svg.graph path.edge.aligned[data-from="match"][data-to="review"]').count()) === 1);
    assert.ok((await page.locator('svg.graph path.edge.whole[data-from="prepare"][data-to="review"]').count()) === 1);
    assert.match((await page.locator('svg.graph g.node[data-task="review"] .gate').textContent()) ?? "", /match\.package ∈ uncertain/);
    // Filter: the tickets the match route sent to review are exactly those `uncertain`.
    await page.selectOption("select.f-column", "match");
    await page.selectOption("select.f-label", "uncertain");
    const uncertain = Object.entries(t.shown.tasks.match!.instances!)
      .filter(([, i]) => (i.output as { package: { label: string } }).package.label === "uncertain")
      .map(([k]) => k)
      .sort();
    await page.waitForFunction((n) => document.querySelectorAll(".rows .grid-row").length === n, uncertain.length);
    assert.deepEqual(
      await page.locator(".rows .grid-row").evaluateAll((rows) => rows.map((r) => (r as HTMLElement).dataset.key!).sort()),
      uncertain,
    );
    assert.deepEqual(errors, []);
    await page.close();
  },
);

test("clicking a route cell shows its probabilities, mode and model", { skip, timeout: 60_000 }, async () => {
  const { page, errors } = await newPage();
  await page.goto(`${ui.url}#/runs/${t.run}`);
  const [key, inst] = Object.entries(t.shown.tasks.match!.instances!)[3]!;
  const record = (inst.output as Record<string, { probabilities: Record<string, number>; mode: string; provider: string; model: string }>)
    .package;
  await page.locator(`.rows .grid-row[data-key="${key}"] .cell[data-task="match"]`).click();
  const decision = page.locator('.cell-panel .decision[data-question="package"]');
  await decision.waitFor();
  const shown = await decision
    .locator("tr[data-label]")
    .evaluateAll((rows) => rows.map((r) => [(r as HTMLElement).dataset.label!, Number(r.querySelector(".pnum")!.textContent)]));
  assert.deepEqual(
    Object.fromEntries(shown),
    Object.fromEntries(Object.entries(record!.probabilities).map(([l, p]) => [l, Number(p.toFixed(3))])),
  );
  // The bars are drawn in proportion to the probabilities.
  const widths = await decision
    .locator("tr[data-label] .fill")
    .evaluateAll((els) => els.map((e) => (e as HTMLElement).getBoundingClientRect().width));
  assert.ok(widths[0]! > 0 && widths.every((w, i) => i === 0 || w <= widths[i - 1]! + 0.5), `bars sorted by probability: ${widths}`);
  assert.match(await decision.innerText(), new RegExp(`mode ${record!.mode} · ${record!.provider}/${record!.model}`));
  assert.match(page.url(), new RegExp(`#/runs/${t.run}/cell/match/${encodeURIComponent(key)}$`));
  assert.deepEqual(errors, []);
  await page.close();
});

test("a run started after the page opened appears, and its cells fill in live", { skip, timeout: 120_000 }, async () => {
  const dir = mkdtempSync(join(tmpdir(), "sy-ui-live-"));
  const release = join(dir, "release");
  const playbook = join(dir, "slow.star");
  writeFileSync(
    playbook,
    `playbook(description = "waits for a file")
prepare = command(name = "prepare", run = "echo '{\\"members\\": [\\"a\\", \\"b\\", \\"c\\"]}' > $SWITCHYARD_OUTPUT", emits = {"members": "list"})
work = command(name = "work", depends_on = [prepare], over = prepare.members, max_fanout = 10,
    run = "while [ ! -f ${release} ]; do sleep 0.05; done")
`,
  );
  const { page, errors } = await newPage();
  try {
    await page.goto(ui.url);
    await page.locator(`tr[data-run="${t.run}"]`).waitFor();
    await page.evaluate(() => ((window as unknown as { marker: number }).marker = 42));
    const child = spawn(process.execPath, [BIN, "run", playbook, "--state-dir", t.state], { stdio: "ignore" });
    const exited = new Promise<number | null>((done) => child.once("exit", done));
    const newRow = page.locator("tr[data-run]").first();
    await page.waitForFunction((known) => {
      const first = document.querySelector("tr[data-run]");
      return first !== null && first.dataset.run !== known;
    }, t.run);
    const run = (await newRow.getAttribute("data-run"))!;
    assert.match(await newRow.innerText(), /running\s+slow/);
    await newRow.locator("a").click();
    await page.waitForFunction(() => document.querySelectorAll('.rows .cell[data-task="work"][data-status="running"]').length === 3);
    writeFileSync(release, "");
    await page.waitForFunction(() => document.querySelectorAll('.rows .cell[data-task="work"][data-status="passed"]').length === 3);
    await page.locator('.run-head [data-run-status="passed"]').waitFor();
    assert.equal(await exited, 0);
    assert.equal(await page.evaluate(() => (window as unknown as { marker?: number }).marker), 42, "the page was not reloaded");
    assert.equal(await page.locator('svg.graph g.node.t-passed[data-task="work"]').count(), 1);
    assert.ok(run > t.run);
    assert.deepEqual(errors, []);
  } finally {
    await page.close();
    rmSync(dir, { recursive: true, force: true });
  }
});

test(
  "web view: a 10,000-element run's page loads and scrolls (time printed; bench/ui.ts has the figure)",
  { skip, timeout: 240_000 },
  async () => {
    const dir = mkdtempSync(join(tmpdir(), "sy-ui-big-"));
    const state = join(dir, "state");
    mkdirSync(state);
    const run = await makeBigRun(state, 10_000);
    const big = await startUi(state);
    const { page, errors } = await newPage();
    try {
      const t0 = Date.now();
      await page.goto(`${big.url}#/runs/${run}`);
      await page.locator('.rows .grid-row[data-key="ticket-00000"]').waitFor();
      const loadMs = Date.now() - t0;
      assert.equal(await page.locator(".grid .count").innerText(), "10000 of 10000 keys");
      assert.ok((await page.locator(".rows .grid-row").count()) < 200, "rows are virtualised");
      const t1 = Date.now();
      await page.locator(".grid-body").evaluate((el) => (el.scrollTop = el.scrollHeight));
      await page.locator('.rows .grid-row[data-key="ticket-09999"]').waitFor();
      const scrollMs = Date.now() - t1;
      const last = page.locator('.rows .grid-row[data-key="ticket-09999"]');
      assert.equal(await last.locator('.cell[data-task="lane"] .label').innerText(), "right");
      assert.equal(await last.locator('.cell[data-task="left"]').getAttribute("data-status"), "not_taken");
      console.log(`# 10,000 × 6 run page: loaded in ${loadMs} ms, scrolled to the end in ${scrollMs} ms`);
      assert.deepEqual(errors, []);
    } finally {
      await page.close();
      await big.stop();
      rmSync(dir, { recursive: true, force: true });
    }
  },
);

test("show --html renders the same grid from file:// with the network disabled", { skip, timeout: 60_000 }, async () => {
  const file = join(t.dir, "run.html");
  const r = await runCliInProcess(["show", t.run, "--html", file, "--state-dir", t.state]);
  assert.equal(r.code, 0, r.stderr);
  // The page in this file's browser, with the network turned off for this test (one browser per file).
  await context.setOffline(true);
  const requests: string[] = [];
  const onRequest = (req: { url(): string }) => requests.push(req.url());
  context.on("request", onRequest);
  const { page, errors } = await newPage();
  try {
    await page.goto(pathToFileURL(file).href);
    await page.locator(".rows .grid-row").first().waitFor();
    assertGrid(await drawnGrid(page), t);
    const key = Object.keys(t.shown.tasks.gate!.instances!).find((k) => t.shown.tasks.gate!.instances![k]!.status === "passed")!;
    await page.locator(`.rows .grid-row[data-key="${key}"] .cell[data-task="gate"]`).click();
    await page.locator('.cell-panel .decision[data-question="depth"]').waitFor();
    assert.deepEqual(errors, []);
    assert.deepEqual(
      requests.filter((u) => !u.startsWith("file:")),
      [],
      "the file fetches nothing",
    );
  } finally {
    context.off("request", onRequest);
    await page.close();
    await context.setOffline(false);
  }
});
