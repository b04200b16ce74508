// Duration strings of playbooks (`timeout`, `max_duration`): "90s", "10m", "2h", "1h30m".

const PART = /(\d+)(h|m|s)/y;
const UNIT_SECONDS: Record<string, number> = { h: 3600, m: 60, s: 1 };

/** Seconds, or undefined when the text is not a positive duration. */
export function parseDuration(text: string): number | undefined {
  if (text.length === 0 || text.length > 32) return undefined;
  let total = 0;
  let at = 0;
  PART.lastIndex = 0;
  while (at < text.length) {
    PART.lastIndex = at;
    const m = PART.exec(text);
    if (!m) return undefined;
    total += Number(m[1]) * UNIT_SECONDS[m[2]];
    at = PART.lastIndex;
  }
  return total > 0 && Number.isSafeInteger(total) ? total : undefined;
}
