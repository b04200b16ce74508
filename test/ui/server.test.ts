// `switchyard ui`'s API over a real state folder (the triage example's run) through a
// real child process — the documented shapes, traversal refused, nothing outside the state
// folder served, no provider key in any page or response, and live events by SSE.

import { test, before, after } from "node:test";
import assert from "node:assert/strict";
import { request } from "node:http";
import { copyFileSync, mkdirSync, readFileSync, rmSync, symlinkSync, writeFileSync } from "node:fs";
import { join, resolve } from "node:path";
import { get, runTriage, SECRET, startUi, type Triage, type Ui } from "./support.js";
import type { ApiEvent, CellDoc, GridDoc, InstancePage, RunDoc, RunListItem } from "../../src/ui/api-types.js";
import { keyDirName } from "../../src/run/engine/keys.js";

let t: Triage;
let ui: Ui;

before(async () => {
  t = runTriage();
  ui = await startUi(t.state);
});
after(async () => {
  await ui?.stop();
  if (t) rmSync(t.dir, { recursive: true, force: true });
});

/** A GET with the path sent exactly as written (fetch would normalise `..`). */
function raw(path: string, headers: Record<string, string> = {}, method = "GET"): Promise<{ status: number; body: string }> {
  const u = new URL(ui.url);
  return new Promise((done, fail) => {
    // No keep-alive: a pooled socket the server closed while the test was blocked would fail.
    const req = request({ host: u.hostname, port: u.port, path, method, headers, agent: false }, (res) => {
      let body = "";
      res.on("data", (d: Buffer) => (body += d.toString()));
      res.on("end", () => done({ status: res.statusCode!, body }));
    });
    req.on("error", fail);
    req.end();
  });
}

const json = async <T>(path: string): Promise<T> => {
  const r = await get(new URL(path, ui.url).href);
  assert.equal(r.status, 200, `${path}: ${r.text}`);
  assert.match(r.type, /application\/json/);
  return JSON.parse(r.text) as T;
};

test("/api/runs lists the run with status, playbook, counts, cost and decisions; filters apply", async () => {
  const { runs } = await json<{ runs: RunListItem[] }>("/api/runs");
  assert.equal(runs.length, 1);
  const r = runs[0]!;
  assert.equal(r.run, t.run);
  assert.equal(r.status, "passed");
  assert.equal(r.playbook, "triage");
  const all: Array<{ status: string }> = Object.values(t.shown.tasks).flatMap((task): Array<{ status: string }> =>
    task.instances ? Object.values(task.instances) : [task],
  );
  assert.equal(r.counts.passed, all.filter((i) => i.status === "passed").length);
  assert.equal(r.counts.not_taken, all.filter((i) => i.status === "not_taken").length);
  const routeAnswers = ["match", "gate", "judge"].reduce((n, name) => n + t.shown.tasks[name]!.summary!.passed, 0);
  assert.equal(r.decisions, routeAnswers);
  assert.ok(r.spent_usd > 0);
  assert.equal((await json<{ runs: RunListItem[] }>("/api/runs?status=failed")).runs.length, 0);
  assert.equal((await json<{ runs: RunListItem[] }>("/api/runs?playbook=triage")).runs.length, 1);
});

test("/api/runs/ID is show --json without mapped instances, plus the plan graph", async () => {
  const doc = await json<RunDoc>(`/api/runs/${t.run}`);
  assert.equal(doc.status, t.shown.status);
  for (const [name, task] of Object.entries(t.shown.tasks)) {
    const { instances: _i, ...rest } = task;
    assert.deepEqual(doc.tasks[name], rest, name);
  }
  const review = doc.graph.find((g) => g.name === "review")!;
  assert.deepEqual(review.depends_on, ["prepare", "match"]);
  assert.deepEqual(review.aligned_with, ["match"]);
  assert.equal(review.gate, "match.package ∈ uncertain");
  assert.ok(doc.last_seq > 100);
});

test("the grid and /instances agree with show --json for every key", async () => {
  const grid = await json<GridDoc>(`/api/runs/${t.run}/grid`);
  const letter: Record<string, string> = { passed: "P", failed: "F", not_taken: "n", blocked: "b" };
  assert.equal(grid.keys.length, 40);
  for (const { name } of grid.tasks) {
    const insts = t.shown.tasks[name]!.instances!;
    grid.keys.forEach((k, i) => {
      assert.equal(grid.status[name]![i], letter[insts[k]!.status], `${name}[${k}]`);
      if (insts[k]!.status === "not_taken") assert.equal(grid.label[name]![i], insts[k]!.label);
      if (name === "match") assert.equal(grid.label[name]![i], (insts[k]!.output as Record<string, { label: string }>).package!.label);
    });
  }
  const page = await json<InstancePage>(`/api/runs/${t.run}/instances?task=deep&status=passed&limit=3`);
  assert.equal(page.total, t.shown.tasks.deep!.summary!.passed);
  assert.equal(page.instances.length, 3);
  for (const i of page.instances) {
    const { task, key, ...rest } = i;
    assert.equal(task, "deep");
    assert.deepEqual(rest, t.shown.tasks.deep!.instances![key!]);
  }
});

test("a cell has its decision, and an agent cell its input, prompt, log and files", async () => {
  const key = Object.entries(t.shown.tasks.deep!.instances!).find(([, i]) => i.status === "passed")![0];
  const cell = await json<CellDoc>(`/api/runs/${t.run}/cells/deep?key=${encodeURIComponent(key)}`);
  assert.equal(cell.status, "passed");
  assert.equal(cell.attempt_files.length, 1);
  const a = cell.attempt_files[0]!;
  assert.match(a.prompt!, new RegExp(`Investigate reachability of ${key}`));
  assert.equal((a.input as { key: string }).key, key);
  assert.ok(a.files.some((f) => f.path === "RESULT.json"));
  const file = await json<{ text: string }>(`/api/runs/${t.run}/cells/deep/file?key=${encodeURIComponent(key)}&attempt=1&path=RESULT.json`);
  assert.deepEqual(JSON.parse(file.text), (cell.output as { files: Record<string, unknown> }).files["RESULT.json"]);
  const plain = await get(
    new URL(`/api/runs/${t.run}/cells/deep/file?key=${encodeURIComponent(key)}&attempt=1&path=RESULT.json&format=text`, ui.url).href,
  );
  assert.match(plain.type, /^text\/plain/);
  assert.equal(plain.text, file.text);

  const match = await json<CellDoc>(`/api/runs/${t.run}/cells/match?key=${encodeURIComponent(key)}`);
  const record = t.shown.tasks.match!.instances![key]!.output as Record<string, { probabilities: Record<string, number>; mode: string }>;
  assert.deepEqual(match.decisions[0]!.probabilities, record.package!.probabilities);
  assert.equal(match.decisions[0]!.mode, record.package!.mode);
  assert.deepEqual(
    match.events.map((e) => e.type),
    ["instance_started", "decision_recorded"],
  );
  assert.equal((await get(new URL(`/api/runs/${t.run}/cells/match?key=nope`, ui.url).href)).status, 404);
  assert.equal((await get(new URL(`/api/runs/${t.run}/cells/prepare?key=x`, ui.url).href)).status, 404, "an unmapped task has no keys");
});

test("path traversal is refused and nothing outside the state folder is served", async () => {
  for (const p of [
    "/api/runs/../../",
    "/api/runs/../../etc/passwd",
    "/api/runs/%2e%2e/%2e%2e/etc/passwd",
    "/assets/..%2f..%2fpackage.json",
    "/api/runs/a%00b",
    "/api/runs/..%5c..%5cx",
    "/labs/..",
    "/./api/runs",
  ]) {
    const r = await raw(p);
    assert.equal(r.status, 400, `${p} -> ${r.status} ${r.body}`);
    assert.equal(JSON.parse(r.body).error.code, "ui-path-refused");
  }
  const key = Object.keys(t.shown.tasks.deep!.instances!).find((k) => t.shown.tasks.deep!.instances![k]!.status === "passed")!;
  const ws = join(t.state, "runs", t.run, "work", "deep", `${keyDirName(key)}.a1`);
  symlinkSync("/etc/passwd", join(ws, "passwd-link"));
  mkdirSync(join(ws, "sub"));
  symlinkSync("/etc", join(ws, "etc-link"));
  const q = (path: string) =>
    `/api/runs/${t.run}/cells/deep/file?key=${encodeURIComponent(key)}&attempt=1&path=${encodeURIComponent(path)}`;
  for (const p of [
    "../../../../switchyard.db",
    "/etc/passwd",
    "passwd-link",
    "etc-link/passwd",
    "sub/../../../../../switchyard.db",
    "",
    ".",
  ]) {
    const r = await raw(q(p));
    assert.equal(r.status, 404, `${p} -> ${r.status} ${r.body}`);
    assert.doesNotMatch(r.body, /root:/);
  }
  const cell = await json<CellDoc>(`/api/runs/${t.run}/cells/deep?key=${encodeURIComponent(key)}`);
  assert.ok(!cell.attempt_files[0]!.files.some((f) => f.path.includes("link")), "links are not listed");
  assert.equal((await raw("/api/runs/nope")).status, 404);
  assert.equal((await raw("/api/runs", {}, "POST")).status, 405);
  assert.equal((await raw("/api/runs", { host: "evil.example:80" })).status, 421, "a foreign Host header is refused (DNS rebinding)");
});

test("no page or API response shows the provider key from the environment", async () => {
  const paths = [
    "/",
    "/assets/app.js",
    "/assets/app.css",
    "/api/runs",
    `/api/runs/${t.run}`,
    `/api/runs/${t.run}/grid`,
    `/api/runs/${t.run}/instances?limit=5000`,
    `/api/runs/${t.run}/events?limit=10000`,
    "/api/labs",
  ];
  for (const task of ["match", "review", "gate", "quick", "deep", "judge", "recheck"])
    for (const key of Object.keys(t.shown.tasks[task]!.instances!))
      paths.push(`/api/runs/${t.run}/cells/${task}?key=${encodeURIComponent(key)}`);
  paths.push(`/api/runs/${t.run}/cells/prepare`, `/api/runs/${t.run}/cells/report`);
  const { labs } = await json<{ labs: Array<{ id: string }> }>("/api/labs");
  assert.ok(labs.length > 0, "the example's shadow decisions made a lab");
  for (const l of labs) paths.push(`/labs/${l.id}`);
  let bytes = 0;
  for (const p of paths) {
    const r = await get(new URL(p, ui.url).href);
    assert.equal(r.status, 200, p);
    bytes += r.text.length;
    assert.ok(!r.text.includes(SECRET), `${p} shows the provider key`);
  }
  assert.ok(bytes > 100_000, "the responses were read");
});

test("/events after SEQ as JSON, and as server-sent events", async () => {
  const all = await json<{ events: ApiEvent[]; last_seq: number }>(`/api/runs/${t.run}/events?after=0&limit=10000`);
  assert.equal(all.events[0]!.type, "plan_admitted");
  assert.equal(all.events.at(-1)!.type, "run_finished");
  const tail = await json<{ events: ApiEvent[] }>(`/api/runs/${t.run}/events?after=${all.last_seq - 3}`);
  assert.deepEqual(
    tail.events.map((e) => e.seq),
    [all.last_seq - 2, all.last_seq - 1, all.last_seq],
  );
  const ac = new AbortController();
  const r = await fetch(new URL(`/api/runs/${t.run}/events?after=${all.last_seq - 2}`, ui.url), {
    headers: { accept: "text/event-stream" },
    signal: ac.signal,
  });
  assert.match(r.headers.get("content-type")!, /text\/event-stream/);
  const reader = r.body!.getReader();
  let text = "";
  while (!text.includes("\n\nid:") && !/data: .*\n\n/.test(text)) text += new TextDecoder().decode((await reader.read()).value);
  ac.abort();
  const data = JSON.parse(/data: (.*)\n/.exec(text)![1]!) as ApiEvent[];
  assert.deepEqual(
    data.map((e) => e.seq),
    [all.last_seq - 1, all.last_seq],
  );
  assert.match(text, new RegExp(`id: ${all.last_seq}\\n`));
});

test("a lab's page reports the calibration.json in its folder, as `lab harvest` does; a broken one is a warning", async () => {
  const { labs } = await json<{ labs: Array<{ id: string }> }>("/api/labs");
  const id = labs[0]!.id;
  const file = join(t.state, "labs", id, "calibration.json");
  const page = async (): Promise<string> => {
    const r = await get(new URL(`/labs/${id}`, ui.url).href);
    assert.equal(r.status, 200, r.text);
    return r.text;
  };
  try {
    assert.doesNotMatch(await page(), /cal-[0-9a-f]{12}/, "no calibration file, none reported");
    // The example's own map for gate.depth: the run's gate decisions are audited against its baseline.
    copyFileSync(resolve("examples/cve-triage/lab/calibration.json"), file);
    const shipped = JSON.parse(readFileSync(file, "utf8")) as { types: Record<string, { id: string }> };
    const html = await page();
    assert.match(html, /<tr><td>triage\.gate\.depth<\/td>(<td>[^<]*<\/td>){5}<td>fitted platt<\/td>/);
    assert.ok(html.includes(shipped.types["triage.gate.depth"]!.id), "names the map");
    assert.match(html, /<p class="audit">audit: \d+ answered, agreement [\d.]+% .* vs calibration 90\.3%/);
    writeFileSync(file, "{ not json");
    assert.match(await page(), /<p class="warn">warning: cannot read the calibration file .*calibration\.json/);
  } finally {
    rmSync(file, { force: true });
  }
});
