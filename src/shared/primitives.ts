// Primitives every layer may use (docs/architecture.md). This module imports no layer, so any
// layer can import it without bending the layering; keep it to small, dependency-free facts.

/** A JSON-style object: not null, not an array. */
export function isPlainObject(v: unknown): v is Record<string, unknown> {
  return typeof v === "object" && v !== null && !Array.isArray(v);
}

/**
 * The implicit label of every model-decided question: the answer when the model is not
 * confident enough or refuses. Reserved: no question may declare it.
 */
export const UNCERTAIN = "uncertain";

const DURATION_UNIT_MS: Record<string, number> = { ms: 1, s: 1000, m: 60_000, h: 3_600_000 };

/**
 * The one duration grammar, for playbooks (`timeout`, `max_duration`), the machine
 * config (a provider's `timeout`) and flags (`--max-duration`): one or more parts, each a number
 * (digits, optionally with a decimal fraction) and a unit `ms`, `s`, `m` or `h`, with nothing
 * between them: "90s", "1.5s", "500ms", "10m", "1h30m". At most 32 characters; the total must be
 * above zero. Returns whole milliseconds (rounded), or undefined when the text is not a duration.
 */
export function parseDurationMs(text: string): number | undefined {
  if (text.length === 0 || text.length > 32) return undefined;
  const part = /(\d+(?:\.\d+)?)(ms|s|m|h)/y; // local: a sticky regex carries lastIndex
  let total = 0;
  for (let at = 0; at < text.length; at = part.lastIndex) {
    part.lastIndex = at;
    const m = part.exec(text);
    if (!m) return undefined;
    total += Number(m[1]) * DURATION_UNIT_MS[m[2]!]!;
  }
  const ms = Math.round(total);
  return ms > 0 && Number.isSafeInteger(ms) ? ms : undefined;
}

/** The same grammar in seconds (a playbook's `timeout_seconds`, `max_duration_seconds`). */
export function parseDurationSeconds(text: string): number | undefined {
  const ms = parseDurationMs(text);
  return ms === undefined ? undefined : ms / 1000;
}
