// The router: the Judge (D-1) every model-decided route calls. Per question it picks the mode of
// the question's judgement type (D-10: a --decide override, then [decisions.types], then
// [decisions] default) and sends the questions of one route instance that share a target in one
// request (D-11):
//
// - host: the host answers (D-20).
// - shadow:P/M: the host answers and is used; the model is asked the same questions with the same
//   state at the same time, and each question's pair goes to the lab (H-1). The model never gates
//   and never fails the element: whatever goes wrong is recorded as a skipped pair.
// - P/M (turned on): the model answers and the host is not asked, unless the model cannot answer
//   (resolver D-30, window D-32, a failure after retries, an answer the resolver of Q-10 rejects,
//   or a refusal with fallback_on_refusal): then the host answers that question and its record
//   carries a receipt (D-31).
//
// Who answered is what a record's provider/model say: "host"/<host runner> for host, shadow and
// fallback answers; the provider and model for a model's answers. A batch's usage is recorded on
// its first question only, so that summing a record's usage counts each request once.

import type { DecisionRecord, Judge, JudgeRequest, ReviewedPair } from "../run/kinds/index.js";
import { ReviewNeeded } from "../run/kinds/index.js";
import { toReview } from "./routing/review.js";
import { reviewedPair } from "./routing/shadow-pair.js";
import type { JudgementMode, MachineConfig } from "./config-types.js";
import { modeFor } from "./mode.js";
import type { PairSink, ShadowPair } from "./pair.js";
import type { Provider } from "./provider.js";
import { askHost, askModel } from "./routing/ask.js";
import { assemble } from "./routing/decision.js";
import { cancelled, messageOf, withModelReasons } from "./routing/failure.js";
import { triageOutcomes, type Answers, type HostAnswer, type ModelOutcome } from "./routing/outcomes.js";
import { preflight } from "./routing/preflight.js";
import { providerCache, type ProviderCache } from "./routing/providers.js";
import { pairOf, type AuditOf } from "./routing/shadow-pair.js";
import { itemAt } from "../shared/checked-index.js";
import { needsHost, planTargets, settingsFor, type Target, type Targets } from "./routing/targets.js";

/** What a judge is built from: the machine config, the run's overrides and state folder, and what tests inject. */
export interface JudgeOptions {
  config: MachineConfig;
  /** `--decide TYPE=MODE` flags, parsed (mode.ts parseModeOverrides); they win over the config. */
  overrides?: Record<string, JudgementMode>;
  /** The state folder (R-2) of the run. */
  stateDir: string;
  /** Where shadow pairs go (the current lab, src/lab). Required when any type runs in shadow. */
  pairs?: PairSink;
  /** Providers by name, instead of building them from the config (tests, embedding). */
  providers?: Record<string, Provider>;
  /** The host, instead of building it from [decisions] host. */
  host?: Provider;
  /** Environment for preflight's key check; process.env by default. */
  env?: NodeJS.ProcessEnv;
  /** The clock for receipts and pairs. */
  now?: () => Date;
  /** Problems that must not fail a decision (a pair that could not be written). */
  warn?: (message: string) => void;
}

/** The Judge the run engine calls, plus what the CLI needs around a run. */
export interface RoutingJudge extends Judge {
  /** The problems that must stop a run asking these judgement types, as sentences (warns of the rest). */
  preflight(types: string[]): string[];
  /** The mode a judgement type runs in. */
  modeOf(type: string): JudgementMode;
  /** Closes every provider built so far. */
  close(): Promise<void>;
  /** A person's answer to an escalated question: its pair goes to the lab, marked reviewed (H-5). */
  reviewed(pair: ReviewedPair): void;
}

/**
 * The Judge over a machine config: each judgement plans where its questions go (routing/targets),
 * asks the host and the models at once (askAll), then assembles one decision per question
 * (routing/decision).
 */
export function createJudge(opts: JudgeOptions): RoutingJudge {
  const { config } = opts;
  const overrides = opts.overrides ?? {};
  const now = opts.now ?? (() => new Date());
  const warn = opts.warn ?? ((m: string) => process.stderr.write(`switchyard: warning: ${m}\n`));
  const providers = providerCache(config, opts.providers, opts.host);
  const modeOf = (type: string): JudgementMode => modeFor(type, config.decisions, overrides);
  const settingsOf = (type: string) => settingsFor(config, overrides, type);

  function appendPair(
    req: JudgeRequest,
    q: JudgeRequest["questions"][number],
    mode: { provider: string; model: string },
    hostLabel: string,
    outcome: ModelOutcome,
    audit?: AuditOf,
    host?: ShadowPair["host"],
  ): void {
    if (!opts.pairs) return;
    try {
      opts.pairs.append(pairOf(req, q, mode, hostLabel, outcome, now(), audit, host));
    } catch (err) {
      warn(
        `could not record the ${audit ? "audit" : "shadow"} pair of ${req.task}${req.key === null ? "" : `[${req.key}]`} question '${q.id}': ${messageOf(err)}`,
      );
    }
  }

  async function judge(req: JudgeRequest): Promise<DecisionRecord> {
    const t = planTargets(req, modeOf, settingsOf);
    const hostNeeded = needsHost(t);
    // One controller for this instance's calls: cancelled with the run, or when the host fails
    // (then nothing a model says can be used). Only needed when the host is asked while models
    // are: with turned-on questions alone, the host is asked (as fallback) once every model
    // has answered, so nothing is left to stop and the run's signal serves (a controller and a
    // listener on the run's signal less per decision).
    const local = hostNeeded || t.shadows.size > 0 ? new AbortController() : undefined;
    const signal = local?.signal ?? req.signal;
    const onAbort = (): void => local?.abort(req.signal.reason);
    if (local) {
      if (req.signal.aborted) local.abort(req.signal.reason);
      else req.signal.addEventListener("abort", onAbort, { once: true });
    }
    try {
      const answers = await askAll({ config, providers, warn }, req, t, signal, local);
      const record = assemble(req, t, answers, { hostName: config.decisions.host, now, appendPair });
      const timeoutOf = (type: string) => settingsOf(type)?.review_timeout_ms ?? config.decisions.review_timeout_ms;
      const review = toReview(req, t, record, timeoutOf);
      if (review.length > 0) throw new ReviewNeeded(review, record);
      return record;
    } finally {
      if (local) req.signal.removeEventListener("abort", onAbort);
    }
  }

  /** A person's answer beside an escalated model's (H-5); a pair that cannot be written is a warning. */
  function reviewed(p: ReviewedPair): void {
    if (!opts.pairs) return;
    try {
      opts.pairs.append(reviewedPair(p, now()));
    } catch (err) {
      warn(
        `could not record the reviewed pair of ${p.task}${p.key === null ? "" : `[${p.key}]`} question '${p.question.id}': ${messageOf(err)}`,
      );
    }
  }

  const env = opts.env ?? process.env;
  return {
    judge,
    reviewed,
    preflight: (types) =>
      preflight(
        { config, overrides, modeOf, settingsOf, providers: opts.providers, host: opts.host, hasPairs: !!opts.pairs, env, warn },
        types,
      ),
    modeOf,
    close: () => providers.close(),
  };
}

/** What askAll calls through. */
interface AskContext {
  config: MachineConfig;
  providers: ProviderCache;
  warn: (message: string) => void;
}

/**
 * Asks the host and every model at once, then the host again for the turned-on questions whose
 * model failed (D-31); throws when an answer the element needs cannot be had.
 */
async function askAll(
  ctx: AskContext,
  req: JudgeRequest,
  t: Targets,
  signal: AbortSignal,
  local: AbortController | undefined,
): Promise<Answers> {
  const { config, providers, warn } = ctx;
  const hostName = config.decisions.host;
  const { forHost, turnedOn, shadows, audited, calibrations, modes } = t;
  const hostNeeded = needsHost(t);
  const noAnswers = Promise.resolve(new Map<string, HostAnswer>());
  const hostPromise = forHost.length > 0 ? askHost(providers.host, hostName, req, forHost, signal) : noAnswers;
  const ask = (target: Target) => askModel(config, providers.providerFor, req, target, signal);
  // Every shadow model at once, each candidate of a type through its own provider (H-6).
  const shadowKeys = [...shadows.keys()];
  const shadowPromises = shadows.size > 0 ? [...shadows.values()].map(ask) : [];
  const turnedOnPromises = [...turnedOn.values()].map(ask);
  // Nothing may go unobserved if the host fails first.
  hostPromise.catch(() => (hostNeeded ? local?.abort() : undefined));
  for (const p of shadowPromises) p.catch(() => undefined);
  for (const p of turnedOnPromises) p.catch(() => undefined);

  const modelOutcomes = new Map<string, ModelOutcome>();
  if (turnedOnPromises.length === 1) for (const [id, o] of await turnedOnPromises[0]!) modelOutcomes.set(id, o);
  else for (const m of await Promise.all(turnedOnPromises)) for (const [id, o] of m) modelOutcomes.set(id, o);

  // Turned on: which questions the host must answer instead, and why (D-31).
  const { fallbackReasons, calibrated } = triageOutcomes(modelOutcomes, calibrations, config.decisions.fallback_on_refusal);
  // An audited question that falls back takes the host's audit answer: never asked twice.
  const fallbackQuestions = fallbackReasons.size > 0 ? req.questions.filter((q) => fallbackReasons.has(q.id) && !audited.has(q.id)) : [];
  const fallbackPromise =
    fallbackQuestions.length > 0 && !signal.aborted ? askHost(providers.host, hostName, req, fallbackQuestions, signal) : noAnswers;
  fallbackPromise.catch(() => local?.abort());

  const settled = await Promise.allSettled([hostPromise, fallbackPromise]);
  const shadowOutcomes = new Map<string, Map<string, ModelOutcome>>();
  const shadowSettled = shadowPromises.length > 0 ? await Promise.allSettled(shadowPromises) : [];
  if (req.signal.aborted) throw cancelled(req.signal);
  if (settled[0].status === "rejected" && !hostNeeded && ![...audited].some((id) => fallbackReasons.has(id))) {
    // Only audit questions were asked: the model's answers stand, without their audit.
    warn(`the host could not answer the audit of ${req.task}${req.key === null ? "" : `[${req.key}]`}: ${messageOf(settled[0].reason)}`);
    settled[0] = { status: "fulfilled", value: new Map() };
  }
  // A host that failed while answering in place of failed models: the error keeps their reasons.
  const reasonsOf = (asked: (id: string) => boolean) => new Map([...fallbackReasons].filter(([id]) => asked(id)));
  if (settled[0].status === "rejected")
    throw withModelReasons(
      settled[0].reason,
      reasonsOf((id) => audited.has(id)),
      modes,
      settled[1],
    );
  if (settled[1].status === "rejected")
    throw withModelReasons(
      settled[1].reason,
      reasonsOf((id) => !audited.has(id)),
      modes,
      settled[0],
    );
  shadowSettled.forEach((s, i) => {
    if (s.status === "fulfilled") shadowOutcomes.set(itemAt(shadowKeys, i), s.value);
  });
  const hostAnswers = (settled[0] as PromiseFulfilledResult<Map<string, HostAnswer>>).value;
  const fallbackAnswers = (settled[1] as PromiseFulfilledResult<Map<string, HostAnswer>>).value;

  return { hostAnswers, fallbackAnswers, shadowOutcomes, modelOutcomes, fallbackReasons, calibrated };
}
