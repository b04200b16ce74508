// The grid's status letters (one per instance, as the grid document sends them) and their names.

/** A status letter of the grid spelled out, for titles and filters. */
export const STATUS_NAME: Record<string, string> = {
  p: "pending",
  r: "running",
  w: "waiting",
  P: "passed",
  F: "failed",
  n: "not_taken",
  b: "blocked",
  "-": "not reached",
};

/** A status letter's name; an unknown letter is shown as itself. */
export function statusName(s: string): string {
  return STATUS_NAME[s] ?? s;
}
