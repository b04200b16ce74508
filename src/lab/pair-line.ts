// One shadow pair as one line of pairs.jsonl (H-1). Only the fields of ShadowPair are written,
// picked one by one, so a caller that passes more (a state, a request) cannot leak it into the
// file; free text (skip reasons carry provider error messages) is scrubbed of secret-like tokens.

import type { ShadowPair } from "../decide/pair.js";
import type { Usage } from "../run/kinds/index.js";

// Tokens that look like credentials, whatever variable they came from.
const SECRET_PATTERNS: RegExp[] = [
  /\b(?:sk|pk|rk|sess|ghp|gho|xox[abpr])[-_][A-Za-z0-9_-]{8,}/g,
  /\bBearer\s+[A-Za-z0-9._~+/=-]{8,}/gi,
  /\b(api[_-]?key|access[_-]?token|token|secret|password|authorization)(\s*["']?\s*[:=]\s*["']?)[^\s"',;&]{4,}/gi,
];

/** Values of environment variables named like credentials (FOO_API_KEY, …), read once. */
let envSecrets: string[] | null = null;
function secretEnvValues(): string[] {
  if (envSecrets === null) {
    envSecrets = Object.entries(process.env)
      .filter(([name, value]) => /KEY|TOKEN|SECRET|PASSWORD|CREDENTIAL/i.test(name) && typeof value === "string" && value.length >= 8)
      .map(([, value]) => value as string);
  }
  return envSecrets;
}

/** Replaces secret values from the environment, and strings shaped like keys or tokens, with `[redacted]`. */
export function redact(text: string): string {
  let out = text;
  for (const value of secretEnvValues()) out = out.split(value).join("[redacted]");
  for (const re of SECRET_PATTERNS) {
    out = out.replace(re, (match: string, name?: string, sep?: string) =>
      typeof name === "string" && typeof sep === "string" ? `${name}${sep}[redacted]` : "[redacted]",
    );
  }
  return out;
}

function usageOf(u: Usage | null | undefined): Usage | null {
  if (!u) return null;
  const out: Usage = {};
  if (typeof u.input_tokens === "number") out.input_tokens = u.input_tokens;
  if (typeof u.output_tokens === "number") out.output_tokens = u.output_tokens;
  if (typeof u.cost_usd === "number") out.cost_usd = u.cost_usd;
  return out;
}

function probabilitiesOf(p: Record<string, number>): Record<string, number> {
  const out: Record<string, number> = {};
  for (const [label, value] of Object.entries(p)) if (typeof value === "number") out[label] = value;
  return out;
}

/** The JSON text of one pair (no newline), fields in a fixed order. */
export function pairLine(pair: ShadowPair): string {
  const line: ShadowPair = {
    lab: pair.lab,
    ...(pair.kind === "audit" || pair.kind === "reviewed" ? { kind: pair.kind } : {}),
    time: pair.time,
    run: pair.run,
    type: pair.type,
    task: pair.task,
    key: pair.key ?? null,
    ...(typeof pair.attempt === "number" ? { attempt: pair.attempt } : {}),
    question: { id: pair.question.id, kind: pair.question.kind, labels: [...pair.question.labels] },
    state_digest: pair.state_digest,
    host_label: pair.host_label,
  };
  if (pair.model) {
    const m = pair.model;
    line.model = {
      provider: m.provider,
      model: m.model,
      label: m.label,
      probabilities: probabilitiesOf(m.probabilities),
      confidence: m.confidence,
      refused: m.refused,
      latency_ms: m.latency_ms,
      usage: usageOf(m.usage),
    };
    if (typeof m.calibrated_confidence === "number" && typeof m.calibration === "string") {
      line.model.calibrated_confidence = m.calibrated_confidence;
      line.model.calibration = m.calibration;
    }
  }
  if (pair.skipped) {
    line.skipped = { provider: pair.skipped.provider, model: pair.skipped.model, reason: redact(pair.skipped.reason) };
  }
  if (pair.host && typeof pair.host.latency_ms === "number")
    line.host = { latency_ms: pair.host.latency_ms, usage: usageOf(pair.host.usage) };
  if (pair.reviewed) {
    const r = pair.reviewed;
    line.reviewed = { label: r.label, by: r.by === null ? null : redact(r.by), source: redact(r.source), time: r.time };
  }
  return JSON.stringify(line);
}
