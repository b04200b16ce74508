// The decision layer of `switchyard test`: answers each route instance from the
// cassette. The engine calls it exactly as it calls the real one (judge.ts), so ceilings,
// recording and resume are the engine's own. A request the cassette does not hold is a miss:
// recorded with why, then asked of the live decision layer when one is given (--allow-live), else
// failed with `cassette-miss`, so nothing outside is contacted.

import { DecisionFailure, type DecisionRecord, type Judge, type JudgeRequest } from "../kinds/index.js";
import { decisionRequestOf, elementView, type Overs } from "./identity.js";
import { elementId } from "./format.js";
import { decisionMiss, recordMiss, type ReplayIndex } from "./replay-index.js";

/** The engine's Judge during `switchyard test`: answers each route element from the cassette, or records a miss. */
export class CassetteJudge implements Judge {
  /** How many decisions were answered from the cassette. */
  answered = 0;

  constructor(
    private readonly index: ReplayIndex,
    private readonly runDir: (run: string) => string,
    private readonly overs: Overs,
    private readonly live?: Judge,
  ) {}

  preflight(types: string[]): string[] {
    return this.live?.preflight?.(types) ?? [];
  }

  async judge(req: JudgeRequest): Promise<DecisionRecord> {
    const r = decisionRequestOf(req.questions, elementView(req.state, req.key, this.overs[req.task]), this.runDir(req.run));
    const hit = this.index.decisions.byRequest.get(r.request);
    if (hit) {
      this.answered += 1;
      return structuredClone(hit.answer);
    }
    const why = decisionMiss(this.index.decisions.byElement.get(elementId(req.task, req.key)), r.questions, r.state);
    recordMiss(this.index.dir, { kind: "decision", task: req.task, key: req.key, ...why });
    if (this.live) return this.live.judge(req);
    throw new DecisionFailure(
      "cassette-miss",
      `the cassette has no answer for this decision: ${why.why}; nothing was asked (--allow-live asks it)`,
    );
  }
}
