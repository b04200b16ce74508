// The short diff shown with a miss (issue 29): what changed between the recorded request's text
// and the new one. JSON texts are compared pretty-printed, so a changed field is its own line;
// the lines both share at the start and the end are left out, and at most a few are shown.

const SHOWN = 6;
const WIDTH = 160;

function lines(text: string): string[] {
  const t = text.trim();
  if (t.startsWith("{") || t.startsWith("[")) {
    try {
      return JSON.stringify(JSON.parse(t), null, 1).split("\n");
    } catch {
      // not JSON after all: compared as text
    }
  }
  return text.split("\n");
}

const clip = (s: string) => (s.length > WIDTH ? `${s.slice(0, WIDTH - 1)}…` : s);

/** `- old` / `+ new` lines of the part that differs; empty when the texts are equal. */
export function shortDiff(before: string, after: string): string[] {
  const a = lines(before);
  const b = lines(after);
  let start = 0;
  while (start < a.length && start < b.length && a[start] === b[start]) start++;
  let endA = a.length;
  let endB = b.length;
  while (endA > start && endB > start && a[endA - 1] === b[endB - 1]) {
    endA--;
    endB--;
  }
  const out: string[] = [];
  const side = (xs: string[], sign: string) => {
    for (const x of xs.slice(0, SHOWN)) out.push(`${sign} ${clip(x.trim())}`);
    if (xs.length > SHOWN) out.push(`${sign} … ${xs.length - SHOWN} more line${xs.length - SHOWN === 1 ? "" : "s"}`);
  };
  side(a.slice(start, endA), "-");
  side(b.slice(start, endB), "+");
  return out;
}
