// The example pack's decider speaks the line protocol (D-21) and answers exactly as it did when
// it was started per decision: the known answers are those of the example's committed cassette,
// recorded from a run of the pack, and a sample is asked through protocol = "once" as well. The
// cassette keeps each element's view of the state, not the whole state the model was sent, so the
// usage (which counts the whole request) is compared between the two protocols only.

import { test } from "node:test";
import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { loadMachineConfig } from "../../src/decide/config.js";
import { createProvider } from "../../src/decide/providers/index.js";
import type { ProviderRequest, RawAnswer } from "../../src/decide/provider.js";
import type { ResolvedQuestion } from "../../src/run/kinds/judge.js";
import { providerRequest } from "../support/decide-fixtures.js";

const PACK = "examples/cve-triage";

interface Recorded {
  task: string;
  key: string;
  state: string;
  questions: Omit<ResolvedQuestion, "min_confidence">[];
  answer: Record<string, { provider: string; probabilities: Record<string, number> }>;
}

/** The cassette's decisions the example's model answered (its shadow decisions are the host's). */
function modelDecisions(): Recorded[] {
  return readFileSync(`${PACK}/cassette.jsonl`, "utf8")
    .split("\n")
    .filter((l) => l.includes('"kind":"decision"'))
    .map((l) => JSON.parse(l) as Recorded)
    .filter((d) => Object.values(d.answer).every((a) => a.provider === "example"));
}

function requestOf(d: Recorded): ProviderRequest {
  const questions = d.questions.map((q) => ({ ...q, min_confidence: 0 }));
  return providerRequest(questions, JSON.parse(d.state), { model: "decider", state_text: d.state });
}

/** What a response says, without its latency. */
const said = (r: { answers: Record<string, RawAnswer>; usage: unknown }) => ({ answers: r.answers, usage: r.usage });

test("D-21: the example's decider answers a run's decisions through one process, as its cassette recorded them", async () => {
  const config = loadMachineConfig(`${PACK}/switchyard.toml`, {}).providers.example!;
  assert.equal(config.protocol, "lines", "the example's config asks its decider through the line protocol");
  const decisions = modelDecisions();
  assert.ok(decisions.length >= 40, `the cassette holds the model's decisions (${decisions.length})`);
  const started: number[] = [];
  const groups = { started: (g: number) => started.push(g), ended: () => undefined };
  const lines = createProvider(config);
  try {
    // All at once, as a run's parallel elements ask: they are queued, and each gets its own answer.
    const got = await Promise.all(decisions.map((d) => lines.ask({ ...requestOf(d), groups })));
    got.forEach((r, i) => {
      const d = decisions[i]!;
      for (const [id, recorded] of Object.entries(d.answer)) {
        assert.deepEqual(r.answers[id]?.probabilities, recorded.probabilities, `${d.task}[${d.key}] ${id}`);
      }
    });
    assert.equal(started.length, 1, "one decider process for every decision");

    // A sample of each route through protocol = "once": a process per request, the same answers.
    const once = createProvider({ ...config, protocol: "once" });
    for (const task of ["match", "gate"]) {
      for (const d of decisions.filter((x) => x.task === task).slice(0, 2)) {
        const viaLines = await lines.ask(requestOf(d));
        assert.deepEqual(said(await once.ask(requestOf(d))), said(viaLines), `${d.task}[${d.key}]`);
      }
    }
  } finally {
    await lines.close?.();
  }
});
