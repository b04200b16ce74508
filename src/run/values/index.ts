// The door of src/run/values: plain JSON values as instances pass them along — the plain-object
// check, stable serialisation, emitted-field checks, error text.
// Files outside this room import only this file (eslint.config.js; docs/architecture.md).

export { checkEmits, errorText, isPlainObject, stableStringify } from "./values.js";
