// H-2: the HTML harvest opened in headless Chromium — the diagrams render, carry one point per
// non-empty band and one per threshold, the page names every judgement type, and it fetches nothing.

import { test, after } from "node:test";
import assert from "node:assert/strict";
import { existsSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { pathToFileURL } from "node:url";
import { chromium, type BrowserContext, type Request } from "playwright-core";
import { CHROMIUM, CHROMIUM_ARGS } from "../ui/support.js";
import { spawnCliInProcess } from "../support/cli-in-process.js";

// Names chosen to need escaping, so the test also proves they are shown as text.
const TYPES = ["triage.gate.relevant", "triage.pick.team", 'odd<&>"type"'];

function lines(): string {
  let out = "";
  let n = 0;
  TYPES.forEach((type, ti) => {
    // Type 0 spreads over all bands; type 1 only high confidences; type 2 a single answer.
    const confidences = ti === 0 ? [0.3, 0.45, 0.55, 0.65, 0.75, 0.85, 0.92, 0.97, 0.99] : ti === 1 ? [0.91, 0.96, 0.98] : [0.72];
    for (const c of confidences) {
      const label = n % 4 === 0 ? "no" : "yes";
      out +=
        JSON.stringify({
          lab: "l",
          time: "2026-12-02T00:00:00Z",
          run: "r",
          type,
          task: "gate",
          key: `k${n++}`,
          question: { id: "q", kind: "noul", labels: ["yes", "no"] },
          state_digest: `sha256:${n}`,
          host_label: "yes",
          model: {
            provider: "sys1",
            model: "jev",
            label,
            probabilities: { [label]: c, [label === "yes" ? "no" : "yes"]: 1 - c },
            confidence: c,
            refused: false,
            latency_ms: 1,
            usage: null,
          },
        }) + "\n";
    }
  });
  return out;
}

const skip = !existsSync(CHROMIUM) && !process.env.CI ? `${CHROMIUM} is not installed (CI installs it)` : false;

// One headless Chromium for the file's tests (each opens its own page), started by the first.
let shared: Promise<BrowserContext> | undefined;
const profile = mkdtempSync(join(tmpdir(), "switchyard-chromium-"));
function sharedContext(): Promise<BrowserContext> {
  shared ??= chromium.launchPersistentContext(profile, {
    executablePath: CHROMIUM,
    headless: true,
    args: CHROMIUM_ARGS,
  });
  return shared;
}
after(async () => {
  if (shared) await (await shared).close();
  rmSync(profile, { recursive: true, force: true });
});

test("H-2: the HTML report renders its diagrams in Chromium and names each judgement type", { skip, timeout: 90_000 }, async () => {
  const dir = mkdtempSync(join(tmpdir(), "switchyard-html-"));
  try {
    const pairs = join(dir, "pairs.jsonl");
    writeFileSync(pairs, lines());
    const html = join(dir, "report.html");
    const r = await spawnCliInProcess(["lab", "harvest", pairs, "--json", "--html", html]);
    assert.equal(r.status, 0, r.stderr);
    const rep = JSON.parse(r.stdout) as { types: Array<{ type: string; bands: Array<{ n: number }> }> };
    const expectedPoints = rep.types.map((t) => t.bands.filter((b) => b.n > 0).length);
    assert.deepEqual(expectedPoints, [1, 6, 2]); // types sorted: odd… (one answer), gate (all six bands), pick (two)

    const context = await sharedContext();
    const requests: string[] = [];
    const onRequest = (req: Request) => requests.push(req.url());
    context.on("request", onRequest);
    const page = await context.newPage();
    try {
      const errors: string[] = [];
      page.on("pageerror", (e) => errors.push(String(e)));
      page.on("console", (m) => {
        if (m.type() === "error") errors.push(m.text());
      });
      await page.goto(pathToFileURL(html).href);
      const sections = page.locator("section.type");
      // One section per type, plus the overall one.
      assert.equal(await sections.count(), TYPES.length + 1);
      const body = await page.locator("body").innerText();
      for (const t of TYPES) assert.ok(body.includes(t), `page does not name ${t}`);
      for (const [i, t] of rep.types.entries()) {
        const section = sections.nth(i);
        assert.equal(await section.locator("h2").innerText(), t.type);
        const reliability = section.locator("svg.reliability");
        const box = await reliability.boundingBox();
        assert.ok(box && box.width > 100 && box.height > 100, `reliability diagram of ${t.type} has no size`);
        assert.equal(await reliability.locator("circle.point").count(), expectedPoints[i], `points of ${t.type}`);
        assert.equal(await reliability.locator("line.diagonal").count(), 1);
        const pointBox = await reliability.locator("circle.point").first().boundingBox();
        assert.ok(pointBox && pointBox.width > 0, "points are drawn");
        const curve = section.locator("svg.coverage-curve polyline.coverage");
        const curveBox = await curve.boundingBox();
        assert.ok(curveBox && curveBox.width > 100, `coverage curve of ${t.type} has no width`);
        const points = await curve.evaluate((el) => (el as unknown as { points: { numberOfItems: number } }).points.numberOfItems);
        assert.equal(points, 101, "one coverage point per threshold 0.00 … 1.00");
        assert.equal(await section.locator("table.confusion tr").count(), 2, "header and the host's one label");
      }
      assert.deepEqual(errors, []);
      assert.deepEqual(
        requests.filter((u) => !u.startsWith("file:")),
        [],
        "the report fetches nothing",
      );
    } finally {
      context.off("request", onRequest);
      await page.close();
    }
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

/** A type with a known miscalibration: the model says 0.9 on every answer and agrees on keys not divisible by 3. */
function calibratedLines(): string {
  let out = "";
  for (let i = 0; i < 60; i++) {
    const type = i < 45 ? "t.cal" : "t.plain";
    const c = i % 2 ? 0.95 : 0.72;
    const agree = type === "t.cal" ? (c > 0.9 ? i % 5 !== 0 : i % 3 !== 0) : i % 7 !== 0;
    const label = agree ? "yes" : "no";
    out +=
      JSON.stringify({
        lab: "l",
        time: "2026-12-02T00:00:00Z",
        run: `run-${i % 2}`,
        type,
        task: "gate",
        key: `k${i}`,
        question: { id: "q", kind: "noul", labels: ["yes", "no"] },
        state_digest: `sha256:${i}`,
        host_label: "yes",
        model: {
          provider: "sys1",
          model: "jev",
          label,
          probabilities: { [label]: c, [agree ? "no" : "yes"]: 1 - c },
          confidence: c,
          refused: false,
          latency_ms: 1,
          usage: null,
        },
      }) + "\n";
  }
  return out;
}

test(
  "the HTML harvest in Chromium shows the summary table, each type's disagreeing keys, and reliability before and after calibration",
  { skip, timeout: 90_000 },
  async () => {
    const dir = mkdtempSync(join(tmpdir(), "switchyard-html-"));
    try {
      const pairs = join(dir, "pairs.jsonl");
      writeFileSync(pairs, calibratedLines());
      const cal = await spawnCliInProcess(["lab", "calibrate", pairs, "--type", "t.cal"]);
      assert.equal(cal.status, 0, cal.stderr);
      const html = join(dir, "report.html");
      const r = await spawnCliInProcess(["lab", "harvest", pairs, "--json", "--html", html]);
      assert.equal(r.status, 0, r.stderr);
      const rep = JSON.parse(r.stdout) as {
        types: Array<{
          type: string;
          verdict: { text: string };
          calibration: { status: string; bands: Array<{ n: number }> } | null;
          disagreements: { listed: Array<{ key: string; run: string }> };
        }>;
      };
      assert.deepEqual(
        rep.types.map((t) => [t.type, t.calibration?.status ?? null]),
        [
          ["t.cal", "fitted"],
          ["t.plain", null],
        ],
      );

      const page = await (await sharedContext()).newPage();
      try {
        await page.goto(pathToFileURL(html).href);
        const rows = page.locator("table.summary tr");
        assert.equal(await rows.count(), 3, "a header and one row per type");
        const header = await rows.nth(0).locator("th").allInnerTexts();
        assert.deepEqual(header, [
          "type",
          "pairs",
          "agreement (95% CI)",
          "kappa (95% CI)",
          "threshold",
          "coverage",
          "calibration",
          "audit",
          "verdict",
        ]);
        for (const [i, t] of rep.types.entries()) {
          const cells = await rows
            .nth(i + 1)
            .locator("td")
            .allInnerTexts();
          assert.equal(cells[0], t.type);
          assert.equal(cells[6], t.calibration ? `${t.calibration.status} platt` : "none");
          assert.equal(cells[8], t.verdict.text);
          const section = page.locator(`section.type[data-type="${t.type}"]`);
          const listed = await section.locator("table.disagreements tr").allInnerTexts();
          assert.ok(t.disagreements.listed.length > 0);
          assert.equal(listed.length, t.disagreements.listed.length + 1, `${t.type}: header and each disagreeing pair`);
          for (const [j, d] of t.disagreements.listed.entries()) {
            const row = await section
              .locator("table.disagreements tr")
              .nth(j + 1)
              .locator("td")
              .allInnerTexts();
            assert.deepEqual([row[0], row[1], row[3], row[4]], ["yes", "no", d.run, d.key], `${t.type}: disagreement ${j}`);
          }
          const before = section.locator("svg.reliability.before");
          const after = section.locator("svg.reliability.after");
          assert.equal(await before.count(), 1);
          assert.ok((await before.locator("circle.point").count()) > 0);
          if (t.calibration) {
            assert.equal(await after.count(), 1, `${t.type}: a diagram after calibration`);
            assert.equal(await after.locator("circle.point").count(), t.calibration.bands.filter((b) => b.n > 0).length);
            const box = await after.boundingBox();
            assert.ok(box && box.width > 100, "the after diagram is drawn");
            assert.match(await section.locator("p.calibration").innerText(), /calibration: fitted platt cal-[0-9a-f]{12}/);
          } else assert.equal(await after.count(), 0, `${t.type}: no calibration, no after diagram`);
        }
      } finally {
        await page.close();
      }
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  },
);
