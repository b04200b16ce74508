// The review page in headless Chromium (Debian's, driven by playwright-core) against a real
// `switchyard ui` and a real run that stays up while four elements wait for review (D-62, D-63):
// a page opened without the token lists the queue but cannot answer and says how to get the token
// address; the printed address's token moves into the tab and out of the address bar; two elements
// are answered through their forms and show as answered; one answered with `switchyard review`
// shows as no longer waiting on the live page; a second answer from a stale page, a label the
// question does not have and a missing name are refused in words; and the run finishes once the
// form answers the last element.

import { test, before, after } from "node:test";
import assert from "node:assert/strict";
import { spawn, type ChildProcess } from "node:child_process";
import { existsSync, mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { chromium, type BrowserContext, type Page } from "playwright-core";
import { BIN, CHROMIUM, CHROMIUM_ARGS, startUi, type Ui } from "./support.js";
import { both, modelYes, reviewPack, tokenOf, unsure, type ReviewPack } from "./review-support.js";
import { until } from "../support/assertions.js";

const skip = !existsSync(CHROMIUM) && !process.env.CI ? `${CHROMIUM} is not installed (CI installs it)` : false;
const N = 12;

let pack: ReviewPack;
let ui: Ui;
let running: ChildProcess;
let exited: Promise<number | null>;
let stderr = "";
let context: BrowserContext;
let profile: string;

before(async () => {
  if (skip) return;
  pack = reviewPack(N);
  running = spawn(process.execPath, [BIN, "run", "pack", "--quiet"], {
    cwd: pack.dir.path,
    env: pack.env,
    stdio: ["ignore", "ignore", "pipe"],
  });
  running.stderr!.on("data", (b: Buffer) => (stderr += b.toString()));
  exited = new Promise((done) => running.once("exit", (code) => done(code)));
  await until(
    "only waiting elements are left",
    () => /only \d+ element\(s\) waiting for review/.test(stderr) || running.exitCode !== null,
    120000,
  );
  assert.equal(running.exitCode, null, stderr);
  ui = await startUi(pack.state);
  profile = mkdtempSync(join(tmpdir(), "sy-ui-review-chromium-"));
  context = await chromium.launchPersistentContext(profile, { executablePath: CHROMIUM, headless: true, args: CHROMIUM_ARGS });
});
after(async () => {
  await context?.close();
  await ui?.stop();
  if (running && running.exitCode === null && running.signalCode === null) running.kill("SIGKILL");
  pack?.dir.cleanup();
  if (profile) rmSync(profile, { recursive: true, force: true });
});

async function newPage(): Promise<{ page: Page; errors: string[] }> {
  const page = await context.newPage();
  const errors: string[] = [];
  page.on("pageerror", (e) => errors.push(String(e)));
  return { page, errors };
}

const listed = () => pack.waiting();
const form = (page: Page, key: string) => page.locator(`form.review-item[data-key="${key}"]`);

/** Chooses the labels of an element's form, writes the note, and sends it. */
async function answer(page: Page, key: string, labels: { exploitable: string; reach: string }, note = ""): Promise<void> {
  const f = form(page, key);
  await f.locator(`input[data-question="exploitable"][value="${labels.exploitable}"]`).check();
  await f.locator(`input[data-question="reach"][value="${labels.reach}"]`).check();
  if (note) await f.locator("input.note").fill(note);
  await f.locator("button[type=submit]").click();
}

test(
  "D-63: a review page opened without the token lists the queue, cannot answer, and says how to get the token address",
  { skip, timeout: 120_000 },
  async () => {
    const { page, errors } = await newPage();
    await page.goto(`${ui.url}#/review`);
    await page.locator("form.review-item").first().waitFor();
    const waiting = pack.keys.filter(unsure);
    assert.deepEqual(
      (
        await page
          .locator("form.review-item")
          .evaluateAll((fs) => fs.map((f) => (f as unknown as { dataset: { key: string } }).dataset.key))
      ).sort(),
      [...waiting].sort(),
    );
    // The model's answers are shown beside the choices, and the element's state.
    const first = form(page, "e3");
    assert.match(await first.innerText(), /the model answered yes \(confidence 0\.60\)/);
    assert.match(await first.innerText(), /the model answered local \(confidence 0\.55\)/);
    assert.match((await first.locator(".review-state pre").textContent()) ?? "", /e3/);
    assert.match(
      await page.locator(".review-blocked").innerText(),
      /not opened from the address `switchyard ui` printed \(it ends in #token=…/,
    );
    assert.equal(await first.locator("button[type=submit]").isDisabled(), true);
    // Forcing the button on does not help: the server refuses the write, and the page says why.
    await page.locator("input.reviewer").fill("mallory");
    await first.locator("button[type=submit]").evaluate((b) => ((b as unknown as { disabled: boolean }).disabled = false));
    await answer(page, "e3", { exploitable: "yes", reach: "network" });
    await page.waitForFunction(() => /Not recorded/.test(document.querySelector('form[data-key="e3"] .review-result')?.textContent ?? ""));
    assert.match(await first.locator(".review-result").innerText(), /a write needs the token of the address `switchyard ui` printed/);
    assert.deepEqual(listed(), both(waiting));
    assert.deepEqual(errors, []);
    await page.close();
  },
);

// The page functions run in the browser; this Node program has no DOM types.
declare const document: { querySelector(s: string): { textContent: string | null } | null };
declare const location: { href: string; hash: string };
declare const sessionStorage: { getItem(k: string): string | null };

test(
  "D-63: the token address answers through the form: two show answered, one answered by the CLI shows ended live, a stale answer, a bad label and a missing name are refused in words, the run finishes with the last",
  { skip, timeout: 180_000 },
  async () => {
    const { token } = tokenOf(ui.printed);
    const { page, errors } = await newPage();
    await page.goto(ui.printed);
    await page.locator("a.review-link").waitFor();
    // The token left the address bar for the tab's sessionStorage; the runs page links to the queue.
    assert.equal(await page.evaluate(() => location.hash), "#/");
    assert.ok(!(await page.evaluate(() => location.href)).includes(token));
    assert.equal(await page.evaluate(() => sessionStorage.getItem("switchyard.write-token")), token);
    assert.equal(await page.locator("a.review-link").innerText(), "review queue: 4 element(s) waiting");
    await page.locator("a.review-link").click();
    await form(page, "e3").waitFor();
    assert.equal(await page.locator(".review-blocked").count(), 0);
    assert.ok(!(await page.content()).includes(token), "the token is not on the page");

    // A missing name is refused before anything is sent (the field holds the name given last, by the
    // test above: emptied here).
    assert.equal(await page.locator("input.reviewer").inputValue(), "mallory");
    await page.locator("input.reviewer").fill("");
    await answer(page, "e3", { exploitable: "no", reach: "network" });
    assert.match(await form(page, "e3").locator(".review-result").innerText(), /Give your name above/);
    await page.locator("input.reviewer").fill("alice");
    await form(page, "e3").locator("button[type=submit]").click();
    await form(page, "e3").and(page.locator(".answered")).waitFor();
    assert.match(await form(page, "e3").locator(".review-result").innerText(), /Answered exploitable = no, reach = network by alice/);
    await answer(page, "e6", { exploitable: "yes", reach: "local" }, "reachable through the CLI");
    await form(page, "e6").and(page.locator(".answered")).waitFor();
    assert.match(
      await form(page, "e6").locator(".review-result").innerText(),
      /Answered exploitable = yes, reach = local by alice \(note: reachable through the CLI\)/,
    );
    assert.equal(await page.locator("form.review-item.answered").count(), 2);
    assert.deepEqual(listed(), both(["e9", "e12"]));

    // A second tab opened from the printed address, its live updates cut off (so that it stays
    // stale), shows the queue as it was, with the name remembered. Meanwhile bob answers e9 with
    // `switchyard review`: the live first tab marks it as no longer waiting, and the stale tab's
    // answer to it is refused in words. A label the question does not have (the page offers none:
    // a radio's value altered) is refused in words too.
    const { page: stale } = await newPage();
    await stale.route("**/api/stream", (r) => r.abort());
    await stale.goto(ui.printed);
    // The runs page first, whole, then the queue (a page still loading when the address changes can
    // draw over the next one: the router does not cancel it).
    await stale.locator("a.review-link").waitFor();
    await stale.locator("a.review-link").click();
    await form(stale, "e9").waitFor();
    assert.equal(await stale.locator("input.reviewer").inputValue(), "alice");
    const byCli = pack.cli("review", "latest", "--key", "e9", "--answer", "exploitable=no", "--answer", "reach=local", "--as", "bob");
    assert.equal(byCli.status, 0, byCli.stderr);
    await form(page, "e9").and(page.locator(".ended")).waitFor();
    assert.match(await form(page, "e9").locator(".review-result").innerText(), /No longer waits: answered elsewhere/);
    assert.equal(await form(page, "e9").locator("button[type=submit]").isDisabled(), true);
    const refusedIn = async (key: string, pattern: RegExp) => {
      await stale.waitForFunction(
        (k) => /Not recorded/.test(document.querySelector(`form[data-key="${k}"] .review-result`)?.textContent ?? ""),
        key,
      );
      assert.match(await form(stale, key).locator(".review-result").innerText(), pattern);
    };
    await answer(stale, "e9", { exploitable: "yes", reach: "local" });
    await refusedIn("e9", /^Not recorded: no question of gate\[e9\] waits for review in run \S+ \(/);
    await form(stale, "e12")
      .locator('input[data-question="reach"][value="local"]')
      .evaluate((i) => ((i as unknown as { value: string }).value = "maybe"));
    await answer(stale, "e12", { exploitable: "yes", reach: "maybe" });
    await refusedIn("e12", /^Not recorded: 'maybe' is not an answer to question 'reach' \(answer one of: local, network, uncertain\)$/);
    assert.deepEqual(listed(), both(["e12"]));

    // The last answer, from the live tab: the run, up all along, finishes.
    await answer(page, "e12", { exploitable: "yes", reach: "network" }, "last one");
    await form(page, "e12").and(page.locator(".answered")).waitFor();
    assert.equal(await exited, 0, stderr);
    const shown = JSON.parse(pack.cli("show", "latest", "--json").stdout) as {
      status: string;
      tasks: {
        gate: {
          instances: Record<
            string,
            {
              output: Record<
                string,
                { label: string; mode: string; probabilities: Record<string, number>; review: { by: string; note?: string } }
              >;
            }
          >;
        };
      };
    };
    assert.equal(shown.status, "passed");
    const expected: Array<[string, string, string, string | undefined, string]> = [
      ["e3", "no", "network", undefined, "alice"],
      ["e6", "yes", "local", "reachable through the CLI", "alice"],
      ["e9", "no", "local", undefined, "bob"],
      ["e12", "yes", "network", "last one", "alice"],
    ];
    for (const [key, exploitable, reach, note, by] of expected) {
      const out = shown.tasks.gate.instances[key]!.output;
      assert.deepEqual(
        [out.exploitable!.label, out.exploitable!.mode, out.exploitable!.probabilities[exploitable]],
        [exploitable, "host", 1],
        key,
      );
      assert.deepEqual([out.reach!.label, out.reach!.review.by, out.exploitable!.review.note], [reach, by, note], key);
    }
    const fixed = readFileSync(pack.fixLog, "utf8").split("\n").filter(Boolean).sort();
    assert.deepEqual(fixed, [...pack.keys.filter((k) => !unsure(k) && modelYes(k)), "e6", "e12"].sort());
    assert.deepEqual(errors, []);
  },
);
