// A Judge for tests: answers from a function of (key, question), counts requests.

import type { DecisionRecord, Judge, JudgeRequest, ResolvedQuestion } from "../../src/run/kinds/judge.js";
import { DecisionFailure } from "../../src/run/kinds/judge.js";

export class FakeJudge implements Judge {
  calls: JudgeRequest[] = [];
  constructor(
    private readonly answer: (key: string | null, q: ResolvedQuestion, req: JudgeRequest) => string | Error,
    private readonly problems: string[] = [],
    private readonly delayMs = 0,
  ) {}
  preflight(): string[] {
    return this.problems;
  }
  async judge(req: JudgeRequest): Promise<DecisionRecord> {
    this.calls.push(req);
    if (this.delayMs) await new Promise((r) => setTimeout(r, this.delayMs));
    const record: DecisionRecord = {};
    for (const q of req.questions) {
      const a = this.answer(req.key, q, req);
      if (a instanceof Error) throw new DecisionFailure("decision-failed", a.message);
      const probabilities: Record<string, number> = {};
      for (const l of q.labels) probabilities[l] = l === a ? 0.9 : 0.1 / Math.max(1, q.labels.length - 1);
      record[q.id] = {
        label: a,
        probabilities,
        confidence: 0.9,
        refused: false,
        judgement_type: q.type,
        mode: "host",
        provider: null,
        model: null,
        latency_ms: 1,
        usage: null,
      };
    }
    return record;
  }
}
