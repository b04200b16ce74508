// The public API of src/plan: compile a pack or playbook, read and write plans, load evaluate
// functions at run time, and the code catalog.

export { compilePath, compilePlaybook, type CompileResult, type CompileOptions } from "./compile.js";
export { writePlanToml, readPlanToml } from "./toml.js";
export { loadEvaluator, type Evaluator, type EvaluatorOptions } from "./evaluator.js";
export { PLAN_CODES, planCode, type CodeEntry } from "./codes.js";
export { packDigest, packSourceFiles, resolveTarget, displayPath, type PackTarget } from "./pack.js";
export { parseDurationSeconds as parseDuration } from "../shared/primitives.js";
export { COMPILER_VERSION } from "./version.js";
export * from "./plan.js";
