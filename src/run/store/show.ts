// The `switchyard show RUN --json` document, built from the projections. Scripts depend on this
// shape (docs/runs.md): keep it stable, add fields only.

import type { Sql, Store } from "./store.js";
import { decodeEvent, type FoldSummary, type RerunRequest, type StoredEvent } from "./events.js";
import { sumUsage, type Usage } from "./decision-record.js";

/** One instance as `show --json` prints it. */
export interface ShownInstance {
  status: string;
  output: unknown;
  error: string | null;
  attempts: number;
  /** Only for not_taken: the label that closed the gate (absent when none applies). */
  label?: string;
  /** What a rerun cleared, oldest first: the earlier status and output or answer. */
  earlier?: EarlierResult[];
  /** Tokens and cost_usd its attempts reported, summed over all of them (agents). */
  usage?: Usage;
}

/** An instance's result from before a rerun reset it. */
export interface EarlierResult {
  reset_at: string;
  reason: "rerun" | "downstream";
  status: string;
  output?: unknown;
  error?: string;
  label?: string;
  /** A route's decision kept through the reset (reused if its gate opened again). */
  kept?: boolean;
}

/** One `switchyard rerun` of the run. */
export interface ShownRerun extends RerunRequest {
  time: string;
  reset: number;
  /** The new pack snapshot, for --refresh-pack. */
  snapshot?: string;
}

/** One task as `show --json` prints it. */
export interface ShownTask {
  kind: string;
  status: string;
  mapped: boolean;
  summary?: FoldSummary;
  output?: unknown;
  error?: string | null;
  /** Unmapped and not taken: the label that closed the gate. */
  label?: string;
  /** Unmapped: what reruns cleared, oldest first. */
  earlier?: EarlierResult[];
  /** Unmapped: the tokens and cost_usd its attempts reported (agents). */
  usage?: Usage;
  instances?: Record<string, ShownInstance>;
}

/** What `show --json` prints: the run, its tasks, their instances, usage and cost. */
export interface ShowJson {
  run: string;
  status: string;
  playbook: string;
  started_at: string;
  finished_at: string | null;
  tasks: Record<string, ShownTask>;
  /** Only when the run was rerun. */
  reruns?: ShownRerun[];
}

const RERUN_EVENTS: Sql = {
  sqlite:
    "SELECT seq, time, type, task, key, payload FROM events WHERE run = ? AND type IN ('rerun_requested', 'pack_refreshed', 'instance_reset') ORDER BY seq",
};

const USAGE_EVENTS: Sql = {
  sqlite:
    "SELECT seq, time, type, task, key, payload FROM events WHERE run = ? AND type IN ('instance_finished', 'instance_retried', 'instance_interrupted') AND payload LIKE '%\"usage\":%' ORDER BY seq",
};

/** Per instance ("task\0key"), the usage its attempts reported, summed: what it was charged. */
export function instanceUsage(store: Store, run: string, only?: string): Map<string, Usage> {
  const out = new Map<string, Usage>();
  for (const e of store.select<StoredEvent>(USAGE_EVENTS, [run]).map((row) => decodeEvent(run, row))) {
    if (only !== undefined && e.task !== only) continue;
    const u = (e.payload as { usage?: Usage }).usage;
    const id = `${e.task}\u0000${e.key ?? ""}`;
    const sum = sumUsage(out.get(id), u);
    if (sum) out.set(id, sum);
  }
  return out;
}

/** The reruns of a run and, per instance ("task\0key"), what they cleared, from the event log. */
function rerunHistory(store: Store, run: string, only?: string) {
  const reruns: ShownRerun[] = [];
  const earlier = new Map<string, EarlierResult[]>();
  const rows = store.select<StoredEvent>(RERUN_EVENTS, [run]);
  for (const r of rows.map((row) => decodeEvent(run, row))) {
    if (r.type === "rerun_requested") {
      const { pid: _, ...req } = r.payload;
      reruns.push({ time: r.time, ...req });
    } else if (r.type === "pack_refreshed") {
      const last = reruns[reruns.length - 1];
      if (last) last.snapshot = r.payload.snapshot.dir;
    } else if (r.type === "instance_reset" && (only === undefined || r.task === only)) {
      const p = r.payload;
      const id = `${r.task}\u0000${r.key ?? ""}`;
      let list = earlier.get(id);
      if (!list) earlier.set(id, (list = []));
      list.push({
        reset_at: r.time,
        reason: p.reason,
        status: p.previous.status,
        ...(p.previous.output !== undefined ? { output: p.previous.output } : {}),
        ...(p.previous.error !== undefined ? { error: p.previous.error } : {}),
        ...(p.previous.label !== undefined ? { label: p.previous.label } : {}),
        ...(p.keep_decision ? { kept: true } : {}),
      });
    }
  }
  return { reruns, earlier };
}

/** A run as `show --json` prints it (only one task's instances with `only`); undefined when there is no such run. */
export function showRun(store: Store, run: string, only?: string): ShowJson | undefined {
  const r = store.run(run);
  if (!r) return undefined;
  const tasks: Record<string, ShownTask> = {};
  const history = rerunHistory(store, run, only);
  const usage = instanceUsage(store, run, only);
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
        const before = history.earlier.get(`${t.task}\u0000${i.key}`);
        if (before) shown.earlier = before;
        const used = usage.get(`${t.task}\u0000${i.key}`);
        if (used) shown.usage = used;
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
        ...(history.earlier.has(`${t.task}\u0000`) ? { earlier: history.earlier.get(`${t.task}\u0000`) } : {}),
        ...(usage.has(`${t.task}\u0000`) ? { usage: usage.get(`${t.task}\u0000`) } : {}),
      };
    }
  }
  return {
    run: r.run,
    status: r.status,
    playbook: r.playbook,
    started_at: r.started_at,
    finished_at: r.finished_at,
    tasks,
    ...(history.reruns.length ? { reruns: history.reruns } : {}),
  };
}
