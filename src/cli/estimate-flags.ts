// The flags `check`, `estimate` and `run --dry-run` share about sizes and shares: a count (the
// state-size limit, elements), and a share of work not taken, each checked with a message that
// names the flag.

import { UsageError } from "./common.js";
import { DEFAULT_STATE_WARN_TOKENS } from "../plan/state-size.js";

/** `--state-warn-tokens N`: the help text of the limit of `route-state-large`. */
export const STATE_WARN_HELP = `warn when a route's state per element is estimated above N tokens (default ${DEFAULT_STATE_WARN_TOKENS})`;

/** A whole-number flag of at least `min`, or undefined when not given. */
export function countFlag(flag: string, v: string | undefined, min = 1): number | undefined {
  if (v === undefined) return undefined;
  const n = Number(v);
  if (v.trim() === "" || !Number.isSafeInteger(n) || n < min)
    throw new UsageError("usage", `${flag} must be a whole number of at least ${min}, got ${JSON.stringify(v)}`);
  return n;
}

/** `--skip-share S`: a share of gated work not taken, 0 … 1 (or a percentage 0% … 100%). */
export function shareFlag(flag: string, v: string | undefined): number | undefined {
  if (v === undefined) return undefined;
  const percent = v.endsWith("%");
  const n = Number(percent ? v.slice(0, -1) : v) / (percent ? 100 : 1);
  if (v.trim() === "" || !Number.isFinite(n) || n < 0 || n > 1)
    throw new UsageError("usage", `${flag} must be a share from 0 to 1 (or 0% to 100%), got ${JSON.stringify(v)}`, {
      hint: `e.g. ${flag} 0.5 or ${flag} 50%`,
    });
  return n;
}
