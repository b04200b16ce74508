// Reads the documents of the web view (src/ui/api-types.ts) from the state folder's store: the
// run list, a run with its plan, the grid, a cell and the events after a sequence number. Only
// reads: the store is never appended to. The queries are the store's (src/run/store/readers/
// run-view.ts), each bounded by one run, so a page costs what that run holds, not the folder.

import { instanceUsage, runView, showRun, type FoldSummary, type Store, type Usage } from "../run/index.js";
import type { Plan, TaskPlan } from "../plan/plan.js";
import { decisionsOf, errorCode, routeCell } from "./decisions.js";
import {
  STATUS_LETTER,
  type ApiEvent,
  type CellDoc,
  type CellRound,
  type CellWhy,
  type GraphTask,
  type InstancePage,
  type GridDoc,
  type RunDoc,
  type RunListItem,
  type StatusName,
} from "./api-types.js";
import { isPlainObject, parseJson } from "../shared/primitives.js";
import { roundPrompt } from "./attempt-files.js";
import { routeStateText } from "../run/cassette/index.js";

/** Which instances GET /api/runs/ID/instances returns: by task, status and key substring. */
export interface InstanceFilter {
  task?: string;
  status?: string;
  /** A substring of the key. */
  key?: string;
  offset: number;
  limit: number;
}

/** The gate of a task in words: "match.package ∈ uncertain", "gate.depth otherwise". */
function gateText(t: TaskPlan): string | null {
  if (!t.when) return null;
  const at = `${t.when.route}.${t.when.question}`;
  if (!t.when.otherwise) return `${at} ∈ ${t.when.labels.join(", ")}`;
  return t.when.labels.length ? `${at} otherwise (${t.when.labels.join(", ")})` : `${at} otherwise`;
}

function graphOf(plan: Plan): GraphTask[] {
  return plan.tasks.map((t) => ({
    name: t.name,
    kind: t.kind,
    mapped: t.over !== undefined,
    depends_on: t.depends_on,
    aligned_with: t.aligned_with,
    join: t.join,
    gate: gateText(t),
  }));
}

/** Reads the web view's documents from a store, one run at a time; never writes. */
export class RunReader {
  private readonly plans = new Map<string, Plan>();

  constructor(readonly store: Store) {}

  hasRun(run: string): boolean {
    return this.store.run(run) !== undefined;
  }

  plan(run: string): Plan | undefined {
    let p = this.plans.get(run);
    if (!p) {
      const payload = runView.admittedPayload(this.store, run);
      if (payload === undefined) return undefined;
      p = (JSON.parse(payload) as { plan: Plan }).plan;
      this.plans.set(run, p);
    }
    return p;
  }

  /** Every run, newest first. */
  runs(): RunListItem[] {
    const counts = new Map<string, Record<string, number>>();
    for (const r of runView.instanceCountsByRun(this.store)) {
      let c = counts.get(r.run);
      if (!c) counts.set(r.run, (c = {}));
      c[r.status] = r.n;
    }
    // Runs with no route answer skip the count per question (one query per run that has any).
    const decisions = new Map(runView.decisionCountsByRun(this.store).map((r) => [r.run, r.n > 0 ? this.decisionCount(r.run) : 0]));
    return this.store
      .runs()
      .reverse()
      .map((r) => this.listing(r.run, counts.get(r.run) ?? {}, decisions.get(r.run) ?? 0)!);
  }

  /** Decisions as the CLI counts them: each question of each route instance that passed. */
  private decisionCount(run: string): number {
    const plan = this.plan(run);
    if (!plan) return 0;
    const questions = new Map(plan.tasks.map((t) => [t.name, t.kind === "route" ? t.route.questions.length : 0]));
    let n = 0;
    for (const row of runView.instanceCountsByTask(this.store, run))
      if (row.status === "passed") n += row.n * (questions.get(row.task) ?? 0);
    return n;
  }

  private listing(run: string, counts: Record<string, number>, decisions: number): RunListItem | undefined {
    const r = this.store.run(run);
    if (!r) return undefined;
    // Every recorded field but the process id, which only the engine needs.
    const { pid: _pid, ...row } = r;
    return { ...row, counts, decisions };
  }

  lastSeq(run: string): number {
    return this.store.eventCount(run);
  }

  /**
   * The run without mapped tasks' instances: those are read as the grid or in pages, so a run of
   * 10,000 elements is not parsed whole here. Unmapped tasks are exactly as `show --json` has them.
   */
  runDoc(run: string): RunDoc | undefined {
    const r = this.store.run(run);
    const plan = this.plan(run);
    if (!r || !plan) return undefined;
    const counts: Record<string, number> = {};
    const perTask = new Map<string, FoldSummary>();
    for (const row of runView.instanceCountsByTask(this.store, run)) {
      counts[row.status] = (counts[row.status] ?? 0) + row.n;
      let s = perTask.get(row.task);
      if (!s) perTask.set(row.task, (s = { total: 0, passed: 0, failed: 0, not_taken: 0, blocked: 0 }));
      if (row.status in s && row.status !== "total") s[row.status as Exclude<keyof FoldSummary, "total">] += row.n;
    }
    const tasks: RunDoc["tasks"] = {};
    for (const t of this.store.tasks(run)) {
      if (!t.mapped) {
        tasks[t.task] = showRun(this.store, run, t.task)!.tasks[t.task]!;
        continue;
      }
      const live = perTask.get(t.task) ?? { total: 0, passed: 0, failed: 0, not_taken: 0, blocked: 0 };
      live.total = t.count ?? 0;
      tasks[t.task] = {
        kind: t.kind,
        status: t.status,
        mapped: true,
        summary: (t.summary as FoldSummary | null) ?? live,
        ...(t.error ? { error: t.error } : {}),
      };
    }
    return {
      run: r.run,
      status: r.status,
      playbook: r.playbook,
      started_at: r.started_at,
      finished_at: r.finished_at,
      tasks,
      listing: this.listing(run, counts, this.decisionCount(run))!,
      graph: graphOf(plan),
      last_seq: this.lastSeq(run),
    };
  }

  /** The grid: one row per key, one column per mapped task (keys in order, as strings sort). */
  grid(run: string): GridDoc | undefined {
    const plan = this.plan(run);
    if (!plan) return undefined;
    const lastSeq = this.lastSeq(run);
    const mapped = plan.tasks.filter((t) => t.over !== undefined);
    const rows = runView.gridRows(this.store, run);
    const keySet = new Set<string>();
    for (const r of rows) keySet.add(r.key);
    const keys = [...keySet].sort();
    const index = new Map(keys.map((k, i) => [k, i]));
    const doc: GridDoc = {
      run,
      tasks: mapped.map((t) => ({
        name: t.name,
        kind: t.kind,
        ...(t.kind === "route" ? { questions: t.route.questions.map((q) => q.name) } : {}),
      })),
      keys,
      status: {},
      label: {},
      confidence: {},
      answers: {},
      code: {},
      last_seq: lastSeq,
    };
    const letters = new Map<string, string[]>();
    for (const t of mapped) {
      letters.set(t.name, new Array<string>(keys.length).fill("-"));
      doc.label[t.name] = new Array<string | null>(keys.length).fill(null);
      doc.confidence[t.name] = new Array<number | null>(keys.length).fill(null);
      // A one-question route's answer is its label and confidence: only several are sent apart.
      if (t.kind === "route" && t.route.questions.length > 1)
        doc.answers[t.name] = new Array<GridDoc["answers"][string][number]>(keys.length).fill(null);
    }
    const kinds = new Map(mapped.map((t) => [t.name, t.kind]));
    for (const r of rows) {
      const col = letters.get(r.task);
      if (!col) continue;
      const i = index.get(r.key)!;
      col[i] = STATUS_LETTER[r.status as StatusName] ?? "-";
      if (r.status === "not_taken") doc.label[r.task]![i] = r.label;
      else if (r.status === "passed" && kinds.get(r.task) === "route" && r.output !== null) {
        const c = routeCell(JSON.parse(r.output));
        doc.label[r.task]![i] = c.label;
        doc.confidence[r.task]![i] = c.confidence;
        const answers = doc.answers[r.task];
        if (answers) answers[i] = c.answers;
      }
    }
    this.failureCodes(run, index, mapped.length, doc.code);
    for (const [name, col] of letters) doc.status[name] = col.join("");
    return doc;
  }

  /** Each failed cell's code, read from its error ("CODE: message"), into `codes[task][row]`. */
  private failureCodes(run: string, index: Map<string, number>, tasks: number, codes: GridDoc["code"]): void {
    const failed = runView.instancePage(this.store, run, { task: null, status: "failed", key: null, limit: index.size * tasks, offset: 0 });
    for (const r of failed.rows) {
      const i = index.get(r.key);
      const code = errorCode(r.error);
      if (i !== undefined && code !== null) (codes[r.task] ??= {})[i] = code;
    }
  }

  /** A cell: the instance row, its code, its decision and its events (files are added by cell-files.ts). */
  cell(run: string, taskName: string, key: string | null): CellDoc | undefined {
    const plan = this.plan(run);
    if (!plan) return undefined;
    const task = plan.tasks.find((t) => t.name === taskName);
    if (!task || (task.over !== undefined) !== (key !== null)) return undefined;
    const row = runView.instanceRow(this.store, run, taskName, key ?? "");
    if (!row) return undefined;
    const output = row.output === null ? null : parseJson(row.output);
    const code = runView.latestFailureCode(this.store, run, taskName, key);
    const events = runView.instanceEvents(this.store, run, taskName, key).map((e) => ({
      seq: e.seq,
      time: e.time,
      type: e.type,
      payload: parseJson(e.payload),
    }));
    return {
      run,
      task: taskName,
      kind: task.kind,
      key,
      status: row.status,
      attempts: row.attempts,
      output,
      error: row.error,
      code: row.status === "failed" || row.status === "pending" ? code : null,
      label: row.label,
      decisions: task.kind === "route" ? decisionsOf(output, { plan, route: taskName }) : [],
      ...(row.status === "not_taken" || row.status === "blocked" ? { why: this.why(run, plan, task, key, events) } : {}),
      rounds: roundsOf(events),
      attempt_files: [],
      events,
    };
  }

  /** Why an instance did not run: its last recorded reason, its gate, and the route's answer behind it. */
  private why(run: string, plan: Plan, task: TaskPlan, key: string | null, events: CellDoc["events"]): CellWhy {
    let reason: string | null = null;
    for (const e of events) {
      const p = e.payload;
      if (!isPlainObject(p)) continue;
      if (e.type === "gate_closed" && typeof p.reason === "string") reason = p.reason;
      else if (e.type === "instance_finished" && typeof p.error === "string") reason = p.error;
    }
    const w = task.when;
    if (!w) return { reason, gate: null, answer: null };
    const routeKey = plan.tasks.find((t) => t.name === w.route)?.over !== undefined ? key : null;
    const row = runView.instanceRow(this.store, run, w.route, routeKey ?? "");
    const output = row?.output ? parseJson(row.output) : null;
    const decision = decisionsOf(output, { plan, route: w.route }).find((d) => d.question === w.question) ?? null;
    return { reason, gate: gateText(task), answer: { task: w.route, key: routeKey, question: w.question, decision } };
  }

  /**
   * What only the live cell page shows, read from the run folder and the whole log: each revise
   * round's prompt and, for a model-decided route cell, the state the model saw.
   */
  addDetails(cell: CellDoc): void {
    const dir = this.store.runDir(cell.run);
    for (const r of cell.rounds) r.prompt = roundPrompt(dir, cell.task, cell.key, r.attempt, r.round);
    if (cell.kind === "route" && (cell.status === "passed" || cell.status === "waiting")) {
      const state = routeStateText(this.store, cell.run, cell.task, cell.key);
      if (state !== undefined) cell.state = state;
    }
  }

  /** Every cell's document without events or files (what a `show --html` file embeds). */
  allCells(run: string): Record<string, Record<string, CellDoc>> {
    const plan = this.plan(run);
    const out: Record<string, Record<string, CellDoc>> = {};
    if (!plan) return out;
    const kinds = new Map(plan.tasks.map((t) => [t.name, t.kind]));
    for (const i of this.store.instances(run)) {
      const cells = (out[i.task] ??= {});
      cells[i.key ?? ""] = {
        run,
        task: i.task,
        kind: kinds.get(i.task) ?? "",
        key: i.key,
        status: i.status,
        attempts: i.attempts,
        output: i.output,
        error: i.error,
        code: i.status === "failed" ? errorCode(i.error) : null,
        label: i.label,
        decisions: kinds.get(i.task) === "route" ? decisionsOf(i.output, { plan, route: i.task }) : [],
        rounds: [],
        attempt_files: [],
        events: [],
      };
    }
    return out;
  }

  /** A page of instances in the `show --json` instance shape, with their task and key. */
  instances(run: string, f: InstanceFilter): InstancePage {
    const [task, status, key] = [f.task ?? null, f.status ?? null, f.key ?? null];
    const { total, rows } = runView.instancePage(this.store, run, { task, status, key, limit: f.limit, offset: f.offset });
    // Tokens and cost as `show --json` gives them, for the instances of this page.
    const usage = rows.length > 0 ? instanceUsage(this.store, run, task ?? undefined) : new Map<string, Usage>();
    return {
      run,
      total,
      offset: f.offset,
      limit: f.limit,
      instances: rows.map((r) => ({
        task: r.task,
        key: r.key === "" ? null : r.key,
        status: r.status,
        output: r.output === null ? null : parseJson(r.output),
        error: r.error,
        attempts: r.attempts,
        ...(r.status === "not_taken" && r.label !== null ? { label: r.label } : {}),
        ...(usage.has(`${r.task}\u0000${r.key}`) ? { usage: usage.get(`${r.task}\u0000${r.key}`) } : {}),
      })),
    };
  }

  /** Events after `after`, at most `limit`, in the `run --json` shape. */
  eventsAfter(run: string, after: number, limit: number): ApiEvent[] {
    return this.store.eventsAfter(run, after, limit).map((e) => ({
      run,
      seq: e.seq,
      time: e.time,
      type: e.type,
      task: e.task,
      key: e.key,
      payload: JSON.parse(e.payload) as Record<string, unknown>,
    }));
  }

  /** A cheap fingerprint per run (status, last activity, spend) to tell which runs changed. */
  fingerprints(): Map<string, string> {
    const m = new Map<string, string>();
    for (const r of runView.runActivity(this.store)) m.set(r.run, `${r.status} ${r.inv_last} ${r.spent_usd}`);
    return m;
  }
}

/** A revise cell's rounds from its `revise_round` events (prompts are added from the run folder by the server). */
function roundsOf(events: CellDoc["events"]): CellRound[] {
  const out: CellRound[] = [];
  for (const e of events) {
    const p = e.payload;
    if (e.type !== "revise_round" || !isPlainObject(p) || typeof p.attempt !== "number" || typeof p.round !== "number") continue;
    out.push({
      attempt: p.attempt,
      round: p.round,
      prompt: null,
      output: p.body,
      verdict: String(p.verdict),
      ...(p.feedback !== undefined ? { feedback: p.feedback } : {}),
    });
  }
  return out;
}
