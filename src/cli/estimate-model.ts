// What a run of a plan would ask for, worked out before it runs (X-5): elements per mapped task,
// decisions per judgement type and who answers them, tokens per decision request, agent turns at
// most and at shares of gated work not taken, and what the runners' price tables make of them.
// Pure: the element counts and measured sizes come in (estimate-producers.ts ran what it could).

import type { Plan, TaskPlan } from "../plan/index.js";
import { estimateRouteState, modelRoutes, type Measured } from "../plan/state-size.js";
import type { JudgementMode, MachineConfig } from "../decide/config-types.js";
import { formatMode, modeFor } from "../decide/mode.js";
import { estimateRequestTokens } from "../decide/window.js";
import { resolveQuestions, type ResolvedQuestion } from "../run/kinds/index.js";
import { isPlainObject } from "../run/values/index.js";

/** How many elements a mapped task has, and where the number came from. */
export interface ElementsRow {
  task: string;
  over: string;
  elements: number;
  /** "run" (its producer ran), "--elements", or "max_fanout" (an upper bound). */
  from: "run" | "--elements" | "max_fanout";
  /** Why the producer did not give the number (it is not a command or evaluate, it failed …). */
  why?: string;
  /** Set when the list is longer than max_fanout: the task would fail (M-1). */
  over_fanout?: boolean;
}

/** Decisions of one judgement type: how many at most, and who answers them. */
export interface TypeRow {
  type: string;
  decisions: number;
  mode: string;
  answered_by: string;
}

/** One model-decided route: its requests (one per element) and the tokens each sends. */
export interface RouteRow {
  route: string;
  requests: number;
  questions: number;
  state_tokens: number;
  /** True when the state's sizes were measured from producers that ran (else assumed from emits types, R-22). */
  measured: boolean;
  tokens_per_request: number;
  tokens: number;
}

/** One task's agent turns at most (every element, every revise round, every retry). */
export interface TurnsRow {
  task: string;
  runner: string;
  gated: boolean;
  at_most: number;
}

/** The agent turns and their cost at one share of gated elements not taken. */
export interface CostRow {
  share: number;
  turns: number;
  usd: number;
}

/** The whole estimate, as `estimate --json` prints it. */
export interface Estimate {
  playbook: string;
  ran: string[];
  elements: ElementsRow[];
  decisions: TypeRow[];
  routes: RouteRow[];
  turns: TurnsRow[];
  /** The shares of gated work not taken the turns and costs are shown at. */
  shares: number[];
  turns_at: Array<{ share: number; turns: number }>;
  cost: { agents: CostRow[] | null; agents_unknown?: string; decisions_unknown: string };
}

/** What the estimate is made from besides the plan. */
export interface EstimateInputs {
  config: MachineConfig;
  decide: Record<string, JudgementMode>;
  /** Unmapped producers' outputs from the producer run. */
  outputs: ReadonlyMap<string, Record<string, unknown>>;
  /** Producer → why its list is unknown. */
  unknown: ReadonlyMap<string, string>;
  ran: string[];
  elements?: number;
  shares: number[];
  /** Input and output tokens per agent turn, for the cost. */
  turnTokens?: { input: number; output: number };
}

function elementsOf(t: TaskPlan, inp: EstimateInputs): ElementsRow | undefined {
  if (!t.over) return undefined;
  const over = `${t.over.task}.${t.over.field}`;
  const list = inp.outputs.get(t.over.task)?.[t.over.field];
  const max = t.max_fanout ?? 0;
  if (Array.isArray(list))
    return { task: t.name, over, elements: list.length, from: "run", ...(list.length > max ? { over_fanout: true } : {}) };
  const why = inp.unknown.get(t.over.task) ?? `${over} is not a list in ${t.over.task}'s output`;
  if (inp.elements !== undefined)
    return { task: t.name, over, elements: inp.elements, from: "--elements", why, ...(inp.elements > max ? { over_fanout: true } : {}) };
  return { task: t.name, over, elements: max, from: "max_fanout", why };
}

/** Tasks behind a gate: gated themselves, or depending on one that is (G-3: not taken spreads). */
function gatedTasks(plan: Plan): Set<string> {
  const gated = new Set<string>();
  for (const t of plan.tasks) if (t.when || t.depends_on.some((d) => gated.has(d))) gated.add(t.name);
  return gated;
}

function whoAnswers(mode: JudgementMode, config: MachineConfig): string {
  if (mode.kind === "host") return `the host (${config.decisions.host})`;
  if (mode.kind === "review") return "people, from the review queue";
  if (mode.kind === "shadow")
    return `the host (${config.decisions.host}); ${mode.models.map((m) => `${m.provider}/${m.model}`).join(" and ")} asked beside it`;
  return `the model ${mode.provider}/${mode.model}`;
}

/** The route's questions as sent; a dynamic choice's options are known only at run time, so they count none. */
function questionsOf(r: TaskPlan): ResolvedQuestion[] {
  if (!r.route) return [];
  const questions = r.route.questions.map((q) => ({ ...q, dynamic: undefined }));
  return resolveQuestions({ ...r.route, questions }, {}, () => "");
}

/** Agent turns one instance of `t` may take, and the runners they go to. */
function turnsPerInstance(t: TaskPlan): Array<{ runner: string; turns: number }> {
  const tries = 1 + t.retries;
  if (t.agent) return [{ runner: t.agent.runner, turns: tries }];
  if (!t.revise) return [];
  const rounds = t.revise.max_rounds * tries;
  return [t.revise.body.agent, t.revise.reviewer.agent].flatMap((a) => (a ? [{ runner: a.runner, turns: rounds }] : []));
}

/** Works out the estimate of `plan` from what the producer run learnt and the machine config. */
export function estimatePlan(plan: Plan, inp: EstimateInputs): Estimate {
  const elements = plan.tasks.flatMap((t) => elementsOf(t, inp) ?? []);
  const count = new Map(elements.map((e) => [e.task, e.elements]));
  const instances = (t: TaskPlan) => (t.over ? (count.get(t.name) ?? 0) : 1);
  const measured: Measured = {
    elements: (t) => count.get(t.name),
    fieldChars: (task, field) => {
      const v = inp.outputs.get(task)?.[field];
      return v === undefined ? undefined : JSON.stringify(v).length;
    },
    entryChars: (task, field) => {
      const v = inp.outputs.get(task)?.[field];
      if (!isPlainObject(v)) return undefined;
      return Math.max(0, ...Object.values(v).map((x) => JSON.stringify(x ?? null).length));
    },
  };
  const byType = new Map<string, number>();
  const routes: RouteRow[] = modelRoutes(plan.tasks).map((r) => {
    const questions = r.route?.questions ?? [];
    for (const q of questions) byType.set(q.type, (byType.get(q.type) ?? 0) + instances(r));
    const state = estimateRouteState(plan.tasks, r, measured);
    const perRequest = state.tokens + estimateRequestTokens("", questionsOf(r));
    const isMeasured = r.depends_on.every((d) => inp.outputs.has(d));
    const row = { route: r.name, requests: instances(r), questions: questions.length, state_tokens: state.tokens, measured: isMeasured };
    return { ...row, tokens_per_request: perRequest, tokens: perRequest * instances(r) };
  });
  const decisions = [...byType].map(([type, n]) => {
    const mode = modeFor(type, inp.config.decisions, inp.decide);
    return { type, decisions: n, mode: formatMode(mode), answered_by: whoAnswers(mode, inp.config) };
  });
  const gated = gatedTasks(plan);
  const turns = plan.tasks.flatMap((t) =>
    turnsPerInstance(t).map((x) => ({ task: t.name, runner: x.runner, gated: gated.has(t.name), at_most: x.turns * instances(t) })),
  );
  const shares = [0, ...inp.shares.filter((s) => s !== 0)];
  return {
    playbook: plan.playbook,
    ran: inp.ran,
    elements,
    decisions,
    routes,
    turns,
    shares,
    turns_at: shares.map((share) => ({ share, turns: turnsAt(turns, share, () => 0).turns })),
    cost: { ...agentCost(turns, shares, inp), decisions_unknown: DECISIONS_UNPRICED },
  };
}

const DECISIONS_UNPRICED =
  "unknown: the machine config gives no prices for decision providers (decision requests are not charged against budget_usd)";

/** The agent turns' cost at each share, from the runners' price tables and the tokens per turn given. */
function agentCost(turns: TurnsRow[], shares: number[], inp: EstimateInputs): Pick<Estimate["cost"], "agents" | "agents_unknown"> {
  if (turns.length === 0) return { agents: [] };
  const runners = [...new Set(turns.map((t) => t.runner))];
  const unpriced = runners.filter((r) => !inp.config.agents[r]?.price);
  if (unpriced.length)
    return {
      agents: null,
      agents_unknown: `unknown: ${unpriced.map((r) => `runner "${r}"`).join(", ")} ${unpriced.length === 1 ? "has" : "have"} no price table (price = { input_per_mtok = …, output_per_mtok = … } in [agents.NAME])`,
    };
  const tokens = inp.turnTokens;
  if (!tokens)
    return {
      agents: null,
      agents_unknown:
        "unknown: how many tokens a turn takes is not known before it runs; give --turn-tokens INPUT,OUTPUT to price the turns",
    };
  const perTurn = (runner: string) => {
    const p = inp.config.agents[runner]?.price;
    return p ? (tokens.input * p.input_per_mtok + tokens.output * p.output_per_mtok) / 1e6 : 0;
  };
  return {
    agents: shares.map((share) => ({ share, ...turnsAt(turns, share, perTurn) })),
  };
}

/** The turns taken when `share` of the gated ones are not, and their cost at `perTurn` dollars a turn of each runner. */
function turnsAt(turns: readonly TurnsRow[], share: number, perTurn: (runner: string) => number): { turns: number; usd: number } {
  let usd = 0;
  let n = 0;
  for (const t of turns) {
    const k = takenAt(t, share);
    usd += k * perTurn(t.runner);
    n += k;
  }
  return { turns: n, usd };
}

/** A task's turns when `share` of its elements are not taken (rounded up; only gated tasks lose any). */
export function takenAt(t: TurnsRow, share: number): number {
  // The small allowance keeps 10 × 0.7 from rounding up to 8 through floating point.
  return t.gated ? Math.ceil(t.at_most * (1 - share) - 1e-9) : t.at_most;
}
