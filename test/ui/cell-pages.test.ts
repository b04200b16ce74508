// The web view answers "why this label, why not run" for a cell without the JSON, checked in
// headless Chromium at 1000 and 1400 px against a run whose answers are known in advance
// (cells-fixture.ts): each question of a route cell with its own label and confidence, uncut;
// per-column counts; failed cells' codes; the cell page's threshold, raw and calibrated
// confidence, calibration id, audit answer and the state the model saw; a revise loop's rounds;
// an error read once; the graph scrolling rather than clipped, gates uncut; the run list's
// decisions as the CLI counts them; the lab's disagreements linked to their cells. One browser
// serves every case; each case's screenshot is kept in $SWITCHYARD_UI_ARTIFACTS (default
// .tmp/ui-artifacts).

import { test, before, after } from "node:test";
import assert from "node:assert/strict";
import { existsSync, mkdirSync, mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { chromium, type BrowserContext, type Page } from "playwright-core";
import { CHROMIUM, CHROMIUM_ARGS, startUi, type Ui } from "./support.js";
import { CALIBRATION_ID, runCells, TABLE, type CellsRun } from "./cells-fixture.js";

/* eslint-disable @typescript-eslint/no-explicit-any */
declare const document: any;
type HTMLElement = any;
declare function getComputedStyle(e: any): any;

const skip = !existsSync(CHROMIUM) && !process.env.CI ? `${CHROMIUM} is not installed (CI installs it)` : false;
const WIDTHS = [1000, 1400];
const ARTIFACTS = resolve(process.env.SWITCHYARD_UI_ARTIFACTS ?? ".tmp/ui-artifacts");

let fx: CellsRun;
let ui: Ui;
let context: BrowserContext;
let profile: string;

before(async () => {
  if (skip) return;
  fx = runCells();
  ui = await startUi(fx.state);
  profile = mkdtempSync(join(tmpdir(), "sy-ui-cells-chromium-"));
  context = await chromium.launchPersistentContext(profile, { executablePath: CHROMIUM, headless: true, args: CHROMIUM_ARGS });
  mkdirSync(ARTIFACTS, { recursive: true });
});
after(async () => {
  await context?.close();
  await ui?.stop();
  if (fx) rmSync(fx.dir, { recursive: true, force: true });
  if (profile) rmSync(profile, { recursive: true, force: true });
});

/** A page of the shared browser at this width; the test fails on any error the page logs. */
async function pageAt(width: number): Promise<{ page: Page; errors: string[] }> {
  const page = await context.newPage();
  await page.setViewportSize({ width, height: 900 });
  const errors: string[] = [];
  page.on("pageerror", (e) => errors.push(String(e)));
  page.on("console", (m) => {
    if (m.type() === "error") errors.push(m.text());
  });
  return { page, errors };
}

const shot = (page: Page, name: string, width: number) =>
  page.screenshot({ path: join(ARTIFACTS, `${name}-${width}.png`), fullPage: true });

/**
 * Opens a cell's page and waits until the panel shows that cell (a hash change on an open page
 * leaves the previous cell in view until the new one has loaded).
 */
async function openCell(page: Page, task: string, key: string): Promise<void> {
  await page.goto(`${ui.url}#/runs/${fx.run}/cell/${task}/${key}`);
  await page.locator(`.cell-panel .cell-view[data-task="${task}"][data-key="${key}"]`).waitFor();
}

/** σ(logit(c) − 1): the fixture's calibration map, computed here, not by the code under test. */
const calibrated = (c: number) => 1 / (1 + Math.exp(-(Math.log(c / (1 - c)) - 1)));

/** Elements matching the selector whose text is cut (wider than their box). */
function clipped(page: Page, selector: string): Promise<string[]> {
  return page
    .locator(selector)
    .evaluateAll((els) =>
      (els as HTMLElement[])
        .filter((e) => e.scrollWidth > e.clientWidth + 0.5)
        .map((e) => `${e.textContent} (${e.scrollWidth} > ${e.clientWidth})`),
    );
}

/** The grid at this width: each question's label and confidence, uncut; counts per column; failed cells' codes. */
async function checkGrid(page: Page, width: number): Promise<void> {
  const answers = (key: string) =>
    page
      .locator(`.rows .grid-row[data-key="${key}"] .cell[data-task="triage"] .answer`)
      .evaluateAll((els) =>
        (els as HTMLElement[]).map((e) => [
          e.dataset.question,
          e.querySelector(".label").textContent,
          e.querySelector(".conf").textContent,
        ]),
      );
  // Known answers: a's owner is 0.55 < min_confidence 0.6, so uncertain; b's both stand.
  assert.deepEqual(await answers("a"), [
    ["action", "autofix", TABLE.a.action.autofix.toFixed(2)],
    ["owner", "uncertain", TABLE.a.owner.infra.toFixed(2)],
  ]);
  assert.deepEqual(await answers("b"), [
    ["action", "manual", TABLE.b.action.manual.toFixed(2)],
    ["owner", "web", TABLE.b.owner.web.toFixed(2)],
  ]);
  assert.deepEqual(await clipped(page, ".rows .cell .answer .label, .rows .cell .conf, .rows .cell .label.code"), []);
  assert.deepEqual(await page.locator('.grid-head .cell[data-task="triage"] .question').allTextContents(), ["action", "owner"]);
  // The counts per column, as the fixture makes them.
  const counts = (task: string) => page.locator(`.grid-head .cell[data-task="${task}"] .col-counts .count-part`).allTextContents();
  assert.deepEqual(await counts("triage"), ["2 passed"]);
  assert.deepEqual(await counts("fix"), ["1 passed", "1 failed"]);
  assert.deepEqual(await counts("broken"), ["2 failed"]);
  assert.deepEqual(await counts("autofix"), ["1 passed", "1 not taken"]);
  // Failed cells name their code.
  const code = (task: string, key: string) =>
    page.locator(`.rows .grid-row[data-key="${key}"] .cell[data-task="${task}"] .label`).textContent();
  assert.equal(await code("broken", "a"), "command-failed");
  assert.equal(await code("broken", "b"), "command-failed");
  assert.equal(await code("fix", "b"), "revise-failed");
  // The grid is never narrower than its columns need: it scrolls sideways instead.
  const frame = await page
    .locator(".grid-frame")
    .evaluate((e: HTMLElement) => ({ style: getComputedStyle(e).overflowX, sw: e.scrollWidth, cw: e.clientWidth }));
  assert.equal(frame.style, "auto");
  if (width === 1000) assert.ok(frame.sw > frame.cw, `the grid scrolls sideways at 1000 px: ${JSON.stringify(frame)}`);
}

/** The plan graph at this width: drawn at its own size, scrolling when wider than its frame; gates whole. */
async function checkGraph(page: Page, width: number): Promise<void> {
  const g = await page.locator(".graph-wrap").evaluate((e: HTMLElement) => {
    const svg = e.querySelector("svg.graph");
    return {
      overflow: getComputedStyle(e).overflowX,
      wrap: e.clientWidth,
      scroll: e.scrollWidth,
      drawn: svg.getBoundingClientRect().width,
      declared: Number(svg.getAttribute("width")),
    };
  });
  assert.equal(g.drawn, g.declared, "the graph is drawn at its own size, not squeezed");
  assert.equal(g.overflow, "auto");
  // Four columns of nodes: wider than the frame at 1000 px, which then scrolls; whole at 1400.
  if (width === 1000) assert.ok(g.declared > g.wrap && g.scroll >= g.declared, `the graph scrolls: ${JSON.stringify(g)}`);
  else assert.ok(g.declared <= g.wrap, `the graph fits: ${JSON.stringify(g)}`);
  // Each gate: its lines joined are the whole gate (as the node's title has it), and every line fits in its node.
  const gates = await page.locator("svg.graph g.node").evaluateAll((nodes) =>
    (nodes as HTMLElement[])
      .filter((n) => n.querySelector(".gate"))
      .map((n) => {
        const width = Number(n.querySelector("rect").getAttribute("width"));
        const lines = Array.from(n.querySelectorAll(".gate")) as HTMLElement[];
        return {
          task: n.dataset.task,
          text: lines.map((l) => l.firstChild.textContent).join(" "),
          fits: lines.every((l) => Number(l.getAttribute("x")) + l.getComputedTextLength() <= width),
        };
      }),
  );
  assert.deepEqual(
    gates.map((x) => [x.task, x.text, x.fits]),
    [
      ["autofix", "triage.action ∈ autofix", true],
      ["to_web", "triage.owner ∈ web", true],
      ["to_other", "triage.owner otherwise (infra, uncertain)", true],
      ["urgent", "sev.level ∈ high", true],
    ],
  );
}

for (const width of WIDTHS) {
  test(
    `web view at ${width} px: each question of a route cell with its own label and confidence, uncut; counts per column; failed cells' codes; the graph scrolls rather than clipped, gates whole`,
    { skip, timeout: 60_000 },
    async () => {
      const { page, errors } = await pageAt(width);
      await page.goto(`${ui.url}#/runs/${fx.run}`);
      await page.locator('.rows .grid-row[data-key="a"]').waitFor();
      await page.locator("svg.graph g.node").first().waitFor();
      await shot(page, "run", width);
      await checkGrid(page, width);
      await checkGraph(page, width);
      assert.deepEqual(errors, []);
      await page.close();
    },
  );
}

test(
  "the cell page of a two-question route: each label against min_confidence, and the state the model saw",
  { skip, timeout: 60_000 },
  async () => {
    const { page, errors } = await pageAt(1000);
    await openCell(page, "triage", "a");
    const action = page.locator('.cell-panel .decision[data-question="action"]');
    const owner = page.locator('.cell-panel .decision[data-question="owner"]');
    await owner.waitFor();
    assert.match(await action.locator(".answer-line").innerText(), /^action = autofix confidence 0\.900$/);
    assert.match(
      await action.locator('[data-fact="threshold"] dd').innerText(),
      /^min_confidence 0\.60 \(the playbook's\): confidence 0\.900 reaches it/,
    );
    assert.match(await owner.locator(".answer-line").innerText(), /^owner = uncertain confidence 0\.550$/);
    assert.equal(
      await owner.locator('[data-fact="threshold"] dd').innerText(),
      "min_confidence 0.60 (the playbook's): confidence 0.550 is below it, so the label is uncertain (the most likely label was infra)",
    );
    assert.match(
      await owner.locator('[data-fact="answered by"] dd').innerText(),
      /^mode model · dec\/m · \d+ ms · type playbook\.triage\.owner$/,
    );
    // The state, folded away until opened: the instance's input, key a.
    const state = page.locator(".cell-panel details.state");
    assert.equal(await state.getAttribute("open"), null);
    await state.locator("summary").click();
    const sent = JSON.parse(await state.locator("pre").innerText()) as { key: string; inputs: { prep: { ids: string[] } } };
    assert.deepEqual(sent, { key: "a", inputs: { prep: { ids: ["a", "b"] } } });
    await shot(page, "cell-route", 1000);
    assert.deepEqual(errors, []);
    await page.close();
  },
);

test(
  "the cell page of a calibrated, audited decision: raw and calibrated confidence, the calibration id, the host's answer",
  { skip, timeout: 60_000 },
  async () => {
    const { page, errors } = await pageAt(1400);
    for (const key of ["a", "b"] as const) {
      await openCell(page, "sev", key);
      const d = page.locator('.cell-panel .decision[data-question="level"]');
      await d.waitFor();
      const raw = Math.max(TABLE[key].level.low, TABLE[key].level.high);
      const cal = calibrated(raw);
      // a: 0.8 → 0.595, at or above the config's 0.5: high stands. b: 0.6 → 0.356: uncertain.
      const label = key === "a" ? "high" : "uncertain";
      assert.equal(
        await d.locator(".answer-line").innerText(),
        `level = ${label} confidence ${cal.toFixed(3)} (calibrated; raw ${raw.toFixed(3)})`,
      );
      assert.match(
        await d.locator('[data-fact="calibration"] dd').innerText(),
        new RegExp(`^${CALIBRATION_ID}: the model said ${raw.toFixed(3)}, calibrated ${cal.toFixed(3)}`),
      );
      assert.equal(await d.locator('[data-fact="audit"] dd').innerText(), `the host answered low (disagrees)`);
      // The playbook's threshold is 0; the record holds the machine config's 0.5, which made b uncertain.
      const words =
        key === "a" ? "reaches it, so the model's label stands" : "is below it, so the label is uncertain (the most likely label was low)";
      assert.equal(
        await d.locator('[data-fact="threshold"] dd').innerText(),
        `min_confidence 0.50 (the machine config's for playbook.sev.level; the playbook's is 0.00): confidence ${cal.toFixed(3)} ${words}`,
      );
      await shot(page, `cell-calibrated-${key}`, 1400);
    }
    assert.deepEqual(errors, []);
    await page.close();
  },
);

test("the cell page of a reviewed question: who answered, when, and their note", { skip, timeout: 60_000 }, async () => {
  const { page, errors } = await pageAt(1000);
  for (const [key, label, said] of [
    ["a", "yes", /^answered by alice \d{4}-\d\d-\d\d.*: “looks right”$/],
    ["b", "no", /^answered by bob \d{4}-\d\d-\d\d[^“]*$/],
  ] as const) {
    await openCell(page, "fate", key);
    const d = page.locator('.cell-panel .decision[data-question="ok"]');
    await d.waitFor();
    assert.equal(await d.locator(".answer-line").innerText(), `ok = ${label} confidence 1.000`);
    assert.match(await d.locator('[data-fact="review"] dd').innerText(), said);
    assert.equal(await d.locator('[data-fact="threshold"]').count(), 0, "people answer without a threshold");
  }
  await shot(page, "cell-reviewed", 1000);
  assert.deepEqual(errors, []);
  await page.close();
});

test(
  "a revise cell shows its rounds (prompt, output, feedback), not raw events; a failed cell's error reads once",
  { skip, timeout: 60_000 },
  async () => {
    const { page, errors } = await pageAt(1000);
    await openCell(page, "fix", "a");
    await page.locator(".cell-panel details.round").first().waitFor();
    const rounds = await page.locator(".cell-panel details.round").evaluateAll((els) =>
      (els as HTMLElement[]).map((r) => ({
        summary: r.querySelector("summary").textContent,
        prompt: r.querySelector("pre.prompt")?.textContent ?? null,
        output: r.querySelector("pre.round-output").textContent,
        feedback: r.querySelector("pre.feedback")?.textContent ?? null,
      })),
    );
    assert.deepEqual(rounds, [
      {
        summary: "round 1: the reviewer said revise",
        prompt: "Draft a fix for a. Feedback: ",
        output: JSON.stringify({ text: "draft after: " }, null, 2),
        feedback: "round 1: name the owner",
      },
      {
        summary: "round 2: the reviewer said accept",
        prompt: "Draft a fix for a. Feedback: round 1: name the owner",
        output: JSON.stringify({ text: "draft after: round 1: name the owner" }, null, 2),
        feedback: "round 2: name the owner",
      },
    ]);
    assert.equal(await page.locator(".cell-panel details.events-log").getAttribute("open"), null, "the raw events are folded away");
    await shot(page, "cell-revise", 1000);
    await openCell(page, "fix", "b");
    const error = page.locator(".cell-panel pre.error");
    await error.waitFor();
    // The code once, as the message begins with it; never "error[revise-failed]: revise-failed: …"
    // (and no rule id: the page is for people, as the terminal is).
    assert.equal(await error.innerText(), "revise-failed: the reviewer did not accept within max_rounds = 2 rounds");
    assert.deepEqual(errors, []);
    await page.close();
  },
);

test(
  "a not-taken cell says why it did not run: the gate, and the route's answer that closed it, linked",
  { skip, timeout: 60_000 },
  async () => {
    const { page, errors } = await pageAt(1000);
    await openCell(page, "autofix", "b");
    const why = page.locator(".cell-panel .cell-section", { hasText: "why not run" });
    await why.waitFor();
    assert.equal(await why.locator(".why-reason").innerText(), "gate closed: triage.action answered manual");
    assert.equal(await why.locator(".meta").innerText(), "gate: runs when triage.action ∈ autofix");
    // b's action: manual at 0.70 (the table's), against the route's min_confidence 0.6.
    assert.equal(
      await why.locator(".why-answer").innerText(),
      `the route answered triage[b].action = manual, confidence ${TABLE.b.action.manual.toFixed(3)} (min_confidence 0.60)`,
    );
    await shot(page, "cell-not-taken", 1000);
    await why.locator(".why-answer a").click();
    await page.locator('.cell-panel .decision[data-question="action"]').waitFor();
    assert.match(page.url(), new RegExp(`#/runs/${fx.run}/cell/triage/b$`));
    assert.deepEqual(errors, []);
    await page.close();
  },
);

test(
  "the run list counts decisions as the CLI does (each question answered), and the lab's disagreements link to their cells",
  { skip, timeout: 60_000 },
  async () => {
    const { page, errors } = await pageAt(1000);
    await page.goto(ui.url);
    const row = page.locator(`tr[data-run="${fx.run}"]`);
    await row.waitFor();
    // Each question answered: triage 2 keys × 2 questions, sev, lang and fate 2 × 1 each.
    assert.equal(await row.locator("td").last().innerText(), "10");
    await page.goto(new URL(`/labs/${fx.lab}`, ui.url).href);
    const links = page.locator("table.disagreements a");
    // lang: the host said go to both keys, the model rust to a (0.7) and go to b: one disagreement.
    assert.deepEqual(await links.allTextContents(), ["a"]);
    // Fewer than 30 pairs: figures are starred, so the footnote says what the star means.
    assert.equal(await page.locator("p.footnote").count(), 1);
    await links.first().click();
    await page.locator('.cell-panel .decision[data-question="lang"]').waitFor();
    assert.match(page.url(), new RegExp(`#/runs/${fx.run}/cell/lang/a$`));
    assert.deepEqual(errors, []);
    await page.close();
  },
);
