// An instance named on the command line, TASK or TASK[KEY], found in a run: `logs` and `explain`
// read it the same way and refuse a task or key the run does not have with the nearest one.

import { nearestName } from "../lang/diagnostic.js";
import type { Store } from "../run/index.js";
import type { InstanceRow, TaskRow } from "../run/store/index.js";
import { UsageError } from "./common.js";

/** `task`, or `task[key]` (the key may itself hold brackets: everything up to the last `]`). */
export function parseInstance(spec: string): { task: string; key: string | null } {
  const open = spec.indexOf("[");
  if (open < 0) return { task: spec, key: null };
  if (!spec.endsWith("]"))
    throw new UsageError("usage", `cannot read the instance ${JSON.stringify(spec)}`, {
      hint: "write TASK for an unmapped task, or TASK[KEY] for one element, e.g. review[T7] (quote it in the shell)",
    });
  return { task: spec.slice(0, open), key: spec.slice(open + 1, -1) };
}

/** The run's task named `task`; a usage error naming the nearest task when it has none. */
export function taskOf(store: Store, run: string, task: string): TaskRow {
  const tasks = store.tasks(run);
  const t = tasks.find((x) => x.task === task);
  if (t) return t;
  const near = nearestName(
    task,
    tasks.map((x) => x.task),
  );
  throw new UsageError("usage", `run ${run} has no task ${task}`, {
    hint: near ? `did you mean ${near}?` : `tasks: ${tasks.map((x) => x.task).join(", ")}`,
  });
}

/** The instance TASK[KEY] of the run, checked against the task's being mapped or not. */
export function instanceOf(store: Store, run: string, spec: string): { t: TaskRow; inst: InstanceRow } {
  const { task, key } = parseInstance(spec);
  const t = taskOf(store, run, task);
  if (t.mapped && key === null)
    throw new UsageError("usage", `${task} is mapped: say which element, e.g. ${task}[KEY]`, {
      hint: `keys: switchyard show ${run} --task ${task}`,
    });
  if (!t.mapped && key !== null) throw new UsageError("usage", `${task} is not mapped: write just ${task}`);
  const rows = store.instances(run, task);
  const inst = rows.find((r) => r.key === key);
  if (!inst) {
    const near = nearestName(
      key ?? "",
      rows.map((r) => r.key ?? ""),
    );
    throw new UsageError("usage", `${task} has no instance ${spec} in run ${run}`, {
      hint: near ? `did you mean ${task}[${near}]?` : "it may not have been reached yet",
    });
  }
  return { t, inst };
}
