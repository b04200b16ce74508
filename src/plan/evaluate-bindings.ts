// T-4: a plan names an evaluate() function by module and name, so at the end of its module that
// name must still be bound to the very function given (a later `def` or assignment of the same
// name would make the plan run other code).

import { errorAt, type Diagnostic } from "../lang/diagnostic.js";
import type { Value } from "../lang/index.js";
import type { DeclTask } from "./declared.js";

/**
 * One error per evaluate() task whose function is no longer what its name refers to at the end
 * of its module. `globalsOf` gives a module's final globals by pack-relative path; tasks of a
 * module that `hasFailed` are skipped (its errors are reported already).
 */
export function evaluateBindingProblems(
  tasks: readonly DeclTask[],
  globalsOf: (rel: string) => ReadonlyMap<string, Value> | undefined,
  hasFailed: (rel: string) => boolean,
): Diagnostic[] {
  const problems: Diagnostic[] = [];
  for (const t of tasks) {
    if (!t.evaluate || hasFailed(t.evaluate.module)) continue;
    const bound = globalsOf(t.evaluate.module)?.get(t.evaluate.function);
    if (bound === t.evaluate.fn) continue;
    problems.push(
      errorAt(
        "evaluate-not-top-level",
        `evaluate() fn '${t.evaluate.function}' is not what the name '${t.evaluate.function}' refers to at the end of ${t.evaluate.module}, so the plan could not find it by name`,
        t.evaluate.fnPos,
        "give each evaluate function its own name and do not rebind it (T-4)",
      ),
    );
  }
  return problems;
}
