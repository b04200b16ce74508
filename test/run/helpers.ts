// Builds Plan objects in TypeScript and runs them against a real store in a temp folder.

import { mkdtempSync, mkdirSync, rmSync, writeFileSync, chmodSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { FieldRef, FieldType, Plan, QuestionPlan, TaskKind, TaskOf, TaskPlan, WhenPlan } from "../../src/plan/plan.js";
import {
  admitRun,
  RunEngine,
  showRun,
  type Store,
  type EngineOptions,
  type RunOutcome,
  type ShowJson,
  type SettingsOverrides,
} from "../../src/run/index.js";
import type { AgentRunnerConfig } from "../../src/run/agents/agent-runner-config.js";
import { testStore } from "../support/test-store.js";

export type Fn = (input: any) => unknown; // eslint-disable-line @typescript-eslint/no-explicit-any

type Extra = Partial<Omit<TaskPlan, "name" | "kind">>;

/** A task of kind K; `extra` carries K's spec (a test builds plans by hand, as the compiler would). */
function base<K extends TaskKind>(name: string, kind: K, extra: Extra): TaskOf<K> {
  return {
    name,
    kind,
    depends_on: [],
    join: "all",
    aligned_with: [],
    keyed: [],
    timeout_seconds: 30,
    retries: 0,
    emits: {},
    declared_at: { file: "test.star", line: 1, col: 1 },
    ...extra,
  } as TaskOf<K>;
}

export const ref = (task: string, field: string): FieldRef => ({ task, field });

export function command(name: string, run: string, extra: Extra = {}): TaskOf<"command"> {
  return base(name, "command", { command: { run, env: {} }, ...extra });
}

export function evaluate(name: string, extra: Extra = {}): TaskOf<"evaluate"> {
  return base(name, "evaluate", { evaluate: { module: "test.star", function: name }, ...extra });
}

export function agent(name: string, prompt: string, extra: Extra & { files?: string[]; runner?: string } = {}): TaskOf<"agent"> {
  const { files, runner, ...rest } = extra;
  return base(name, "agent", { agent: { prompt, effort: "medium", files: files ?? [], runner: runner ?? "default" }, ...rest });
}

export function choice(name: string, labels: string[], extra: Partial<QuestionPlan> = {}): QuestionPlan {
  const descriptions: Record<string, string> = {};
  for (const l of labels) descriptions[l] = `means ${l}`;
  return { name, kind: "choice", ask: `which ${name}?`, labels, descriptions, drop: [], type: `test.${name}`, ...extra };
}

export function noul(name: string, extra: Partial<QuestionPlan> = {}): QuestionPlan {
  return {
    name,
    kind: "noul",
    ask: `${name}?`,
    labels: ["yes", "no"],
    descriptions: { yes: "", no: "" },
    drop: [],
    type: `test.${name}`,
    ...extra,
  };
}

export function outputRoute(name: string, source: FieldRef, questions: QuestionPlan[], extra: Extra = {}): TaskOf<"route"> {
  const emits: Record<string, FieldType> = {};
  for (const q of questions) emits[q.name] = "string";
  return base(name, "route", { route: { decide: "output", source, min_confidence: 0, files: [], questions }, emits, ...extra });
}

export function modelRoute(
  name: string,
  questions: QuestionPlan[],
  extra: Extra & { files?: string[]; min_confidence?: number } = {},
): TaskOf<"route"> {
  const { files, min_confidence, ...rest } = extra;
  const emits: Record<string, FieldType> = {};
  for (const q of questions) emits[q.name] = "string";
  return base(name, "route", {
    route: { decide: "model", min_confidence: min_confidence ?? 0, files: files ?? [], questions },
    emits,
    ...rest,
  });
}

export function when(route: string, question: string, labels: string[], otherwise = false, any_option = false): WhenPlan {
  return { route, question, ...(otherwise ? {} : { answers: labels }), otherwise, labels, any_option };
}

/** Mapped over `over`, aligned with every dependency mapped over the same field. */
export function mapped(over: FieldRef): { over: FieldRef; max_fanout: number };
export function mapped(over: FieldRef, extra: Extra): Extra;
export function mapped(over: FieldRef, extra: Extra = {}): Extra {
  return { over, max_fanout: 10000, ...extra };
}

export function plan(tasks: TaskPlan[], settings: Partial<Plan["settings"]> = {}): Plan {
  // Fill aligned_with the way the compiler does: dependencies mapped over the same field.
  const byName = new Map(tasks.map((t) => [t.name, t]));
  for (const t of tasks) {
    if (!t.over || t.aligned_with.length) continue;
    t.aligned_with = t.depends_on.filter((d) => {
      const o = byName.get(d)?.over;
      return o && o.task === t.over!.task && o.field === t.over!.field;
    });
  }
  return {
    playbook: "test",
    source_file: "test.star",
    pack_digest: "0".repeat(64),
    compiler_version: "test",
    settings: { description: "", concurrency: 4, decision_concurrency: 16, max_duration_seconds: 3600, ...settings },
    tasks,
  };
}

export class TempDir {
  readonly path: string;
  constructor(prefix = "sy-run-") {
    this.path = mkdtempSync(join(tmpdir(), prefix));
  }
  file(rel: string, text: string, mode?: number): string {
    const p = join(this.path, rel);
    mkdirSync(join(p, ".."), { recursive: true });
    writeFileSync(p, text);
    if (mode !== undefined) chmodSync(p, mode);
    return p;
  }
  cleanup(): void {
    rmSync(this.path, { recursive: true, force: true });
  }
}

export interface Harness {
  dir: TempDir;
  state: string;
  pack: string;
  store: Store;
}

export function harness(): Harness {
  const dir = new TempDir();
  const pack = join(dir.path, "pack");
  mkdirSync(pack, { recursive: true });
  writeFileSync(join(pack, "test.star"), "# test pack\n");
  const state = join(dir.path, "state");
  return { dir, state, pack, store: testStore(state) };
}

export function evaluators(fns: Record<string, Fn>): (task: TaskPlan) => (input: unknown) => unknown {
  return (task) => {
    const fn = fns[task.evaluate?.function ?? task.name];
    if (!fn) throw new Error(`no test evaluator for ${task.name}`);
    return fn as (input: unknown) => unknown;
  };
}

export interface RunOpts extends Omit<EngineOptions, "store" | "run" | "resume" | "evaluators"> {
  fns?: Record<string, Fn>;
  overrides?: SettingsOverrides;
}

export async function runPlan(h: Harness, p: Plan, opts: RunOpts = {}): Promise<{ run: string; outcome: RunOutcome; show: ShowJson }> {
  const run = admitRun(h.store, { plan: p, packDir: h.pack, sourcePath: h.pack, overrides: opts.overrides });
  const engine = new RunEngine({ ...opts, store: h.store, run, resume: false, evaluators: evaluators(opts.fns ?? {}) });
  const outcome = await engine.execute();
  return { run, outcome, show: showRun(h.store, run)! };
}

export async function resumePlan(h: Harness, run: string, opts: RunOpts = {}): Promise<{ outcome: RunOutcome; show: ShowJson }> {
  const engine = new RunEngine({ ...opts, store: h.store, run, resume: true, evaluators: evaluators(opts.fns ?? {}) });
  const outcome = await engine.execute();
  return { outcome, show: showRun(h.store, run)! };
}

/** status per key of a mapped task. */
export function statuses(show: ShowJson, task: string): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [k, v] of Object.entries(show.tasks[task]!.instances ?? {})) out[k] = v.status;
  return out;
}

export function runner(name: string, command: string[]): Record<string, AgentRunnerConfig> {
  return { [name]: { name, command, env: {} } };
}

/** Writes JSON to $SWITCHYARD_OUTPUT from a shell command. */
export function writeJson(value: unknown): string {
  return `printf '%s' '${JSON.stringify(value).replace(/'/g, "'\\''")}' > "$SWITCHYARD_OUTPUT"`;
}
