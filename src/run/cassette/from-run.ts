// Writing a cassette from a recorded run: the run's event log is folded as resume
// folds it, every instance's input is built again by the engine's own functions from its
// dependencies' recorded outputs (inputs are built after every dependency settled, M-2, so the
// final records give the same input), and each agent turn (revise rounds included) and each model
// decision becomes one entry: the request's identity and what came back. Nothing is asked or run.

import { existsSync, readFileSync } from "node:fs";
import type { FieldRef, Plan, TaskPlan } from "../../plan/plan.js";
import { buildInput, foldEvents, keyDirName, routeRequest, taskFold, TaskState, UNMAPPED, type Recorded } from "../engine/index.js";
import { renderPrompt, stateJson, type InstanceInput, type Usage } from "../kinds/index.js";
import type { RunEvent, Store } from "../store/index.js";
import { isPlainObject } from "../values/index.js";
import { join } from "node:path";
import {
  CASSETTE_FORMAT,
  CASSETTE_VERSION,
  MAX_KEPT_TEXT,
  type AgentAnswer,
  type AgentEntry,
  type Cassette,
  type CassetteEntry,
  type DecisionEntry,
} from "./format.js";
import { agentRequestOf, decisionRequestOf, elementView } from "./identity.js";
import { entryOf } from "../../shared/checked-index.js";

/** The fields the engine adds to an agent's output itself; a replayed turn leaves the rest. */
const ENGINE_FIELDS = ["files", "files_changed", "patch"];

/** An agent's recorded output as an answer: output fields, declared files, the patch's text. */
export function agentAnswer(output: unknown, usage: Usage | undefined): AgentAnswer {
  const out = isPlainObject(output) ? output : {};
  const rest: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(out)) if (!ENGINE_FIELDS.includes(k)) rest[k] = v;
  const answer: AgentAnswer = { status: "passed", output: rest };
  if (isPlainObject(out.files)) answer.files = out.files;
  if (typeof out.patch === "string" && existsSync(out.patch)) answer.patch = readFileSync(out.patch, "utf8");
  if (usage) answer.usage = usage;
  return answer;
}

/** The entry of one agent turn. */
export function agentEntry(
  where: { task: string; key: string | null; part?: string; runDir: string; over: FieldRef | undefined },
  prompt: string,
  input: InstanceInput,
  answer: AgentAnswer,
): AgentEntry {
  const r = agentRequestOf(prompt, elementView(input, where.key, where.over), where.runDir);
  return {
    kind: "agent",
    task: where.task,
    key: where.key,
    ...(where.part !== undefined ? { part: where.part } : {}),
    request: r.request,
    prompt: r.prompt,
    ...(r.input.length <= MAX_KEPT_TEXT ? { input: r.input } : {}),
    input_digest: r.inputDigest,
    answer,
  };
}

/** The tasks of a plan with their instances as the log left them, wired as the engine wires them. */
function replayState(
  plan: Plan,
  recorded: Map<string, Map<string, Recorded>>,
  settled: Map<string, { settled?: string; expanded?: number }>,
) {
  const tasks = new Map<string, TaskState>();
  for (const t of plan.tasks) tasks.set(t.name, new TaskState(t));
  for (const ts of tasks.values()) {
    for (const d of ts.plan.depends_on) {
      const dep = entryOf(tasks, d, "the run's tasks");
      ts.deps.push(dep);
      (ts.plan.aligned_with.includes(d) && ts.mapped && dep.mapped ? ts.aligned : ts.others).push(dep);
    }
    for (const [k, r] of recorded.get(ts.name) ?? []) {
      ts.inst.set(k, {
        key: k === UNMAPPED && !ts.mapped ? null : k,
        status: r.status,
        output: r.output,
        attempts: r.attempts,
        tries: 0,
        rounds: r.rounds,
        rec: r,
      });
      ts.counts[r.status] += 1;
    }
    const rec = settled.get(ts.name);
    ts.total = rec?.expanded ?? ts.inst.size;
    if (rec?.settled) ts.status = rec.settled as TaskState["status"];
    if (ts.mapped) ts.fold = taskFold(ts);
  }
  return tasks;
}

/** Usage of each element's last finished attempt, and of each revise round. */
function usages(events: Iterable<RunEvent>) {
  const finished = new Map<string, Usage>();
  const rounds = new Map<string, Usage>();
  for (const e of events) {
    const id = `${e.task}\0${e.key ?? UNMAPPED}`;
    if (e.type === "instance_finished") {
      if (e.payload.usage) finished.set(id, e.payload.usage);
      else finished.delete(id);
    } else if (e.type === "revise_round" && e.payload.usage) rounds.set(`${id}\0${e.payload.round}`, e.payload.usage);
  }
  return { finished, rounds };
}

function promptOf(task: TaskPlan, input: InstanceInput, routes: ReadonlySet<string>): string | undefined {
  return task.kind === "agent" ? renderPrompt(task.agent.prompt, input, routes) : undefined;
}

/** The reviewer's output as recorded beside its attempt folder, else its verdict and feedback. */
function reviewOutput(dir: string, round: { verdict: string; feedback?: unknown }): unknown {
  const file = `${dir}.output.json`;
  try {
    const v: unknown = JSON.parse(readFileSync(file, "utf8"));
    if (isPlainObject(v)) return v;
  } catch {
    // no output file kept: the verdict and feedback are what the loop read
  }
  return { verdict: round.verdict, ...(round.feedback !== undefined ? { feedback: round.feedback } : {}) };
}

/** What one revise instance's rounds need to become cassette entries. */
interface ReviseSource {
  ts: TaskState;
  t: Extract<TaskPlan, { kind: "revise" }>;
  key: string | null;
  /** The instance's id in the usage maps: task and element key, NUL-separated. */
  id: string;
  input: InstanceInput;
  inst: NonNullable<ReturnType<TaskState["inst"]["get"]>>;
  runDir: string;
  routes: ReadonlySet<string>;
  used: ReturnType<typeof usages>;
  /** The instance's last attempt folder, where each round's review output was kept. */
  attemptDir: string;
}

/** A revise instance's turns: per round, the body (with the previous round's feedback) and the reviewer. */
function reviseEntries({ ts, t, key, id, input, inst, runDir, routes, used, attemptDir }: ReviseSource): CassetteEntry[] {
  const entries: CassetteEntry[] = [];
  let feedback: unknown;
  for (const r of inst.rounds) {
    const bodyInput: InstanceInput = r.round > 1 ? { ...input, feedback: feedback ?? null, round: r.round } : input;
    const usage = used.rounds.get(`${id}\0${r.round}`);
    const body = promptOf(t.revise.body, bodyInput, routes);
    if (body !== undefined)
      entries.push(
        agentEntry({ task: ts.name, key, part: `r${r.round}-body`, runDir, over: t.over }, body, bodyInput, agentAnswer(r.body, usage)),
      );
    const reviewInput: InstanceInput = {
      ...(input.key !== undefined ? { key: input.key } : {}),
      inputs: { ...input.inputs, [t.revise.body.name]: r.body },
      round: r.round,
    };
    const review = promptOf(t.revise.reviewer, reviewInput, routes);
    if (review !== undefined) {
      const out = reviewOutput(`${attemptDir}-r${r.round}-review`, r);
      // The round's usage is recorded summed; it is charged once, with the body's turn.
      entries.push(
        agentEntry(
          { task: ts.name, key, part: `r${r.round}-review`, runDir, over: t.over },
          review,
          reviewInput,
          agentAnswer(out, body === undefined ? usage : undefined),
        ),
      );
    }
    feedback = r.feedback;
  }
  return entries;
}

/** Every agent turn and model decision of a recorded run, as cassette entries. */
export function cassetteFromRun(store: Store, run: string): Cassette {
  const runDir = store.runDir(run);
  const attemptDir = (task: string, key: string | null, attempt: number) =>
    join(runDir, "work", task, key !== null ? `${keyDirName(key)}.a${attempt}` : `a${attempt}`);
  const folded = foldEvents(store, run);
  const plan = folded.plan;
  const tasks = replayState(plan, folded.recorded, folded.taskRecords);
  const used = usages(store.events(run));
  const routes = new Set(plan.tasks.filter((t) => t.kind === "route").map((t) => t.name));
  const entries: CassetteEntry[] = [];
  for (const ts of tasks.values()) {
    const t = ts.plan;
    for (const [k, inst] of ts.inst) {
      const key = ts.mapped ? k : null;
      const id = `${ts.name}\0${k}`;
      let input: InstanceInput;
      try {
        input = buildInput(ts, key);
      } catch {
        continue; // the instance never got an input (M-3): nothing was sent
      }
      if (t.kind === "agent" && inst.attempts > 0 && (inst.status === "passed" || inst.status === "failed")) {
        const answer: AgentAnswer =
          inst.status === "passed"
            ? agentAnswer(inst.output, used.finished.get(id))
            : { status: "failed", error: inst.rec?.error ?? "failed", ...(inst.rec?.code ? { code: inst.rec.code } : {}) };
        if (inst.status === "failed" && used.finished.get(id)) answer.usage = used.finished.get(id);
        entries.push(agentEntry({ task: ts.name, key, runDir, over: t.over }, promptOf(t, input, routes)!, input, answer));
      } else if (t.kind === "revise") {
        entries.push(
          ...reviseEntries({ ts, t, key, id, input, inst, runDir, routes, used, attemptDir: attemptDir(ts.name, key, inst.attempts) }),
        );
      } else if (t.kind === "route" && t.route.decide === "model" && inst.status === "passed" && isPlainObject(inst.output)) {
        const { questions, state } = routeRequest(ts, t.route, key, input, tasks);
        const r = decisionRequestOf(questions, elementView(state, key, t.over), runDir);
        const entry: DecisionEntry = {
          kind: "decision",
          task: ts.name,
          key,
          request: r.request,
          questions: r.questions,
          ...(r.state.length <= MAX_KEPT_TEXT ? { state: r.state } : {}),
          state_digest: r.stateDigest,
          answer: inst.output as DecisionEntry["answer"],
        };
        entries.push(entry);
      }
    }
  }
  return {
    header: { format: CASSETTE_FORMAT, version: CASSETTE_VERSION, run, playbook: plan.playbook, written: new Date().toISOString() },
    entries,
  };
}

/**
 * The state a model-decided route instance's questions were asked about, serialised as it
 * was sent: rebuilt from the log by the engine's own functions, as a cassette's entry is. Undefined
 * for another task, or an instance that never got its input.
 */
export function routeStateText(store: Store, run: string, task: string, key: string | null): string | undefined {
  const folded = foldEvents(store, run);
  const tasks = replayState(folded.plan, folded.recorded, folded.taskRecords);
  const ts = tasks.get(task);
  if (!ts || ts.plan.kind !== "route" || ts.plan.route.decide !== "model" || ts.mapped !== (key !== null)) return undefined;
  try {
    return stateJson.input(routeRequest(ts, ts.plan.route, key, buildInput(ts, key), tasks).state);
  } catch {
    return undefined; // its input could not be built (M-3, T-3): nothing was sent
  }
}
