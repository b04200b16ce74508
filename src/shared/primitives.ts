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
