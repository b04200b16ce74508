// D-10 modes, end to end through the CLI on the SPEC appendix playbook, with a scripted host (the
// agent runner of test/e2e/support/agent.ts, which logs every host question it is asked) and a
// local System One server:
// - shadow: the host's labels are used; the model is asked beside it; exactly one pair per
//   decision goes to the lab, carrying a digest of the state, never the state or the key;
// - turned on: falls back to the host with a receipt (D-31) on 500s after retries and over the
//   context window (D-32), visible in `show --receipts` and in `show --json` records;
// - the resolver (D-30): an unlisted model or a denied vendor is reported when the run starts and
//   never asked: turned on, the host answers with a receipt (D-31); in shadow, pairs are skipped.
// (Turned on with the model answering asks the host nothing: appendix-providers.test.ts.)

import { test } from "node:test";
import assert from "node:assert/strict";
import { readdirSync, readFileSync, statSync } from "node:fs";
import { join } from "node:path";
import { startSystemOneServer, systemOneProviderToml } from "../support/systemone-server.js";
import { filesUnder } from "../support/files.js";
import { E2E, labels, rows, systemOneCounts, tickets } from "./support/harness.js";

const KEYS = ["T1", "T2", "T3", "T4", "T5"];
const KEY_ENV = "E2E_SYSTEMONE_KEY";
const SECRET = "sk-e2e-modes-5e1f0c2a9b8d7364";

const provider = (url: string, extra = "") =>
  systemOneProviderToml(url, KEY_ENV, `models = ["jev-1", "jev-small"]\nmax_retries = 1\ntimeout = "5s"\n${extra}`);

interface Pair {
  lab: string;
  run: string;
  type: string;
  task: string;
  key: string;
  question: { id: string; kind: string; labels: string[] };
  state_digest: string;
  host_label: string;
  model?: { provider: string; model: string; label: string; confidence: number };
  skipped?: { reason: string };
}

test(
  "D-10/H-1 shadow: the host's labels gate, the model answers beside it, one pair per decision, no state or key in the pairs, logs or output",
  { timeout: 60000 },
  async () => {
    // The model's default answers: match p1, gate settled, judge yes (the first label at 0.9).
    const server = await startSystemOneServer();
    const e = new E2E(tickets(KEYS));
    const host = {
      match: { T1: "p2", T2: "p2", T3: "p1", T4: "none", T5: "p1" },
      gate: { T1: "settled", T2: "quick", T3: "deep", T4: "settled", T5: "quick" },
      judge: { T2: "yes", T3: "no", T5: "yes" },
    };
    e.host(host);
    try {
      const config = e.config(`${provider(server.url)}\n[decisions]\nhost = "default"\ndefault = "shadow:s1/jev-1"\n`);
      const r = await e.sy(["run", e.pack, "--config", config], { [KEY_ENV]: SECRET, E2E_KEY_ENV: KEY_ENV });
      assert.equal(r.code, 0, `${r.out}\n${r.err}`);
      const show = await e.show();

      // The host's labels are the ones used, whatever the model said.
      assert.deepEqual(labels(show, "match"), host.match);
      assert.deepEqual(labels(show, "gate"), host.gate);
      assert.deepEqual(labels(show, "judge"), host.judge);
      assert.deepEqual(rows(show, "quick"), {
        T1: "not_taken:settled",
        T2: "passed",
        T3: "not_taken:deep",
        T4: "not_taken:settled",
        T5: "passed",
      });
      const d = (
        show.tasks.gate!.instances!.T3!.output as Record<string, { mode: string; provider: string; model: string; confidence: number }>
      ).depth;
      assert.deepEqual([d!.mode, d!.provider, d!.model, d!.confidence], ["shadow", "host", "default", 1]);
      assert.match(
        (await e.here(["show", "latest", "--task", "gate"])).out,
        /\n {2}gate\[T3\] {2}passed {2}depth=deep 1\.00 shadow host\/default\n/,
      );

      // Thirteen decisions: the host was asked each once, and so was the model.
      const decisions = Object.entries(host)
        .flatMap(([route, byKey]) => Object.keys(byKey).map((k) => `${route}[${k}]`))
        .sort();
      assert.equal(decisions.length, 13);
      assert.deepEqual(
        e
          .hostCalls()
          .map((l) => l.slice(5))
          .sort(),
        decisions,
      );
      assert.equal(server.count("/v1/systemone"), 13);
      assert.ok(Object.values(systemOneCounts(server.requests)).every((c) => c === 1));
      assert.deepEqual(e.turns(), ["deep[T3] high", "quick[T2] low", "quick[T5] low", "recheck[T3] medium"]);

      // Exactly one pair per decision, in the lab the first pair created.
      const labsDir = join(e.state, "labs");
      const labs = readdirSync(labsDir).filter((f) => f !== "current");
      assert.equal(labs.length, 1);
      const text = readFileSync(join(labsDir, labs[0]!, "pairs.jsonl"), "utf8");
      const pairs = text
        .trim()
        .split("\n")
        .map((l) => JSON.parse(l) as Pair);
      assert.deepEqual(pairs.map((p) => `${p.task}[${p.key}]`).sort(), decisions);
      for (const p of pairs) {
        const route = p.task as keyof typeof host;
        assert.equal(p.host_label, (host[route] as Record<string, string>)[p.key], `${p.task}[${p.key}] host label`);
        assert.equal(p.model?.label, { match: "p1", gate: "settled", judge: "yes" }[route]);
        assert.deepEqual([p.model?.provider, p.model?.model, p.run], ["s1", "jev-1", show.run]);
        assert.equal(p.type, `triage.${p.task}.${p.question.id}`);
        assert.match(p.state_digest, /^sha256:[0-9a-f]{64}$/);
      }
      // Never the state (the tickets' facts), never the key.
      assert.ok(!text.includes("flaw in ticket") && !text.includes("CVE-T") && !text.includes('"inputs"'), "pairs carry no state");

      // The key went to the server only: not to the state folder (store, logs, workspaces, labs),
      // not to the CLI's output, not to the agents or the host (R-20).
      assert.ok(server.requests.every((q) => q.headers.authorization === `Bearer ${SECRET}`));
      const files = filesUnder(e.state);
      assert.ok(files.some((f) => f.endsWith(".log")) && files.some((f) => f.endsWith("pairs.jsonl")));
      for (const f of files) assert.ok(!readFileSync(f).includes(SECRET), `${f} holds the key`);
      for (const out of [r.out, r.err, JSON.stringify(show), (await e.here(["show", "latest"])).out]) assert.ok(!out.includes(SECRET));
      assert.deepEqual(
        e.agentLog().filter((l) => l.startsWith("KEY")),
        [],
        "no agent or host process saw the key",
      );
    } finally {
      await server.close();
      e.cleanup();
    }
  },
);

test(
  "D-31/D-32 turned on: 500s after retries and an over-window request fall back to the host with receipts, in show --receipts and the records",
  { timeout: 60000 },
  async () => {
    // match: jev-1, which answers 500 for T3 (max_retries = 1: two tries); gate: jev-small, whose
    // context window no state fits; judge: jev-1, answering.
    const server = await startSystemOneServer({
      answer: (req) =>
        (req.state as { key?: string }).key === "T3" && req.questions.package
          ? { status: 500, json: { detail: "model server exploded" } }
          : undefined,
    });
    const e = new E2E(tickets(KEYS));
    e.host({ match: { T3: "p2" }, gate: { T1: "quick", T2: "settled", T3: "deep", T4: "settled", T5: "settled" } });
    try {
      const config = e.config(
        `${provider(server.url, `context_window = { "jev-small" = 50 }`)}\n[decisions]\nhost = "default"\n\n[decisions.types]\n"triage.match.package" = "s1/jev-1"\n"triage.gate.depth" = "s1/jev-small"\n"triage.judge.supported" = "s1/jev-1"\n`,
      );
      const r = await e.sy(["run", e.pack, "--config", config], { [KEY_ENV]: SECRET });
      assert.equal(r.code, 0, `${r.out}\n${r.err}`);
      const show = await e.show();

      // match: the model for four tickets, the host (p2) for T3; gate: the host for all five.
      assert.deepEqual(labels(show, "match"), { T1: "p1", T2: "p1", T3: "p2", T4: "p1", T5: "p1" });
      assert.deepEqual(labels(show, "gate"), { T1: "quick", T2: "settled", T3: "deep", T4: "settled", T5: "settled" });
      assert.deepEqual(labels(show, "judge"), { T1: "yes", T3: "yes" });
      assert.deepEqual(e.hostCalls().sort(), [
        "host gate[T1]",
        "host gate[T2]",
        "host gate[T3]",
        "host gate[T4]",
        "host gate[T5]",
        "host match[T3]",
      ]);
      const counts = systemOneCounts(server.requests);
      assert.equal(counts["package:T3"], 2, "the failing call was retried once");
      assert.ok(!Object.keys(counts).some((k) => k.startsWith("depth:")), "an over-window request is never sent");

      type Rec = {
        label: string;
        mode: string;
        provider: string;
        model: string;
        receipt?: { type: string; key: string; provider: string; model: string; reason: string; time: string };
      };
      const rec = (route: string, key: string, q: string) => (show.tasks[route]!.instances![key]!.output as Record<string, Rec>)[q]!;
      const m3 = rec("match", "T3", "package");
      assert.deepEqual([m3.label, m3.mode, m3.provider, m3.model], ["p2", "model", "host", "default"]);
      assert.deepEqual(
        { ...m3.receipt, reason: undefined, time: undefined },
        { type: "triage.match.package", key: "T3", provider: "s1", model: "jev-1", reason: undefined, time: undefined },
      );
      assert.match(m3.receipt!.reason, /^error: .*500.*model server exploded/);
      assert.ok(!Number.isNaN(Date.parse(m3.receipt!.time)));
      assert.equal(rec("match", "T1", "package").receipt, undefined);
      for (const k of KEYS)
        assert.match(
          rec("gate", k, "depth").receipt?.reason ?? "",
          /^window: the request is estimated at \d+ tokens, over the context window of 50 declared for jev-small \(D-32\)/,
        );

      // show --json --receipts lists the six; show --receipts prints them.
      assert.deepEqual(
        show.receipts!.map((x) => `${x.task}[${x.key}].${x.question} ${x.provider}/${x.model} ${x.reason.split(":")[0]}`).sort(),
        [
          "gate[T1].depth s1/jev-small window",
          "gate[T2].depth s1/jev-small window",
          "gate[T3].depth s1/jev-small window",
          "gate[T4].depth s1/jev-small window",
          "gate[T5].depth s1/jev-small window",
          "match[T3].package s1/jev-1 error",
        ],
      );
      const plain = await e.here(["show", "latest", "--receipts"]);
      assert.equal(plain.code, 0);
      assert.match(plain.out, /receipts: 6\n/);
      assert.match(plain.out, /match\[T3\]\.package {2}triage\.match\.package {2}s1\/jev-1: error: .*500/);
      assert.match(plain.out, /gate\[T5\]\.depth {2}triage\.gate\.depth {2}s1\/jev-small: window: /);
      // Plain `show` gives, per route instance, each decision's label, confidence,
      // mode and who answered, and its receipts under it.
      assert.match(plain.out, /\n {2}match\[T1\] {2}passed {2}package=p1 0\.90 model s1\/jev-1\n/);
      assert.match(
        plain.out,
        /\n {2}match\[T3\] {2}passed {2}package=p2 1\.00 model host\/default\n {4}receipt: package: s1\/jev-1 could not answer, the host did: error: .*500.*\n/,
      );
      assert.match(
        plain.out,
        /\n {2}gate\[T2\] {2}passed {2}depth=settled 1\.00 model host\/default\n {4}receipt: depth: s1\/jev-small could not answer, the host did: window: the request is estimated at \d+ tokens/,
      );
      assert.match(plain.out, /\n {2}judge\[T1\] {2}passed {2}supported=yes 0\.90 model s1\/jev-1\n/);
      assert.match(plain.out, /\n {2}quick\[T2\] {2}not_taken {2}label settled\n/);
    } finally {
      await server.close();
      e.cleanup();
    }
  },
);

test(
  "D-30/D-31: an unlisted model or a denied vendor is reported at start and never asked; turned on, the host answers with receipts; in shadow, pairs are skipped",
  { timeout: 60000 },
  async () => {
    const server = await startSystemOneServer();
    const e = new E2E(tickets(KEYS));
    // match and gate stay with the host unless --decide says otherwise; two tickets reach judge.
    e.host({ gate: { T1: "quick", T2: "deep", T3: "settled", T4: "settled", T5: "settled" } });
    try {
      const config = e.config(
        `${provider(server.url)}\n[providers.acme]\nkind = "systemone"\nvendor = "acme"\nbase_url = "${server.url}"\nmodels = ["rocket-1"]\n\n[decisions]\nhost = "default"\ndeny_vendors = ["acme"]\n`,
      );
      const env = { [KEY_ENV]: SECRET };
      // An unlisted model through --decide (a config file cannot list one: see below), turned on.
      const unlisted = await e.sy(["run", e.pack, "--config", config, "--decide", "triage.judge.supported=s1/jev-9"], env);
      assert.equal(unlisted.code, 0, unlisted.err);
      assert.match(
        unlisted.err,
        /warning: D-30: judgement type "triage\.judge\.supported" is routed to s1\/jev-9 \(by --decide\), but model "jev-9" is not in providers\.s1\.models.*: the host answers it instead, with a fallback receipt/,
      );
      const judged = await e.show();
      assert.deepEqual(judged.receipts!.map((x) => `${x.task}[${x.key}] ${x.provider}/${x.model} ${x.reason.split(":")[0]}`).sort(), [
        "judge[T1] s1/jev-9 resolver",
        "judge[T2] s1/jev-9 resolver",
      ]);
      assert.deepEqual(
        e
          .hostCalls()
          .filter((c) => c.startsWith("host judge"))
          .sort(),
        ["host judge[T1]", "host judge[T2]"],
      );

      // A denied vendor, turned on: the host answers every gate decision, each with a receipt.
      const denied = await e.sy(["run", e.pack, "--config", config, "--decide", "triage.gate.depth=acme/rocket-1"], env);
      assert.equal(denied.code, 0, denied.err);
      assert.match(
        denied.err,
        /warning: D-30: judgement type "triage\.gate\.depth" is routed to acme\/rocket-1 \(by --decide\), but provider "acme" is of vendor "acme", which \[decisions\] deny_vendors denies/,
      );
      const gated = await e.show();
      assert.equal(gated.receipts!.filter((x) => x.task === "gate" && x.reason.startsWith("resolver: ")).length, KEYS.length);
      assert.deepEqual(labels(gated, "gate"), { T1: "quick", T2: "deep", T3: "settled", T4: "settled", T5: "settled" });

      // A denied vendor in shadow: the host decides; each pair is recorded as skipped by the resolver.
      const shadowed = await e.sy(["run", e.pack, "--config", config, "--decide", "triage.gate.depth=shadow:acme/rocket-1"], env);
      assert.equal(shadowed.code, 0, shadowed.err);
      assert.match(shadowed.err, /its shadow pairs will be recorded as skipped/);
      const labsDir = join(e.state, "labs");
      const pairs = readdirSync(labsDir)
        .filter((d) => statSync(join(labsDir, d)).isDirectory())
        .flatMap((d) =>
          readFileSync(join(labsDir, d, "pairs.jsonl"), "utf8")
            .split("\n")
            .filter(Boolean),
        )
        .map((l) => JSON.parse(l) as Pair);
      assert.equal(pairs.length, KEYS.length);
      for (const pair of pairs) {
        assert.equal(pair.model, undefined);
        assert.match(pair.skipped!.reason, /^resolver: /);
      }
      assert.equal(server.count(), 0, "a model the resolver refuses is never sent a request");

      // In a config file, an unlisted model is a config error at load time.
      const badConfig = e.config(
        `${provider(server.url)}\n[decisions]\nhost = "default"\n\n[decisions.types]\n"triage.match.package" = "s1/jev-9"\n`,
      );
      const loaded = await e.here(["run", e.pack, "--config", badConfig], env);
      assert.equal(loaded.code, 2, loaded.err);
      assert.match(loaded.err, /config-unlisted-model/);
      assert.equal(server.count(), 0);
    } finally {
      await server.close();
      e.cleanup();
    }
  },
);
