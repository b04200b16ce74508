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

import {
  DecisionFailure,
  type DecisionRecord,
  type Judge,
  type JudgeRequest,
  type QuestionDecision,
  type Receipt,
  type ResolvedQuestion,
  type Usage,
} from "../run/kinds/index.js";
import { nearestName } from "../lang/diagnostic.js";
import { answerFor, resolveAnswer, type ResolvedAnswer } from "./answer.js";
import { auditSampled } from "./audit.js";
import { applyMap } from "./calibration-map.js";
import type { JudgementMode, MachineConfig, TypeSettings } from "./config-types.js";
import { routeProblem, secretEnvNames } from "./config.js";
import { UNCERTAIN } from "./answer.js";
import { formatMode, modeFor } from "./mode.js";
import { stateDigest, type PairSink, type ShadowPair } from "./pair.js";
import type { Provider, ProviderResponse } from "./provider.js";
import { windowProblem } from "./window.js";

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

export interface RoutingJudge extends Judge {
  preflight(types: string[]): string[];
  /** The mode a judgement type runs in. */
  modeOf(type: string): JudgementMode;
  /** Closes every provider built so far. */
  close(): Promise<void>;
}

type Why = "resolver" | "window" | "error" | "refusal";

/** One question's answer by a model, or why it has none. */
type ModelOutcome = { ok: true; answer: ResolvedAnswer; latency_ms: number; usage: Usage | null } | { ok: false; why: Why; reason: string };

interface HostAnswer {
  answer: ResolvedAnswer;
  latency_ms: number;
  usage: Usage | null;
}

interface Target {
  provider: string;
  model: string;
  questions: ResolvedQuestion[];
}

/** Where one judgement's questions go (planTargets): the host, turned-on models, shadow models. */
interface Targets {
  modes: Map<string, JudgementMode>;
  forHost: ResolvedQuestion[];
  turnedOn: Map<string, Target>;
  shadows: Map<string, Target>;
  /** Turned-on questions the host is asked about as well (D-34). */
  audited: Set<string>;
  /** Turned-on questions whose confidence is calibrated (D-33), with their threshold. */
  calibrations: Map<string, { settings: TypeSettings; min_confidence: number }>;
}

/** What one judgement's calls answered (askAll). */
interface Answers {
  hostAnswers: Map<string, HostAnswer>;
  fallbackAnswers: Map<string, HostAnswer>;
  shadowOutcomes: Map<string, ModelOutcome>;
  modelOutcomes: Map<string, ModelOutcome>;
  /** Turned-on questions the host answered in place of the model, and why (D-31). */
  fallbackReasons: Map<string, string>;
  calibrated: Map<string, Calibrated>;
}

/**
 * The host's failure fails the element only when a host or shadow question needed it; an audit
 * answer is extra evidence, and the model still gates without it.
 */
function needsHost(t: Targets): boolean {
  return t.forHost.some((q) => !t.audited.has(q.id));
}

export function createJudge(opts: JudgeOptions): RoutingJudge {
  const { config } = opts;
  const overrides = opts.overrides ?? {};
  const now = opts.now ?? (() => new Date());
  const warn = opts.warn ?? ((m: string) => process.stderr.write(`switchyard: warning: ${m}\n`));
  const built = new Map<string, Provider>();
  let host = opts.host;
  const hostName = config.decisions.host;

  const modeOf = (type: string): JudgementMode => modeFor(type, config.decisions, overrides);
  /** A table-form entry's settings, while the type runs in the mode they were written beside. */
  const settingsOf = (type: string): TypeSettings | undefined => {
    const s = config.decisions.settings?.[type];
    if (!s) return undefined;
    return Object.hasOwn(overrides, type) && formatMode(overrides[type]) !== formatMode(s.mode) ? undefined : s;
  };

  // Providers are built on first use, and their module loaded only then: a run whose types all
  // stay with the host never loads the HTTP clients (the openai package alone is slow to import).
  async function providerFor(name: string): Promise<Provider> {
    const injected = opts.providers?.[name];
    if (injected) return injected;
    let p = built.get(name);
    if (!p) {
      const { createProvider } = await import("./providers/index.js");
      p = built.get(name) ?? createProvider(config.providers[name], {}, secretEnvNames(config));
      built.set(name, p);
    }
    return p;
  }

  async function hostProvider(): Promise<Provider> {
    if (!host) {
      const { createHostProvider } = await import("./providers/index.js");
      host ??=
        hostName === "tty"
          ? createHostProvider({ tty: true })
          : createHostProvider({ runner: config.agents[hostName], hideEnv: secretEnvNames(config) });
      built.set("\u0000host", host);
    }
    return host;
  }

  /** Asks the host; any failure fails the element (D-20). */
  async function askHost(req: JudgeRequest, questions: ResolvedQuestion[], signal: AbortSignal): Promise<Map<string, HostAnswer>> {
    let response: ProviderResponse;
    try {
      response = await (
        await hostProvider()
      ).ask({
        model: hostName,
        state: req.state,
        state_text: req.state_text,
        questions,
        signal,
        context: { run: req.run, task: req.task, key: req.key },
        ...(req.groups ? { groups: req.groups } : {}),
      });
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

  /** Asks a model; never throws (except on cancellation): every problem becomes an outcome. */
  async function askModel(req: JudgeRequest, target: Target, signal: AbortSignal): Promise<Map<string, ModelOutcome>> {
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
      response = await (
        await providerFor(target.provider)
      ).ask({
        model: target.model,
        state: req.state,
        state_text: req.state_text,
        questions: target.questions,
        signal,
        context: { run: req.run, task: req.task, key: req.key },
        ...(req.groups ? { groups: req.groups } : {}),
      });
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

  function appendPair(
    req: JudgeRequest,
    q: ResolvedQuestion,
    mode: { provider: string; model: string },
    hostLabel: string,
    outcome: ModelOutcome,
    audit?: { calibrated?: Calibrated },
  ): void {
    if (!opts.pairs) return;
    const pair: Omit<ShadowPair, "lab"> = {
      ...(audit ? { kind: "audit" as const } : {}),
      time: now().toISOString(),
      run: req.run,
      type: q.type,
      task: req.task,
      key: req.key,
      ...(req.attempt !== undefined ? { attempt: req.attempt } : {}),
      question: { id: q.id, kind: q.kind, labels: [...q.labels] },
      state_digest: stateDigest(req.state_text),
      host_label: hostLabel,
    };
    if (outcome.ok) {
      pair.model = {
        provider: mode.provider,
        model: mode.model,
        label: outcome.answer.label,
        probabilities: outcome.answer.probabilities,
        confidence: outcome.answer.confidence,
        refused: outcome.answer.refused,
        latency_ms: outcome.latency_ms,
        usage: outcome.usage,
      };
      if (audit?.calibrated) {
        // The raw answer, as a shadow pair has it, plus what the map made of it.
        pair.model.label = audit.calibrated.answer.label;
        pair.model.confidence = audit.calibrated.raw;
        pair.model.calibrated_confidence = audit.calibrated.answer.confidence;
        pair.model.calibration = audit.calibrated.id;
      }
    } else {
      // "window" alone, else "resolver: …" / "error: …", so the lab can count skips by reason.
      pair.skipped = {
        provider: mode.provider,
        model: mode.model,
        reason: outcome.why === "window" ? "window" : `${outcome.why}: ${outcome.reason}`,
      };
    }
    try {
      opts.pairs.append(pair);
    } catch (err) {
      warn(
        `could not record the ${audit ? "audit" : "shadow"} pair of ${req.task}${req.key === null ? "" : `[${req.key}]`} question '${q.id}': ${messageOf(err)}`,
      );
    }
  }

  /**
   * The host failed while answering for turned-on models that had failed: the element's error
   * keeps why each model could not answer (no receipt exists, since nothing was decided).
   */
  function withModelReasons(err: unknown, reasons: Map<string, string>, modes: Map<string, JudgementMode>): unknown {
    if (!(err instanceof DecisionFailure) || reasons.size === 0) return err;
    const why = [...reasons].map(([id, r]) => {
      const m = modes.get(id) as { provider?: string; model?: string } | undefined;
      return `question '${id}': ${m?.provider ?? "the model"}/${m?.model ?? "?"} failed first (${r})`;
    });
    return new DecisionFailure(err.code, `${err.message}; the host was answering in place of the model: ${why.join("; ")}`);
  }

  function record(
    q: ResolvedQuestion,
    a: ResolvedAnswer,
    mode: QuestionDecision["mode"],
    provider: string,
    model: string,
    latency: number,
    usage: Usage | null,
  ): QuestionDecision {
    const d: QuestionDecision = {
      label: a.label,
      probabilities: a.probabilities,
      confidence: a.confidence,
      refused: a.refused,
      judgement_type: q.type,
      mode,
      provider,
      model,
      latency_ms: latency,
      usage,
    };
    if (q.resolved_options) d.options = q.resolved_options;
    if (a.expected_level !== undefined) d.expected_level = a.expected_level;
    return d;
  }

  /** Step 1 of a judgement: which questions go to the host, to which model, and which are audited or calibrated. */
  function planTargets(req: JudgeRequest): Targets {
    const modes = new Map<string, JudgementMode>();
    const forHost: ResolvedQuestion[] = [];
    const turnedOn = new Map<string, Target>();
    const shadows = new Map<string, Target>();
    /** Turned-on questions the host is asked about as well (D-34). */
    const audited = new Set<string>();
    /** Turned-on questions whose confidence is calibrated (D-33), with their threshold. */
    const calibrations = new Map<string, { settings: TypeSettings; min_confidence: number }>();
    for (const q of req.questions) {
      const mode = modeOf(q.type);
      modes.set(q.id, mode);
      if (mode.kind === "host") {
        forHost.push(q);
        continue;
      }
      const settings = settingsOf(q.type);
      // The machine config's min_confidence wins over the playbook's (D-33).
      let asked = settings?.min_confidence === undefined ? q : { ...q, min_confidence: settings.min_confidence };
      if (mode.kind === "shadow") forHost.push(q);
      else if (settings) {
        if (settings.calibration) {
          // The threshold is tested on the calibrated confidence, below; the model's own label stands.
          calibrations.set(q.id, { settings, min_confidence: asked.min_confidence });
          asked = { ...asked, min_confidence: 0 };
        }
        if (settings.audit !== undefined && auditSampled(settings.audit, req.run, req.task, req.key, q.id)) {
          audited.add(q.id);
          forHost.push(q);
        }
      }
      const groups = mode.kind === "shadow" ? shadows : turnedOn;
      const key = `${mode.provider}/${mode.model}`;
      const t = groups.get(key) ?? { provider: mode.provider, model: mode.model, questions: [] };
      t.questions.push(asked);
      groups.set(key, t);
    }
    return { modes, forHost, turnedOn, shadows, audited, calibrations };
  }

  /**
   * Step 2: asks the host and every model at once, then the host again for the turned-on questions
   * whose model failed (D-31); throws when an answer the element needs cannot be had.
   */
  async function askAll(req: JudgeRequest, t: Targets, signal: AbortSignal, local: AbortController | undefined): Promise<Answers> {
    const { forHost, turnedOn, shadows, audited, calibrations, modes } = t;
    const hostNeeded = needsHost(t);
    const noAnswers = Promise.resolve(new Map<string, HostAnswer>());
    const hostPromise = forHost.length > 0 ? askHost(req, forHost, signal) : noAnswers;
    const shadowPromises = shadows.size > 0 ? [...shadows.values()].map((target) => askModel(req, target, signal)) : [];
    const turnedOnPromises = [...turnedOn.values()].map((target) => askModel(req, target, signal));
    // Nothing may go unobserved if the host fails first.
    hostPromise.catch(() => (hostNeeded ? local?.abort() : undefined));
    for (const p of shadowPromises) p.catch(() => undefined);
    for (const p of turnedOnPromises) p.catch(() => undefined);

    const modelOutcomes = new Map<string, ModelOutcome>();
    if (turnedOnPromises.length === 1) for (const [id, o] of await turnedOnPromises[0]!) modelOutcomes.set(id, o);
    else for (const m of await Promise.all(turnedOnPromises)) for (const [id, o] of m) modelOutcomes.set(id, o);

    // Turned on: which questions the host must answer instead, and why (D-31).
    const fallbackReasons = new Map<string, string>();
    const calibrated = new Map<string, Calibrated>();
    for (const [id, o] of modelOutcomes) {
      if (!o.ok) fallbackReasons.set(id, `${o.why}: ${o.reason}`);
      else if (o.answer.refused && config.decisions.fallback_on_refusal)
        fallbackReasons.set(id, "refusal: the model refused to answer and fallback_on_refusal is set");
      else {
        const c = calibrations.get(id);
        if (c && !o.answer.refused) calibrated.set(id, calibrate(o.answer, c.settings, c.min_confidence));
      }
    }
    // An audited question that falls back takes the host's audit answer: never asked twice.
    const fallbackQuestions = fallbackReasons.size > 0 ? req.questions.filter((q) => fallbackReasons.has(q.id) && !audited.has(q.id)) : [];
    const fallbackPromise = fallbackQuestions.length > 0 && !signal.aborted ? askHost(req, fallbackQuestions, signal) : noAnswers;
    fallbackPromise.catch(() => local?.abort());

    const settled = await Promise.allSettled([hostPromise, fallbackPromise]);
    const shadowOutcomes = new Map<string, ModelOutcome>();
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
      );
    if (settled[1].status === "rejected")
      throw withModelReasons(
        settled[1].reason,
        reasonsOf((id) => !audited.has(id)),
        modes,
      );
    for (const s of shadowSettled) if (s.status === "fulfilled") for (const [id, o] of s.value) shadowOutcomes.set(id, o);
    const hostAnswers = (settled[0] as PromiseFulfilledResult<Map<string, HostAnswer>>).value;
    const fallbackAnswers = (settled[1] as PromiseFulfilledResult<Map<string, HostAnswer>>).value;

    return { hostAnswers, fallbackAnswers, shadowOutcomes, modelOutcomes, fallbackReasons, calibrated };
  }

  /** Step 3: one decision per question from what was answered: host, shadow (with its pair) or model (with its receipt on fallback). */
  function assemble(req: JudgeRequest, t: Targets, a: Answers): DecisionRecord {
    const { modes, audited } = t;
    const { hostAnswers, fallbackAnswers, shadowOutcomes, modelOutcomes, fallbackReasons, calibrated } = a;
    const out: DecisionRecord = {};
    for (const q of req.questions) {
      const mode = modes.get(q.id)!;
      if (mode.kind === "host") {
        const h = hostAnswers.get(q.id)!;
        out[q.id] = record(q, h.answer, "host", "host", hostName, h.latency_ms, h.usage);
      } else if (mode.kind === "shadow") {
        const h = hostAnswers.get(q.id)!;
        out[q.id] = record(q, h.answer, "shadow", "host", hostName, h.latency_ms, h.usage);
        const o = shadowOutcomes.get(q.id) ?? { ok: false, why: "error", reason: "the model was not asked" };
        appendPair(req, q, mode, h.answer.label, o);
      } else {
        const reason = fallbackReasons.get(q.id);
        const auditAnswer = audited.has(q.id) ? hostAnswers.get(q.id) : undefined;
        if (reason === undefined) {
          const o = modelOutcomes.get(q.id) as Extract<ModelOutcome, { ok: true }>;
          const c = calibrated.get(q.id);
          const d = record(q, c?.answer ?? o.answer, "model", mode.provider, mode.model, o.latency_ms, o.usage);
          if (c) {
            d.raw_confidence = c.raw;
            d.calibration = c.id;
          }
          if (auditAnswer) {
            d.audit = { host_label: auditAnswer.answer.label };
            appendPair(req, q, mode, auditAnswer.answer.label, o, { calibrated: c });
          }
          out[q.id] = d;
        } else {
          const h = auditAnswer ?? fallbackAnswers.get(q.id)!;
          if (auditAnswer)
            appendPair(
              req,
              q,
              mode,
              auditAnswer.answer.label,
              modelOutcomes.get(q.id) ?? { ok: false, why: "error", reason: "the model was not asked" },
              {},
            );
          const receipt: Receipt = {
            type: q.type,
            key: req.key,
            provider: mode.provider,
            model: mode.model,
            reason,
            time: now().toISOString(),
          };
          out[q.id] = { ...record(q, h.answer, "model", "host", hostName, h.latency_ms, h.usage), receipt };
        }
      }
    }
    return out;
  }

  async function judge(req: JudgeRequest): Promise<DecisionRecord> {
    const t = planTargets(req);
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
      return assemble(req, t, await askAll(req, t, signal, local));
    } finally {
      if (local) req.signal.removeEventListener("abort", onAbort);
    }
  }

  function preflight(types: string[]): string[] {
    const env = opts.env ?? process.env;
    const problems: string[] = [];
    const unique = [...new Set(types)];
    // Every mode may need the host (host, shadow, and the fallback of turned-on types).
    if (unique.length > 0 && !opts.host && hostName !== "tty" && !Object.hasOwn(config.agents, hostName)) {
      problems.push(`D-20: [decisions] host is "${hostName}", which is neither "tty" nor an [agents.NAME] runner of the machine config`);
    }
    for (const type of unique) {
      const mode = modeOf(type);
      if (mode.kind === "host") continue;
      const via = Object.hasOwn(overrides, type)
        ? "--decide"
        : Object.hasOwn(config.decisions.types, type)
          ? "[decisions.types]"
          : "[decisions] default";
      const problem = routeProblem(config, mode, true);
      if (problem) {
        const what = `D-30: judgement type "${type}" is routed to ${formatMode(mode)} (by ${via}), but ${problem.message}`;
        if (problem.code === "config-unknown-provider") {
          // A provider that does not exist is a typo to fix, not a model to refuse.
          problems.push(`${what}${problem.hint ? `; ${problem.hint}` : ""}`);
        } else {
          // An unlisted model or a denied vendor is reported now (D-30) and never asked: turned
          // on, the host answers with a receipt (D-31); in shadow, each pair is recorded as skipped.
          const consequence =
            mode.kind === "shadow"
              ? "its shadow pairs will be recorded as skipped"
              : "the host answers it instead, with a fallback receipt on each decision (D-31)";
          warn(`${what}: ${consequence}`);
        }
        continue;
      }
      const keyEnv = config.providers[mode.provider].api_key_env;
      if (keyEnv !== undefined && !opts.providers?.[mode.provider] && !env[keyEnv]) {
        problems.push(
          `D-21: judgement type "${type}" is routed to ${formatMode(mode)}, but provider "${mode.provider}" reads its key from $${keyEnv}, which is not set`,
        );
      }
      if (mode.kind === "shadow" && !opts.pairs) {
        problems.push(`H-1: judgement type "${type}" runs in shadow mode, but no lab is open to record its pairs`);
      }
      if (mode.kind === "model" && settingsOf(type)?.audit !== undefined && !opts.pairs) {
        problems.push(`D-34: judgement type "${type}" is audited, but no lab is open to record its audit pairs`);
      }
    }
    for (const type of Object.keys(overrides)) {
      if (unique.includes(type)) continue;
      const near = nearestName(type, unique);
      problems.push(
        `D-10: --decide names judgement type "${type}", which no question of this run asks${near ? ` (did you mean "${near}"?)` : ""}`,
      );
    }
    return problems;
  }

  async function close(): Promise<void> {
    const all = [...built.values()];
    built.clear();
    await Promise.allSettled(all.map((p) => p.close?.()));
  }

  return { judge, preflight, modeOf, close };
}

/** A turned-on answer after its calibration map (D-33): what gated, and the model's own confidence. */
interface Calibrated {
  answer: ResolvedAnswer;
  raw: number;
  id: string;
}

/**
 * D-33: the map turns the model's confidence into the probability of agreeing with the host, and
 * the min_confidence test is made on that; the label, when it stands, is the model's own.
 */
function calibrate(answer: ResolvedAnswer, settings: TypeSettings, minConfidence: number): Calibrated {
  const cal = settings.calibration!;
  const confidence = applyMap(cal.map, answer.confidence);
  return {
    answer: { ...answer, confidence, label: confidence < minConfidence ? UNCERTAIN : answer.label },
    raw: answer.confidence,
    id: cal.id,
  };
}

/** The run's reason for cancelling, so every path rejects with the same error. */
function cancelled(signal: AbortSignal): unknown {
  return signal.reason ?? new DecisionFailure("decision-cancelled", "the decision was cancelled");
}

function messageOf(err: unknown): string {
  return err instanceof Error ? err.message : String(err);
}
