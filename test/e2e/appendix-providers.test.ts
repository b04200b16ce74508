// D-21, end to end: the SPEC appendix playbook (test/fixtures/packs/e2e-triage) run through the
// real CLI with `match`, `gate` and `judge` turned on and answered by a local System One server
// (one run) and by a local OpenAI Decisions server (another run). Checked through `show --json`:
// per-key labels as scripted, `uncertain` below min_confidence, the resolved options on
// `match`, not-taken rows downstream (G-3, G-5, G-6), one request per element and
// route (D-11), and — the model answering every question — no host call at all (D-10).

import { test } from "node:test";
import assert from "node:assert/strict";
import type { AnswerTable } from "../support/scripted-answers.js";
import { startSystemOneServer } from "../support/systemone-server.js";
import { startDecisionsServer } from "../support/decisions-server.js";
import { E2E, PKG, decisionsCounts, labels, rows, systemOneCounts, tickets } from "./support/harness.js";

const KEYS = ["T1", "T2", "T3", "T4", "T5"];
const k = (key: string) => `"key":"${key}"`;

// The scripted model. min_confidence: match 0.7, gate 0.8, judge 0.8.
//   T1  p1 (0.9)          settled (0.9)                      → nothing downstream, label "settled"
//   T2  p2 (0.85)         quick (0.9)     yes (0.95)         → quick; recheck not taken ("yes")
//   T3  p1 (0.95)         deep (0.9)      no (P(yes) 0.1)    → deep, recheck
//   T4  p1 0.5 → uncertain                                   → review; gate not taken
//   T5  none (0.9)        quick 0.6 → uncertain   yes 0.7 → uncertain   → deep, recheck
const TABLE: AnswerTable = {
  rules: [
    { match: k("T1"), question: "package", answer: { probabilities: { p1: 0.9, p2: 0.05, none: 0.05 } } },
    { match: k("T1"), question: "depth", answer: { probabilities: { settled: 0.9, quick: 0.05, deep: 0.05 } } },
    { match: k("T2"), question: "package", answer: { probabilities: { p1: 0.1, p2: 0.85, none: 0.05 } } },
    { match: k("T2"), question: "depth", answer: { probabilities: { settled: 0.05, quick: 0.9, deep: 0.05 } } },
    { match: k("T2"), question: "supported", answer: { p_yes: 0.95 } },
    { match: k("T3"), question: "package", answer: { probabilities: { p1: 0.95, p2: 0.03, none: 0.02 } } },
    { match: k("T3"), question: "depth", answer: { probabilities: { settled: 0.05, quick: 0.05, deep: 0.9 } } },
    { match: k("T3"), question: "supported", answer: { p_yes: 0.1 } },
    { match: k("T4"), question: "package", answer: { probabilities: { p1: 0.5, p2: 0.3, none: 0.2 } } },
    { match: k("T5"), question: "package", answer: { probabilities: { p1: 0.05, p2: 0.05, none: 0.9 } } },
    { match: k("T5"), question: "depth", answer: { probabilities: { settled: 0.1, quick: 0.6, deep: 0.3 } } },
    { match: k("T5"), question: "supported", answer: { p_yes: 0.7 } },
  ],
};

// T2's options carry a duplicate, which collapses to its first entry (Q-31).
const STAGED = tickets(KEYS, { T2: [...PKG, { value: "p1", description: "a duplicate of p1" }] });

async function runAndCheck(
  e: E2E,
  providerBlock: string,
  counts: () => Record<string, number>,
  provider: string,
  model: string,
): Promise<void> {
  const config = e.config(`${providerBlock}\n[decisions]\nhost = "default"\ndefault = "${provider}/${model}"\n`);
  const r = await e.sy(["run", e.pack, "--config", config]);
  assert.equal(r.code, 0, `the run passes\n${r.out}\n${r.err}`);
  const show = await e.show();

  assert.deepEqual(labels(show, "match"), { T1: "p1", T2: "p2", T3: "p1", T4: "uncertain", T5: "none" });
  assert.deepEqual(labels(show, "gate"), { T1: "settled", T2: "quick", T3: "deep", T5: "uncertain" });
  assert.deepEqual(labels(show, "judge"), { T2: "yes", T3: "no", T5: "uncertain" });

  type Q = {
    label: string;
    confidence: number;
    mode: string;
    provider: string;
    model: string;
    options?: unknown;
    probabilities: Record<string, number>;
    receipt?: unknown;
  };
  const rec = (route: string, key: string, q: string) => (show.tasks[route]!.instances![key]!.output as Record<string, Q>)[q]!;
  // below min_confidence the label is uncertain, the confidence and probabilities stay as answered.
  assert.equal(rec("match", "T4", "package").confidence, 0.5);
  assert.equal(rec("gate", "T5", "depth").confidence, 0.6);
  assert.ok(Math.abs(rec("judge", "T5", "supported").probabilities.yes! - 0.7) < 1e-9);
  // Q-20/Q-32: the resolved options are recorded on every match decision; T2's duplicate collapsed.
  for (const key of KEYS) assert.deepEqual(rec("match", key, "package").options, PKG, `options of match[${key}]`);
  assert.deepEqual(Object.keys(rec("match", "T2", "package").probabilities).sort(), ["none", "p1", "p2"]);
  // Who answered: the model, turned on, no receipt.
  for (const [route, q] of [
    ["match", "package"],
    ["gate", "depth"],
    ["judge", "supported"],
  ] as const) {
    for (const [key, inst] of Object.entries(show.tasks[route]!.instances!)) {
      if (inst.status !== "passed") continue;
      const d = rec(route, key, q);
      assert.deepEqual([d.mode, d.provider, d.model, d.receipt], ["model", provider, model, undefined], `${route}[${key}]`);
    }
  }

  // Not-taken rows downstream, each with the label that closed it (G-3, G-5, G-6).
  assert.deepEqual(rows(show, "review"), {
    T1: "not_taken:p1",
    T2: "not_taken:p2",
    T3: "not_taken:p1",
    T4: "passed",
    T5: "not_taken:none",
  });
  assert.deepEqual(rows(show, "gate"), { T1: "passed", T2: "passed", T3: "passed", T4: "not_taken:uncertain", T5: "passed" });
  assert.deepEqual(rows(show, "quick"), {
    T1: "not_taken:settled",
    T2: "passed",
    T3: "not_taken:deep",
    T4: "not_taken:uncertain",
    T5: "not_taken:uncertain",
  });
  assert.deepEqual(rows(show, "deep"), {
    T1: "not_taken:settled",
    T2: "not_taken:quick",
    T3: "passed",
    T4: "not_taken:uncertain",
    T5: "passed",
  });
  assert.deepEqual(rows(show, "judge"), { T1: "not_taken:settled", T2: "passed", T3: "passed", T4: "not_taken:uncertain", T5: "passed" });
  assert.deepEqual(rows(show, "recheck"), {
    T1: "not_taken:settled",
    T2: "not_taken:yes",
    T3: "passed",
    T4: "not_taken:uncertain",
    T5: "passed",
  });
  assert.equal(show.tasks.report!.status, "passed");

  // One request per element and route; none for elements not taken (D-11).
  assert.deepEqual(counts(), {
    "package:T1": 1,
    "package:T2": 1,
    "package:T3": 1,
    "package:T4": 1,
    "package:T5": 1,
    "depth:T1": 1,
    "depth:T2": 1,
    "depth:T3": 1,
    "depth:T5": 1,
    "supported:T2": 1,
    "supported:T3": 1,
    "supported:T5": 1,
  });
  // D-10: turned on and answering, so the host was never asked; agents ran only where routed.
  assert.deepEqual(e.hostCalls(), []);
  assert.deepEqual(e.turns(), [
    "deep[T3] high",
    "deep[T5] high",
    "quick[T2] low",
    "recheck[T3] medium",
    "recheck[T5] medium",
    "review[T4] medium",
  ]);
}

test(
  "D-21 systemone: the appendix playbook end to end — labels per key, uncertain below min_confidence, resolved options, not-taken rows",
  { timeout: 60000 },
  async () => {
    const server = await startSystemOneServer({ table: TABLE });
    const e = new E2E(STAGED);
    try {
      await runAndCheck(
        e,
        `[providers.s1]\nkind = "systemone"\nvendor = "typesafe"\nbase_url = "${server.url}"\nmodels = ["jev-1"]\nmax_retries = 0\n`,
        () => systemOneCounts(server.requests),
        "s1",
        "jev-1",
      );
      // The wire carried the resolved options as an ordinary choice (Q-32): T2's duplicate gone.
      const t2 = server.requests
        .map((r) => r.body as { state: { key: string }; questions: Record<string, { type: string; criteria: Record<string, string> }> })
        .find((b) => b.state.key === "T2" && b.questions.package)!;
      assert.deepEqual(t2.questions.package, {
        type: "choice",
        instructions: "Which shipped package does the flaw affect?",
        criteria: { p1: PKG[0]!.description, p2: PKG[1]!.description, none: PKG[2]!.description },
      });
    } finally {
      await server.close();
      e.cleanup();
    }
  },
);

test(
  "D-21 openai: the appendix playbook end to end against a Decisions API server — the same labels, options and not-taken rows",
  { timeout: 60000 },
  async () => {
    const server = await startDecisionsServer({ table: TABLE });
    const e = new E2E(STAGED);
    try {
      await runAndCheck(
        e,
        `[providers.oai]\nkind = "openai"\nvendor = "openai"\nbase_url = "${server.url}"\nmodels = ["gpt-6-luna"]\nmax_retries = 0\n`,
        () => decisionsCounts(server.requests),
        "oai",
        "gpt-6-luna",
      );
      assert.ok(server.requests.every((r) => r.path === "/v1/decisions"));
    } finally {
      await server.close();
      e.cleanup();
    }
  },
);
