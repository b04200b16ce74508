// Small checks for reading providers' JSON: is it an object, and how to name what it was instead.

/** Whether a value is a plain JSON object (not null, not an array). */
export function isRecord(v: unknown): v is Record<string, unknown> {
  return v !== null && typeof v === "object" && !Array.isArray(v);
}

/** What a value is, for messages such as "expected an object, got an array". */
export function shape(v: unknown): string {
  if (v === null) return "null";
  if (Array.isArray(v)) return "an array";
  return typeof v === "object" ? "an object" : `${typeof v} ${JSON.stringify(v)}`;
}
