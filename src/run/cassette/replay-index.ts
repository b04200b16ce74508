// A cassette laid out for replay: `switchyard test` writes each agent turn to a file named
// by its request identity (what answers a hit) and by its element (what explains a miss), so the
// runner that replays an agent turn, a process of its own, reads one small file, not the whole
// cassette. Decisions are answered in the engine's own process (judge.ts), so they are kept in
// memory, not written: a 10,000-element route would otherwise cost 20,000 files before the run
// starts. Misses are written beside them, one file per element, and read back for the report.

import { appendFileSync, existsSync, mkdirSync, readdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import type { Cassette, CassetteEntry, DecisionEntry, QuestionIdentity } from "./format.js";
import { elementId } from "./format.js";
import { sha256, type Overs } from "./identity.js";
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

/** A cassette's decisions, by request digest (what answers a hit) and by element (what explains a miss). */
export interface DecisionIndex {
  byRequest: Map<string, DecisionEntry>;
  byElement: Map<string, DecisionEntry>;
}

/**
 * Lays the cassette's agent turns out as one file per request digest and per element, so replay
 * processes look answers up without reading the whole cassette; returns its decisions, indexed.
 */
export function writeReplayIndex(dir: string, cassette: Cassette, overs: Overs): DecisionIndex {
  mkdirSync(join(dir, "requests"), { recursive: true });
  writeFileSync(join(dir, "overs.json"), JSON.stringify(overs));
  mkdirSync(join(dir, "elements"), { recursive: true });
  mkdirSync(join(dir, "misses"), { recursive: true });
  const decisions: DecisionIndex = { byRequest: new Map(), byElement: new Map() };
  for (const e of cassette.entries) {
    if (e.kind === "decision") {
      decisions.byRequest.set(e.request, e);
      decisions.byElement.set(elementId(e.task, e.key), e);
      continue;
    }
    const text = JSON.stringify(e);
    writeFileSync(join(dir, "requests", fileName(e.request)), text);
    writeFileSync(join(dir, "elements", fileName(elementId(e.task, e.key, e.part))), text);
  }
  return decisions;
}

function readEntry(file: string): CassetteEntry | undefined {
  try {
    return JSON.parse(readFileSync(file, "utf8")) as CassetteEntry;
  } catch {
    return undefined;
  }
}

/** The field each mapped task is mapped over, as written beside the index for the replay processes. */
export function oversOf(dir: string): Overs {
  return JSON.parse(readFileSync(join(dir, "overs.json"), "utf8")) as Overs;
}

/** The entry recorded for a request digest, if any. */
export function answerFor(dir: string, request: string): CassetteEntry | undefined {
  return readEntry(join(dir, "requests", fileName(request)));
}

/** The entry recorded for an element (and revise part), whatever its request was: what a miss is compared with. */
export function recordedFor(dir: string, task: string, key: string | null, part?: string): CassetteEntry | undefined {
  return readEntry(join(dir, "elements", fileName(elementId(task, key, part))));
}

/** Counts an agent turn answered from the cassette (one short line appended: safe from many processes). */
export function recordAgentHit(dir: string): void {
  appendFileSync(join(dir, "hits"), "agent\n");
}

/** How many agent turns were answered from the cassette. */
export function countAgentHits(dir: string): number {
  const file = join(dir, "hits");
  return existsSync(file)
    ? readFileSync(file, "utf8")
        .split("\n")
        .filter((l) => l === "agent").length
    : 0;
}

/** Records a miss, one file per element, so processes never write the same file. */
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
