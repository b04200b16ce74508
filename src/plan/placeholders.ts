// The placeholder shape of agent prompts (T-2), the same one the run engine substitutes
// (src/run/template.ts): `{{key}}`, `{{inputs.DEP}}`, `{{inputs.DEP.FIELD}}`; other `{{...}}`
// text is left as is. Global: use with matchAll.

/** A `{{name.path}}` placeholder in a prompt or command template (T-20); global, for matchAll. */
export const PLACEHOLDER = /\{\{\s*([A-Za-z_][A-Za-z0-9_]*(?:\.[A-Za-z_][A-Za-z0-9_]*)*)\s*\}\}/g;
