// The `switchyard show RUN --json` document, built from the projections. Scripts depend on this
// shape (docs/runs.md): keep it stable, add fields only.

import type { Store } from "./store.js";
import type { FoldSummary } from "./events.js";

export interface ShownInstance {
  status: string;
  output: unknown;
  error: string | null;
  attempts: number;
  /** Only for not_taken: the label that closed the gate (absent when none applies). */
  label?: string;
}

export interface ShownTask {
  kind: string;
  status: string;
  mapped: boolean;
  summary?: FoldSummary;
  output?: unknown;
  error?: string | null;
  /** Unmapped and not taken: the label that closed the gate. */
  label?: string;
  instances?: Record<string, ShownInstance>;
}

export interface ShowJson {
  run: string;
  status: string;
  playbook: string;
  started_at: string;
  finished_at: string | null;
  tasks: Record<string, ShownTask>;
}

export function showRun(store: Store, run: string, only?: string): ShowJson | undefined {
  const r = store.run(run);
  if (!r) return undefined;
  const tasks: Record<string, ShownTask> = {};
  const rows = store.instances(run, only);
  const byTask = new Map<string, typeof rows>();
  for (const row of rows) {
    let list = byTask.get(row.task);
    if (!list) byTask.set(row.task, (list = []));
    list.push(row);
  }
  for (const t of store.tasks(run)) {
    if (only !== undefined && t.task !== only) continue;
    const insts = byTask.get(t.task) ?? [];
    if (t.mapped) {
      const instances: Record<string, ShownInstance> = {};
      const summary: FoldSummary = { total: t.count ?? insts.length, passed: 0, failed: 0, not_taken: 0, blocked: 0 };
      for (const i of insts) {
        const shown: ShownInstance = { status: i.status, output: i.output, error: i.error, attempts: i.attempts };
        if (i.status === "not_taken" && i.label !== null) shown.label = i.label;
        instances[i.key!] = shown;
        if (i.status in summary && i.status !== "total") summary[i.status as keyof Omit<FoldSummary, "total">] += 1;
      }
      tasks[t.task] = {
        kind: t.kind,
        status: t.status,
        mapped: true,
        summary: (t.summary as FoldSummary | null) ?? summary,
        ...(t.error ? { error: t.error } : {}),
        instances,
      };
    } else {
      const i = insts[0];
      tasks[t.task] = {
        kind: t.kind,
        status: t.status,
        mapped: false,
        output: i?.output ?? null,
        error: i?.error ?? t.error ?? null,
        ...(i?.status === "not_taken" && i.label !== null ? { label: i.label } : {}),
      };
    }
  }
  return { run: r.run, status: r.status, playbook: r.playbook, started_at: r.started_at, finished_at: r.finished_at, tasks };
}
