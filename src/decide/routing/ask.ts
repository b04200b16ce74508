// Step 2 of a judgement, per call: asking the host, which must answer (D-20), and asking a model,
// whose every problem becomes an outcome (D-30 resolver, D-32 window, a failed call, a bad answer)
// so that the router can fall back or record a skipped pair.

import { DecisionFailure, type JudgeRequest, type ResolvedQuestion } from "../../run/kinds/index.js";
import { answerFor, resolveAnswer } from "../answer.js";
import type { MachineConfig } from "../config-types.js";
import { routeProblem } from "../config.js";
import type { Provider, ProviderRequest, ProviderResponse } from "../provider.js";
import { windowProblem } from "../window.js";
import { cancelled, messageOf } from "./failure.js";
import type { HostAnswer, ModelOutcome, Why } from "./outcomes.js";
import type { Target } from "./targets.js";

/** The provider request for some of an instance's questions: the same state and context for host and model. */
export function providerRequest(req: JudgeRequest, model: string, questions: ResolvedQuestion[], signal: AbortSignal): ProviderRequest {
  return {
    model,
    state: req.state,
    state_text: req.state_text,
    questions,
    signal,
    context: { run: req.run, task: req.task, key: req.key },
    ...(req.groups ? { groups: req.groups } : {}),
  };
}

/**
 * Asks the host; any failure fails the element (D-20): a DecisionFailure as it is, any other error
 * as `host-failed`, a missing answer as `host-failed` naming the question. The batch's usage is on
 * its first question only.
 */
export async function askHost(
  host: () => Promise<Provider>,
  hostName: string,
  req: JudgeRequest,
  questions: ResolvedQuestion[],
  signal: AbortSignal,
): Promise<Map<string, HostAnswer>> {
  let response: ProviderResponse;
  try {
    response = await (await host()).ask(providerRequest(req, hostName, questions, signal));
  } catch (err) {
    if (req.signal.aborted) throw cancelled(req.signal);
    if (err instanceof DecisionFailure || signal.aborted) throw err;
    throw new DecisionFailure("host-failed", `D-20: the host (${hostName}) could not answer: ${messageOf(err)}`);
  }
  const out = new Map<string, HostAnswer>();
  questions.forEach((q, i) => {
    const raw = response.answers[q.id];
    if (!raw) throw new DecisionFailure("host-failed", `D-20: the host (${hostName}) gave no answer for question '${q.id}'`);
    out.set(q.id, { answer: resolveAnswer(q, raw), latency_ms: response.latency_ms, usage: i === 0 ? response.usage : null });
  });
  return out;
}

/**
 * Asks a model; never throws (except on cancellation): a refused route or a state too big for the
 * model's window is not sent, and a failed call or invalid answer becomes an outcome. The batch's
 * usage is on its first answered question only.
 */
export async function askModel(
  config: MachineConfig,
  providerFor: (name: string) => Promise<Provider>,
  req: JudgeRequest,
  target: Target,
  signal: AbortSignal,
): Promise<Map<string, ModelOutcome>> {
  const out = new Map<string, ModelOutcome>();
  const all = (why: Why, reason: string): Map<string, ModelOutcome> => {
    for (const q of target.questions) out.set(q.id, { ok: false, why, reason });
    return out;
  };
  const problem = routeProblem(config, target, true);
  if (problem) return all("resolver", `D-30: ${problem.message}`);
  const providerConfig = config.providers[target.provider];
  const tooBig = windowProblem(req.state_text, target.questions, target.model, providerConfig.context_window[target.model]);
  if (tooBig) return all("window", tooBig);

  let response: ProviderResponse;
  try {
    response = await (await providerFor(target.provider)).ask(providerRequest(req, target.model, target.questions, signal));
  } catch (err) {
    if (req.signal.aborted) throw cancelled(req.signal);
    return all("error", messageOf(err));
  }
  let first = true;
  for (const q of target.questions) {
    try {
      out.set(q.id, { ok: true, answer: answerFor(q, response), latency_ms: response.latency_ms, usage: first ? response.usage : null });
      first = false;
    } catch (err) {
      out.set(q.id, { ok: false, why: "error", reason: messageOf(err) });
    }
  }
  return out;
}
