// The lab store (H-1): labs are folders `labs/LAB_ID/` in the state folder, each with a
// `lab.json` (id, created, note) and a `pairs.jsonl`; `labs/current` names the current lab.
// Pairs are appended one whole line per write(2) on an O_APPEND descriptor, so concurrent
// appenders never interleave and a crash can only tear the last line.

import {
  closeSync,
  existsSync,
  linkSync,
  mkdirSync,
  openSync,
  readdirSync,
  readFileSync,
  renameSync,
  rmSync,
  statSync,
  writeFileSync,
  writeSync,
} from "node:fs";
import { randomBytes } from "node:crypto";
import { join } from "node:path";
import { nearestName } from "../lang/diagnostic.js";
import type { PairSink, ShadowPair } from "../decide/pair.js";
import { pairLine } from "./pair-line.js";
import { CodedError } from "../shared/coded-error.js";

/** A lab as its lab.json records it. */
export interface LabInfo {
  id: string;
  created: string; // ISO 8601
  note: string;
}

/** A lab as `lab list` shows it: whether it is current, its folder, and the size of its pairs. */
export interface LabListing extends LabInfo {
  current: boolean;
  dir: string;
  /** Size of pairs.jsonl in bytes (0 when missing); a cheap proxy for how much it holds. */
  pairs_bytes: number;
}

/** A lab problem a person can fix (no lab, unknown id); `code` is in LAB_CODES. */
export class LabError extends CodedError {}

const LAB_ID = /^lab-\d{12}-[0-9a-f]{4}$/;

/** The folder holding every lab of a state folder. */
export function labsDir(stateDir: string): string {
  return join(stateDir, "labs");
}
function labDir(stateDir: string, id: string): string {
  return join(labsDir(stateDir), id);
}
/** The pairs.jsonl of a lab. */
export function pairsPath(stateDir: string, id: string): string {
  return join(labDir(stateDir, id), "pairs.jsonl");
}
function currentPath(stateDir: string): string {
  return join(labsDir(stateDir), "current");
}

/** `lab-YYMMDDHHMMSS-xxxx`: UTC mint time (so ids sort by age) and 4 random hex digits. */
export function newLabId(now: Date = new Date()): string {
  const p = (n: number) => String(n).padStart(2, "0");
  const stamp =
    p(now.getUTCFullYear() % 100) +
    p(now.getUTCMonth() + 1) +
    p(now.getUTCDate()) +
    p(now.getUTCHours()) +
    p(now.getUTCMinutes()) +
    p(now.getUTCSeconds());
  return `lab-${stamp}-${randomBytes(2).toString("hex")}`;
}

/** Makes the folder, lab.json and an empty pairs.jsonl; does not touch `current`. */
function createLabFolder(stateDir: string, note: string): LabInfo {
  mkdirSync(labsDir(stateDir), { recursive: true });
  for (;;) {
    const info: LabInfo = { id: newLabId(), created: new Date().toISOString(), note };
    const dir = labDir(stateDir, info.id);
    try {
      mkdirSync(dir); // not recursive: fails if the id is taken, and we mint another
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code === "EEXIST") continue;
      throw err;
    }
    writeFileSync(join(dir, "lab.json"), JSON.stringify(info, null, 2) + "\n");
    writeFileSync(join(dir, "pairs.jsonl"), "", { flag: "a" });
    return info;
  }
}

/** Points `current` at a lab; written to a temporary file and renamed so readers see old or new. */
function setCurrent(stateDir: string, id: string): void {
  const tmp = `${currentPath(stateDir)}.${process.pid}.${randomBytes(3).toString("hex")}`;
  writeFileSync(tmp, id + "\n");
  renameSync(tmp, currentPath(stateDir));
}

/** `switchyard lab new`: a new lab, made current. */
export function newLab(stateDir: string, note = ""): LabInfo {
  const info = createLabFolder(stateDir, note);
  setCurrent(stateDir, info.id);
  return info;
}

/** The current lab's id, or null when there is none (or it names a folder that is gone). */
export function currentLabId(stateDir: string): string | null {
  let id: string;
  try {
    id = readFileSync(currentPath(stateDir), "utf8").trim();
  } catch {
    return null;
  }
  return id !== "" && existsSync(labDir(stateDir, id)) ? id : null;
}

function readLabInfo(stateDir: string, id: string): LabInfo {
  try {
    const raw = JSON.parse(readFileSync(join(labDir(stateDir, id), "lab.json"), "utf8")) as Partial<LabInfo>;
    return { id, created: typeof raw.created === "string" ? raw.created : "", note: typeof raw.note === "string" ? raw.note : "" };
  } catch {
    return { id, created: "", note: "" };
  }
}

/** Every lab in the state folder, oldest first (by lab.json's `created`, to the millisecond). */
export function listLabs(stateDir: string): LabListing[] {
  let names: string[];
  try {
    names = readdirSync(labsDir(stateDir));
  } catch {
    return [];
  }
  const current = currentLabId(stateDir);
  const out: LabListing[] = [];
  for (const name of names.sort()) {
    const dir = labDir(stateDir, name);
    if (!LAB_ID.test(name) || !isDirectory(dir)) continue;
    let bytes = 0;
    try {
      bytes = statSync(join(dir, "pairs.jsonl")).size;
    } catch {
      bytes = 0;
    }
    out.push({ ...readLabInfo(stateDir, name), current: name === current, dir, pairs_bytes: bytes });
  }
  // Ids sort by the second they were made; `created` breaks ties within a second.
  return out.sort((a, b) => (a.created === b.created ? (a.id < b.id ? -1 : 1) : a.created < b.created ? -1 : 1));
}

function isDirectory(path: string): boolean {
  try {
    return statSync(path).isDirectory();
  } catch {
    return false; // removed since readdir
  }
}

/** The lab a command means: the id given (checked), else the current lab. */
export function resolveLab(stateDir: string, id?: string): LabInfo {
  const labs = listLabs(stateDir);
  if (id === undefined) {
    const current = currentLabId(stateDir);
    if (current !== null) return readLabInfo(stateDir, current);
    if (labs.length === 0) {
      throw new LabError("lab-none", `no labs in ${labsDir(stateDir)} (H-1)`, {
        hint: "run `switchyard lab new --note TEXT`, or run a judgement type in shadow mode, which makes one",
      });
    }
    throw new LabError("lab-none", `no current lab in ${labsDir(stateDir)} (H-1)`, {
      hint: `name one: ${labs.map((l) => l.id).join(", ")}`,
    });
  }
  const found = labs.find((l) => l.id === id);
  if (found) return found;
  const near = nearestName(
    id,
    labs.map((l) => l.id),
  );
  throw new LabError("lab-unknown", `no lab '${id}' in ${labsDir(stateDir)} (H-1)`, {
    hint: near
      ? `did you mean '${near}'?`
      : labs.length > 0
        ? "`switchyard lab list` shows the labs"
        : "there are no labs yet: `switchyard lab new`",
  });
}

/**
 * The current lab, or a new one made current when there is none (H-1: "a shadow pair with no lab
 * creates one"). Two processes racing here agree on one lab: `current` is created exclusively and
 * the loser removes its empty folder and uses the winner's.
 */
function ensureCurrentLab(stateDir: string): string {
  const existing = currentLabId(stateDir);
  if (existing !== null) return existing;
  const info = createLabFolder(stateDir, "made by the first shadow pair");
  // link(2) creates `current` only if absent, and with its content already in place, so a
  // racing reader never sees it empty.
  const tmp = `${currentPath(stateDir)}.${process.pid}.${randomBytes(3).toString("hex")}`;
  writeFileSync(tmp, info.id + "\n");
  try {
    linkSync(tmp, currentPath(stateDir));
    return info.id;
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code !== "EEXIST") throw err;
  } finally {
    rmSync(tmp, { force: true });
  }
  const winner = currentLabId(stateDir);
  if (winner !== null) {
    rmSync(labDir(stateDir, info.id), { recursive: true, force: true });
    return winner;
  }
  // `current` exists but names a folder that is gone: ours replaces it.
  setCurrent(stateDir, info.id);
  return info.id;
}

/** A pair sink over the lab store that picks its lab at the first pair and can be closed. */
export interface LabSink extends PairSink {
  /** The lab pairs go to; null until the first pair (the lab is chosen then). */
  labId(): string | null;
  close(): void;
}

/**
 * A PairSink over the current lab's pairs.jsonl. The lab is chosen at the first pair and kept
 * for the sink's life, so one run's pairs stay together even if `lab new` runs meanwhile.
 * Each pair is one line written with a single write(2) in append mode. A writer never repairs
 * a line torn by a crash: checking the file's tail would race with other processes' appends
 * (a reader can see another write half done). The reader recovers instead (pairs-reader.ts).
 */
export function openLabSink(stateDir: string): LabSink {
  let fd: number | null = null;
  let lab: string | null = null;
  const open = (): number => {
    if (fd !== null) return fd;
    lab = ensureCurrentLab(stateDir);
    const path = pairsPath(stateDir, lab);
    fd = openSync(path, "a");
    return fd;
  };
  return {
    append(pair: Omit<ShadowPair, "lab">): void {
      const handle = open();
      const buf = Buffer.from(pairLine({ ...pair, lab: lab as string }) + "\n", "utf8");
      const written = writeSync(handle, buf, 0, buf.length);
      if (written !== buf.length) {
        throw new Error(`short write to ${pairsPath(stateDir, lab as string)}: ${written} of ${buf.length} bytes (disk full?)`);
      }
    },
    labId: () => lab,
    close(): void {
      if (fd !== null) closeSync(fd);
      fd = null;
    },
  };
}
