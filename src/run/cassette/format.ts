// The cassette file: what a recorded run's agent turns and model decisions were asked
// and answered, so `switchyard test` can replay a playbook offline. JSON Lines, versioned: the
// first line is the header, then one entry per line, sorted by task, element and part, so a
// change to a playbook changes exactly the lines of the elements it touches and diffs well in
// git. docs/testing-playbooks.md describes every field.

import { readFileSync } from "node:fs";
import type { DecisionRecord, Usage } from "../kinds/index.js";
import { CodedError } from "../../shared/coded-error.js";
import { isPlainObject } from "../values/index.js";
import { errnoCode, messageOf } from "../../shared/thrown.js";

/** The header's `format`: tells a cassette from any other JSON Lines file. */
export const CASSETTE_FORMAT = "switchyard-cassette";
/** The format's version; a reader refuses any other. */
export const CASSETTE_VERSION = 1;

/** Texts longer than this are kept as a digest only (a 10,000-element fold in every input would make a cassette quadratic). */
export const MAX_KEPT_TEXT = 8192;

/** The cassette's first line: format, version, and the run and playbook it was written from. */
export interface CassetteHeader {
  format: typeof CASSETTE_FORMAT;
  version: number;
  /** The run it was written from, and its playbook. */
  run: string;
  playbook: string;
  /** When it was written (ISO 8601). */
  written: string;
}

/** What an agent turn left: its output fields, its declared files, its worktree patch, its usage. */
export interface AgentAnswer {
  status: "passed" | "failed";
  /** The output it wrote ($SWITCHYARD_OUTPUT and, for a preset runner, `reply`/`turns`), without `files`, `files_changed` and `patch`. */
  output?: Record<string, unknown>;
  /** The files it was asked to leave (`files = [...]`): name → contents (parsed JSON for .json). */
  files?: Record<string, unknown>;
  /** A worktree agent's change (the text of its changes.patch). */
  patch?: string;
  usage?: Usage;
  /** A failed turn: why, and the code it was recorded with. */
  error?: string;
  code?: string;
}

/** The parts of a resolved question that are sent to the decision layer. */
export interface QuestionIdentity {
  id: string;
  kind: string;
  ask: string;
  labels: string[];
  descriptions: Record<string, string>;
  type: string;
}

interface EntryBase {
  task: string;
  /** The element's key; null for an unmapped task. */
  key: string | null;
  /** The request's identity: sha256 of what would be sent, the same on every attempt. */
  request: string;
}

/** One agent turn (or revise round part): what was sent, by digest, and what the agent left. */
export interface AgentEntry extends EntryBase {
  kind: "agent";
  /** A revise loop's turn: `r2-body`, `r2-review`; absent for a plain agent task. */
  part?: string;
  /** The rendered prompt (for the diff shown on a miss). */
  prompt: string;
  /** The instance input as sorted JSON; absent when longer than MAX_KEPT_TEXT. */
  input?: string;
  /** sha256 of the input's sorted JSON. */
  input_digest: string;
  answer: AgentAnswer;
}

/** One model-decided route element: the questions and state asked, by digest, and the decision record that came back. */
export interface DecisionEntry extends EntryBase {
  kind: "decision";
  questions: QuestionIdentity[];
  /** The route's state as sent (sorted JSON); absent when longer than MAX_KEPT_TEXT. */
  state?: string;
  state_digest: string;
  /** The decision record with its probabilities, modes and usage. */
  answer: DecisionRecord;
}

/** A cassette line after the header. */
export type CassetteEntry = AgentEntry | DecisionEntry;

/** A whole cassette: its header and its entries, sorted by element. */
export interface Cassette {
  header: CassetteHeader;
  entries: CassetteEntry[];
}

/** A cassette that cannot be read: the file, the line and what is wrong. */
export class CassetteError extends CodedError {}

/** The element an entry answers, as one string: task, key and part. */
export function elementId(task: string, key: string | null, part?: string): string {
  return JSON.stringify([task, key, part ?? null]);
}

/** The file's text: the header, then the entries sorted by element (kind breaks ties). */
export function cassetteText(c: Cassette): string {
  const sorted = [...c.entries].sort((a, b) => {
    const x = elementId(a.task, a.key, a.kind === "agent" ? a.part : undefined);
    const y = elementId(b.task, b.key, b.kind === "agent" ? b.part : undefined);
    return x < y ? -1 : x > y ? 1 : a.kind < b.kind ? -1 : a.kind > b.kind ? 1 : 0;
  });
  return [c.header, ...sorted].map((x) => JSON.stringify(x)).join("\n") + "\n";
}

/** Reads a cassette file; every problem names the file and line. */
export function readCassette(path: string): Cassette {
  let text: string;
  try {
    text = readFileSync(path, "utf8");
  } catch (err) {
    throw new CassetteError(
      "cassette-unreadable",
      `cannot read the cassette ${path}: ${errnoCode(err) === "ENOENT" ? "no such file" : messageOf(err)}`,
    );
  }
  return parseCassette(text, path);
}

/** Reads a cassette's text; a bad line is a `FILE:LINE` error saying what is wrong with it. */
export function parseCassette(text: string, path: string): Cassette {
  const lines = text.split("\n");
  let header: CassetteHeader | undefined;
  const entries: CassetteEntry[] = [];
  lines.forEach((line, i) => {
    if (line.trim() === "") return;
    const at = { pos: { file: path, line: i + 1, col: 1 } };
    let v: unknown;
    try {
      v = JSON.parse(line);
    } catch {
      throw new CassetteError("cassette-invalid", "this line is not JSON; a cassette is one JSON object per line", {
        ...at,
        hint: "write the cassette again with `switchyard cassette RUN -o FILE`",
      });
    }
    if (!header) {
      if (!isPlainObject(v) || v.format !== CASSETTE_FORMAT)
        throw new CassetteError(
          "cassette-invalid",
          `the first line is not a switchyard cassette header ({"format":"${CASSETTE_FORMAT}",…})`,
          at,
        );
      if (v.version !== CASSETTE_VERSION)
        throw new CassetteError(
          "cassette-version",
          `cassette version ${JSON.stringify(v.version)} is not the version this switchyard reads (${CASSETTE_VERSION}); write it again with \`switchyard cassette RUN\``,
          at,
        );
      header = v as unknown as CassetteHeader;
      return;
    }
    if (!isPlainObject(v) || (v.kind !== "agent" && v.kind !== "decision") || typeof v.task !== "string" || typeof v.request !== "string")
      throw new CassetteError("cassette-invalid", `an entry needs "kind" ("agent" or "decision"), "task" and "request"`, at);
    if (!isPlainObject(v.answer)) throw new CassetteError("cassette-invalid", `the entry has no "answer" object`, at);
    entries.push(v as unknown as CassetteEntry);
  });
  if (!header)
    throw new CassetteError("cassette-invalid", "the file is empty: it has no cassette header", {
      pos: { file: path, line: 1, col: 1 },
      hint: `write a cassette with \`switchyard cassette RUN -o ${path}\``,
    });
  return { header, entries };
}
