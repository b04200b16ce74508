// A cassette laid out for replay: `switchyard test` answers every agent turn and decision in the
// engine's own process (agent-replay.ts, judge.ts), so its entries are kept in memory, indexed by
// request identity (what answers a hit) and by element (what explains a miss). Misses are written
// to a folder, one file per element, and read back for the report.

import { mkdirSync, readdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import type { AgentEntry, Cassette, CassetteEntry, DecisionEntry, QuestionIdentity } from "./format.js";
import { elementId } from "./format.js";
import { sha256 } from "./identity.js";
import { shortDiff } from "./text-diff.js";

/** Why a request had no answer in the cassette. */
export type MissReason = "new-element" | "prompt-changed" | "input-changed" | "question-changed" | "state-changed" | "answer-failed";

/** A request the cassette could not answer: which element, and why, with a short diff. */
export interface Miss {
  kind: "agent" | "decision";
  task: string;
  key: string | null;
  part?: string;
  reason: MissReason;
  /** One line saying what changed. */
  why: string;
  /** The short diff of the changed text (may be empty). */
  diff: string[];
}

const fileName = (id: string) => `${sha256(id).slice("sha256:".length)}.json`;

/** Entries by request digest (what answers a hit) and by element (what explains a miss). */
export interface EntryIndex<E> {
  byRequest: Map<string, E>;
  byElement: Map<string, E>;
}

/** A cassette's decisions, indexed. */
export type DecisionIndex = EntryIndex<DecisionEntry>;
/** A cassette's agent turns, indexed; an element of a revise loop is its task, key and part. */
export type AgentIndex = EntryIndex<AgentEntry>;

/** A cassette indexed for replay; misses are written under `dir`. */
export interface ReplayIndex {
  dir: string;
  agents: AgentIndex;
  decisions: DecisionIndex;
}

/** Indexes the cassette's entries (a later entry for the same request or element wins) and makes the misses folder. */
export function replayIndex(dir: string, cassette: Cassette): ReplayIndex {
  mkdirSync(join(dir, "misses"), { recursive: true });
  const index: ReplayIndex = {
    dir,
    agents: { byRequest: new Map(), byElement: new Map() },
    decisions: { byRequest: new Map(), byElement: new Map() },
  };
  for (const e of cassette.entries) {
    if (e.kind === "decision") {
      index.decisions.byRequest.set(e.request, e);
      index.decisions.byElement.set(elementId(e.task, e.key), e);
    } else {
      index.agents.byRequest.set(e.request, e);
      index.agents.byElement.set(elementId(e.task, e.key, e.part), e);
    }
  }
  return index;
}

function readEntry(file: string): CassetteEntry | undefined {
  try {
    return JSON.parse(readFileSync(file, "utf8")) as CassetteEntry;
  } catch {
    return undefined;
  }
}

/** Records a miss, one file per element (a later miss of the same element, on a retry, replaces it). */
export function recordMiss(dir: string, miss: Miss): void {
  writeFileSync(join(dir, "misses", fileName(elementId(miss.task, miss.key, miss.part))), JSON.stringify(miss));
}

/** The misses of a replay, sorted by task, element and part. */
export function readMisses(dir: string): Miss[] {
  const out: Miss[] = [];
  for (const f of readdirSync(join(dir, "misses"))) {
    const m = readEntry(join(dir, "misses", f)) as unknown as Miss | undefined;
    if (m) out.push(m);
  }
  return out.sort((a, b) => {
    const x = elementId(a.task, a.key, a.part);
    const y = elementId(b.task, b.key, b.part);
    return x < y ? -1 : x > y ? 1 : 0;
  });
}

type AgentRequestText = { prompt: string; input: string; inputDigest: string };

/** Why an agent turn missed: a new element, or what differs from the recorded one. */
export function agentMiss(recorded: CassetteEntry | undefined, now: AgentRequestText): Pick<Miss, "reason" | "why" | "diff"> {
  if (!recorded || recorded.kind !== "agent")
    return { reason: "new-element", why: "a new element: the cassette has no turn for it", diff: [] };
  if (recorded.prompt !== now.prompt)
    return { reason: "prompt-changed", why: "the rendered prompt changed", diff: shortDiff(recorded.prompt, now.prompt) };
  return {
    reason: "input-changed",
    why: "the input changed (what its dependencies passed it)",
    diff:
      recorded.input !== undefined
        ? shortDiff(recorded.input, now.input)
        : [`(the recorded input is kept as a digest only: ${recorded.input_digest})`],
  };
}

/** Why a decision missed: a new element, changed questions or options, or a changed state. */
export function decisionMiss(
  recorded: CassetteEntry | undefined,
  questions: QuestionIdentity[],
  stateText: string,
): Pick<Miss, "reason" | "why" | "diff"> {
  if (!recorded || recorded.kind !== "decision")
    return { reason: "new-element", why: "a new element: the cassette has no decision for it", diff: [] };
  const before = JSON.stringify(recorded.questions);
  const after = JSON.stringify(questions);
  if (before !== after)
    return { reason: "question-changed", why: "the questions or their options changed", diff: shortDiff(before, after) };
  return {
    reason: "state-changed",
    why: "the state sent with the questions changed",
    diff:
      recorded.state !== undefined
        ? shortDiff(recorded.state, stateText)
        : [`(the recorded state is kept as a digest only: ${recorded.state_digest})`],
  };
}
