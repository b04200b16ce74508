// How a judgement fails (routing/failure.ts).

import { test } from "node:test";
import assert from "node:assert/strict";
import { cancelled, messageOf, withModelReasons } from "../../../src/decide/routing/failure.js";
import { DecisionFailure } from "../../../src/run/kinds/judge.js";
import { on } from "../router-support.js";

test("withModelReasons: a host failure keeps why each model it stood in for had failed", () => {
  const err = new DecisionFailure("host-failed", "D-20: the host (h) could not answer: boom");
  const out = withModelReasons(err, new Map([["a", "error: HTTP 500"]]), new Map([["a", on("local", "m")]]));
  assert.ok(out instanceof DecisionFailure);
  assert.equal(out.code, "host-failed");
  assert.equal(
    out.message,
    "D-20: the host (h) could not answer: boom; the host was answering in place of the model: question 'a': local/m failed first (error: HTTP 500)",
  );
});

test("withModelReasons: no reasons, or an error that is not a DecisionFailure, passes as it is", () => {
  const err = new DecisionFailure("host-failed", "x");
  assert.equal(withModelReasons(err, new Map(), new Map()), err);
  const other = new Error("cancelled");
  assert.equal(withModelReasons(other, new Map([["a", "r"]]), new Map()), other);
});

test("cancelled: the run's reason, else a decision-cancelled failure; messageOf: any thrown value", () => {
  const c = new AbortController();
  c.abort("stop");
  assert.equal(cancelled(c.signal), "stop");
  const none = { reason: undefined } as AbortSignal;
  const e = cancelled(none);
  assert.ok(e instanceof DecisionFailure);
  assert.equal(e.code, "decision-cancelled");
  assert.equal(messageOf(new Error("m")), "m");
  assert.equal(messageOf(42), "42");
});
