// Step 4 of a judgement: one decision per question from what was answered. Who answered is what a
// record's provider/model say: "host"/<host runner> for host, shadow and fallback answers; the
// provider and model for a model's answers.

import type { DecisionRecord, JudgeRequest, QuestionDecision, Receipt, ResolvedQuestion, Usage } from "../../run/kinds/index.js";
import type { ResolvedAnswer } from "../answer.js";
import type { ModelOutcome, Answers } from "./outcomes.js";
import type { ShadowPair } from "../pair.js";
import type { AuditOf } from "./shadow-pair.js";
import type { Targets } from "./targets.js";

/**
 * One question's decision record: the answer, who gave it, at what cost, and the threshold it was
 * tested against (`minConfidence`; the question's own, as the host is asked, unless given).
 */
export function decisionOf(
  q: ResolvedQuestion,
  a: ResolvedAnswer,
  mode: QuestionDecision["mode"],
  provider: string,
  model: string,
  latency: number,
  usage: Usage | null,
  minConfidence = q.min_confidence,
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
    min_confidence: minConfidence,
  };
  if (q.resolved_options) d.options = q.resolved_options;
  if (a.expected_level !== undefined) d.expected_level = a.expected_level;
  return d;
}

/** What assembling needs besides the answers: the host's name, the clock, and where pairs go. */
export interface AssembleContext {
  hostName: string;
  now: () => Date;
  appendPair: (
    req: JudgeRequest,
    q: ResolvedQuestion,
    mode: { provider: string; model: string },
    hostLabel: string,
    outcome: ModelOutcome,
    audit?: AuditOf,
    host?: ShadowPair["host"],
  ) => void;
}

const NOT_ASKED: ModelOutcome = { ok: false, why: "error", reason: "the model was not asked" };

/**
 * The record of a judgement: host questions as the host answered; shadow questions as the host
 * answered, with their pair appended; turned-on questions as the model answered (calibrated,
 * audited), or as the host answered in its place with a receipt saying why (D-31).
 */
export function assemble(
  req: JudgeRequest,
  t: Pick<Targets, "modes" | "audited" | "thresholds">,
  a: Answers,
  ctx: AssembleContext,
): DecisionRecord {
  const { hostName, now, appendPair } = ctx;
  const out: DecisionRecord = {};
  for (const q of req.questions) {
    const mode = t.modes.get(q.id)!;
    // A review question (D-60) has no answer yet: the router sends it to the review queue.
    if (mode.kind === "review") continue;
    if (mode.kind === "host") {
      const h = a.hostAnswers.get(q.id)!;
      out[q.id] = decisionOf(q, h.answer, "host", "host", hostName, h.latency_ms, h.usage);
    } else if (mode.kind === "shadow") {
      const h = a.hostAnswers.get(q.id)!;
      out[q.id] = decisionOf(q, h.answer, "shadow", "host", hostName, h.latency_ms, h.usage);
      // One pair per candidate (H-6), each exactly as a single shadow's: the same host answer.
      for (const ref of mode.models) {
        const outcome = a.shadowOutcomes.get(`${ref.provider}/${ref.model}`)?.get(q.id) ?? NOT_ASKED;
        appendPair(req, q, ref, h.answer.label, outcome, undefined, hostCost(h));
      }
    } else {
      const reason = a.fallbackReasons.get(q.id);
      const auditAnswer = t.audited.has(q.id) ? a.hostAnswers.get(q.id) : undefined;
      if (reason === undefined) {
        const o = a.modelOutcomes.get(q.id) as Extract<ModelOutcome, { ok: true }>;
        const c = a.calibrated.get(q.id);
        const min = t.thresholds.get(q.id);
        const d = decisionOf(q, c?.answer ?? o.answer, "model", mode.provider, mode.model, o.latency_ms, o.usage, min);
        if (c) {
          d.raw_confidence = c.raw;
          d.calibration = c.id;
        }
        if (auditAnswer) {
          d.audit = { host_label: auditAnswer.answer.label };
          appendPair(req, q, mode, auditAnswer.answer.label, o, { calibrated: c }, hostCost(auditAnswer));
        }
        out[q.id] = d;
      } else {
        const h = auditAnswer ?? a.fallbackAnswers.get(q.id)!;
        if (auditAnswer)
          appendPair(req, q, mode, auditAnswer.answer.label, a.modelOutcomes.get(q.id) ?? NOT_ASKED, {}, hostCost(auditAnswer));
        const receipt: Receipt = {
          type: q.type,
          key: req.key,
          provider: mode.provider,
          model: mode.model,
          reason,
          time: now().toISOString(),
        };
        out[q.id] = { ...decisionOf(q, h.answer, "model", "host", hostName, h.latency_ms, h.usage), receipt };
      }
    }
  }
  return out;
}

/** What the host's answer took, for the pair (the lab reports cost on both sides). */
function hostCost(h: { latency_ms: number; usage: Usage | null }): ShadowPair["host"] {
  return { latency_ms: h.latency_ms, usage: h.usage };
}
