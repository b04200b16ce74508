// The review queue's keys in the machine config (D-60 … D-66): `review_timeout` (in a
// `[decisions.types]` entry, or in [decisions] as the default for every review question) and
// `review_notify` in [decisions]. Read here so that the config reader only calls them.

import { parseDurationMs } from "../shared/primitives.js";

/** How a review key reports a problem: the config reader's own reporting. */
export interface ReviewKeyContext {
  error(code: string, path: readonly string[], message: string, hint?: string, atValue?: boolean): void;
  wrongType(path: readonly string[], value: unknown, expected: string): void;
}

/** `review_timeout = "4h"` in milliseconds; undefined when absent or wrong (reported). */
export function reviewTimeout(ctx: ReviewKeyContext, value: unknown, path: readonly string[], name: string): number | undefined {
  if (value === undefined) return undefined;
  if (typeof value !== "string") {
    ctx.wrongType(path, value, 'a duration such as "4h" or "30m"');
    return undefined;
  }
  const ms = parseDurationMs(value);
  if (ms === undefined)
    ctx.error(
      "config-bad-value",
      path,
      `${name} = "${value}" is not a duration`,
      'write a number and a unit (ms, s, m, h), e.g. review_timeout = "4h" or "1h30m"',
      true,
    );
  return ms;
}

/** `review_notify = ["cmd", "arg", …]`: a command run without a shell; undefined when absent or wrong (reported). */
export function reviewNotify(ctx: ReviewKeyContext, value: unknown, path: readonly string[]): string[] | undefined {
  if (value === undefined) return undefined;
  if (!Array.isArray(value) || value.some((x) => typeof x !== "string")) {
    ctx.wrongType(path, value, 'an array of strings, the command and its arguments (e.g. ["./notify.sh", "#triage"])');
    return undefined;
  }
  if (value.length === 0 || (value[0] as string).length === 0) {
    ctx.error("config-bad-value", path, "decisions.review_notify names no command", 'write e.g. review_notify = ["./notify.sh"]', true);
    return undefined;
  }
  return value as string[];
}
