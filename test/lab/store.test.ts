// The lab store (H-1): labs, the current pointer, the sink that appends whole lines, and what a
// pairs file must never hold (states, secrets).

import { test } from "node:test";
import assert from "node:assert/strict";
import { existsSync, mkdtempSync, readFileSync, readdirSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { spawn } from "node:child_process";
import { currentLabId, labsDir, listLabs, newLab, newLabId, openLabSink, pairsPath, resolveLab, LabError } from "../../src/lab/store.js";
import { stateDigest } from "../../src/decide/pair.js";
import { harvest } from "../../src/lab/harvest.js";
import { renderHtml } from "../../src/lab/report-html.js";
import type { ShadowPair } from "../../src/decide/pair.js";

function tmp(): string {
  return mkdtempSync(join(tmpdir(), "switchyard-lab-"));
}

function samplePair(n: number, reason?: string): Omit<ShadowPair, "lab"> {
  const base = {
    time: new Date(0).toISOString(),
    run: "run-1",
    type: "triage.gate.relevant",
    task: "gate",
    key: `k${n}`,
    question: { id: "relevant", kind: "noul" as const, labels: ["yes", "no"] },
    state_digest: stateDigest(`{"n":${n}}`),
    host_label: "yes",
  };
  if (reason !== undefined) return { ...base, skipped: { provider: "sys1", model: "jev", reason } };
  return {
    ...base,
    model: {
      provider: "sys1",
      model: "jev",
      label: "yes",
      probabilities: { yes: 0.8, no: 0.2 },
      confidence: 0.8,
      refused: false,
      latency_ms: 4,
      usage: { input_tokens: 10 },
    },
  };
}

test("H-1: lab new makes a lab with lab.json and pairs.jsonl, and makes it current", () => {
  const dir = tmp();
  try {
    assert.deepEqual(listLabs(dir), []);
    assert.throws(
      () => resolveLab(dir),
      (e: unknown) => e instanceof LabError && e.code === "lab-none",
    );
    const a = newLab(dir, "first");
    assert.match(a.id, /^lab-\d{12}-[0-9a-f]{4}$/);
    assert.deepEqual(JSON.parse(readFileSync(join(labsDir(dir), a.id, "lab.json"), "utf8")), a);
    assert.equal(readFileSync(pairsPath(dir, a.id), "utf8"), "");
    assert.equal(currentLabId(dir), a.id);
    const b = newLab(dir, "second");
    assert.equal(currentLabId(dir), b.id);
    const labs = listLabs(dir);
    assert.deepEqual(labs.map((l) => [l.note, l.current]).sort(), [
      ["first", false],
      ["second", true],
    ]);
    assert.equal(resolveLab(dir, a.id).note, "first");
    assert.equal(resolveLab(dir).id, b.id);
    // A near miss gets a did-you-mean.
    assert.throws(
      () => resolveLab(dir, a.id.slice(0, -1) + (a.id.endsWith("0") ? "1" : "0")),
      (e: unknown) => e instanceof LabError && e.code === "lab-unknown" && (e.hint ?? "").includes("did you mean"),
    );
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

test("H-1: lab ids are readable and sort by the time they were made", () => {
  const early = newLabId(new Date("2026-01-02T03:04:05Z"));
  const late = newLabId(new Date("2026-11-30T23:59:59Z"));
  assert.match(early, /^lab-260102030405-[0-9a-f]{4}$/);
  assert.ok(early < late);
});

test("H-1: a shadow pair with no lab creates one and makes it current", () => {
  const dir = tmp();
  try {
    const sink = openLabSink(dir);
    assert.equal(sink.labId(), null);
    sink.append(samplePair(1));
    sink.append(samplePair(2, "window"));
    sink.close();
    const id = currentLabId(dir);
    assert.ok(id !== null);
    assert.equal(sink.labId(), id);
    const lines = readFileSync(pairsPath(dir, id), "utf8").split("\n");
    assert.equal(lines.length, 3);
    assert.equal(lines[2], "");
    const first = JSON.parse(lines[0]!) as ShadowPair;
    assert.equal(first.lab, id);
    assert.deepEqual(Object.keys(first), ["lab", "time", "run", "type", "task", "key", "question", "state_digest", "host_label", "model"]);
    assert.deepEqual(JSON.parse(lines[1]!).skipped, { provider: "sys1", model: "jev", reason: "window" });
    // The next sink uses the same current lab.
    const again = openLabSink(dir);
    again.append(samplePair(3));
    again.close();
    assert.equal(again.labId(), id);
    assert.equal(listLabs(dir).length, 1);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

// A child that appends `count` pairs, some far longer than a pipe buffer, through openLabSink.
const APPENDER = `
const { openLabSink } = await import(${JSON.stringify(resolve("dist/src/lab/store.js"))});
const { existsSync } = await import("node:fs");
const [dir, who, count] = process.argv.slice(1);
const sink = openLabSink(dir);
// Start together: say ready, then wait for the parent's go file.
process.stdout.write("ready\\n");
while (!existsSync(dir + "/go")) Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, 2);
for (let i = 0; i < Number(count); i++) {
  const reason = "error: " + String(who).repeat(i % 50 === 0 ? 70000 : 1 + (i % 300));
  sink.append({ time: new Date().toISOString(), run: "run-" + who, type: "t." + who, task: "gate", key: who + "-" + i,
    question: { id: "q", kind: "noul", labels: ["yes", "no"] }, state_digest: "sha256:00", host_label: "yes",
    skipped: { provider: "p", model: "m", reason } });
}
sink.close();
`;

function runNode(
  args: string[],
  env: NodeJS.ProcessEnv = process.env,
  onReady?: () => void,
): Promise<{ code: number | null; stderr: string }> {
  return new Promise((done, fail) => {
    const child = spawn(process.execPath, args, { stdio: ["ignore", "pipe", "pipe"], env });
    child.stdout.setEncoding("utf8").on("data", (d: string) => {
      if (d.includes("ready")) onReady?.();
    });
    let stderr = "";
    child.stderr.setEncoding("utf8").on("data", (d: string) => (stderr += d));
    child.on("error", fail);
    child.on("close", (code) => done({ code, stderr }));
  });
}

test("H-1: concurrent appenders in several processes write only whole lines, to one lab", { timeout: 60_000 }, async (t) => {
  const dir = tmp();
  try {
    const writers = ["a", "b", "c", "d"];
    const perWriter = 1500;
    let ready = 0;
    const go = () => {
      if (++ready === writers.length) writeFileSync(join(dir, "go"), "");
    };
    const results = await Promise.all(
      writers.map((w) => runNode(["--input-type=module", "-e", APPENDER, dir, w, String(perWriter)], process.env, go)),
    );
    for (const r of results) assert.equal(r.code, 0, r.stderr);
    // They raced to create the first lab; exactly one survives and is current.
    const labs = listLabs(dir);
    assert.equal(labs.length, 1, `labs: ${readdirSync(labsDir(dir)).join(", ")}`);
    const text = readFileSync(pairsPath(dir, labs[0]!.id), "utf8");
    assert.ok(text.endsWith("\n"));
    const lines = text.slice(0, -1).split("\n");
    assert.equal(lines.length, writers.length * perWriter);
    const seen = new Map<string, number>();
    for (const [n, l] of lines.entries()) {
      let p: ShadowPair;
      try {
        p = JSON.parse(l) as ShadowPair;
      } catch {
        assert.fail(`line ${n + 1} is not whole: ${l.slice(0, 80)}…`);
      }
      const who = p.run.slice(4);
      assert.equal(p.skipped?.reason.replaceAll(who, ""), "error: ", `line ${n + 1} mixes writers`);
      seen.set(who, (seen.get(who) ?? 0) + 1);
    }
    assert.deepEqual(
      [...seen.entries()].sort(),
      writers.map((w) => [w, perWriter]),
    );
    // They really ran at once: the writers' lines alternate many times in the file.
    let switches = 0;
    for (let n = 1; n < lines.length; n++)
      if (lines[n]!.slice(0, 200).match(/"run":"run-(\w)"/)?.[1] !== lines[n - 1]!.slice(0, 200).match(/"run":"run-(\w)"/)?.[1]) switches++;
    t.diagnostic(`writer switches in the file: ${switches}`);
    assert.ok(switches >= writers.length, `only ${switches} switches between writers: the appends did not overlap`);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

test("H-1: states and secrets never appear in a pairs file or a harvest", async () => {
  const dir = tmp();
  const key = "sk-live-FAKE0123456789abcdefSECRET";
  const envKey = "zz-envonly-91827364554637281";
  try {
    // The router's view: a state holding a key, serialised, and a provider error quoting it.
    const state = { repo: "acme/api", config: { OPENAI_API_KEY: key }, note: "the state text itself must not be stored" };
    const stateText = JSON.stringify(state);
    const script = `
const { openLabSink } = await import(${JSON.stringify(resolve("dist/src/lab/store.js"))});
const { stateDigest } = await import(${JSON.stringify(resolve("dist/src/decide/pair.js"))});
const [dir, stateText, key] = process.argv.slice(1);
const sink = openLabSink(dir);
const base = { time: "2026-12-02T00:00:00Z", run: "r", type: "t", task: "gate", key: null,
  question: { id: "q", kind: "noul", labels: ["yes", "no"] }, state_digest: stateDigest(stateText), host_label: "yes" };
// A careless caller passes the state and the request along: they must be dropped.
sink.append({ ...base, state: JSON.parse(stateText), request: { headers: { authorization: "Bearer " + key } },
  model: { provider: "p", model: "m", label: "yes", probabilities: { yes: 0.9, no: 0.1 }, confidence: 0.9, refused: false,
    latency_ms: 1, usage: null, raw: stateText } });
sink.append({ ...base, skipped: { provider: "p", model: "m",
  reason: "error: 401 Unauthorized: Incorrect API key provided: " + key + " (Authorization: Bearer " + key + ") env " + process.env.ACME_DECIDER_API_KEY } });
sink.close();
`;
    const r = await runNode(["--input-type=module", "-e", script, dir, stateText, key], { ...process.env, ACME_DECIDER_API_KEY: envKey });
    assert.equal(r.code, 0, r.stderr);
    const id = currentLabId(dir) as string;
    const text = readFileSync(pairsPath(dir, id), "utf8");
    assert.equal(text.split("\n").length, 3);
    for (const needle of [key, envKey, "acme/api", "must not be stored", "FAKE0123"]) {
      assert.ok(!text.includes(needle), `pairs.jsonl contains '${needle}'`);
    }
    assert.ok(text.includes(stateDigest(stateText)), "the pair carries the state's digest");
    assert.match(text, /\[redacted\]/);
    const rep = await harvest(pairsPath(dir, id));
    const outputs = JSON.stringify(rep) + renderHtml(rep);
    assert.ok(!outputs.includes(key) && !outputs.includes(envKey));
    assert.ok(existsSync(join(labsDir(dir), id, "lab.json")));
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});
