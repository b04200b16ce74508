// What the lab commands share: where a lab's pairs are, the pair filters of the command line, the
// shared store's labs, and plain messages for file-system failures.

import { existsSync, readFileSync } from "node:fs";
import { dirname, join, resolve } from "node:path";
import { CommandFailed, stateDir, UsageError } from "./common.js";
import { pairsPath, resolveLab, type LabInfo } from "../lab/store.js";
import { pullSharedLabs } from "../lab/shared-labs.js";
import { PostgresStore } from "../run/store/index.js";
import { namedStore } from "./store-option.js";
import { parseSince, type PairFilters } from "../lab/pair-filter.js";
import { errnoCode } from "../shared/thrown.js";

/** Lets lab errors reach the person as they are; a file-system failure becomes a plain message. */
export function labFailure(err: unknown): never {
  // A LabError (no lab, an unknown lab) and a PairsFileError reach the person as they are (exit-codes.ts).
  if (isFsError(err)) throw new CommandFailed("failed", `cannot read the pairs: ${err.message}`);
  throw err;
}

/** A file-system failure (permissions, a missing folder, a full disk): the person's to fix. */
function isFsError(err: unknown): err is NodeJS.ErrnoException {
  return err instanceof Error && typeof errnoCode(err) === "string" && "syscall" in err && typeof err.syscall === "string";
}

/** Runs a step, turning file-system errors into plain messages instead of stack traces. */
export function fsStep<T>(what: string, step: () => T): T {
  try {
    return step();
  } catch (err) {
    if (isFsError(err)) throw new CommandFailed("failed", `cannot ${what}: ${err.message}`);
    throw err;
  }
}

/** The pair filters every lab command takes. */
export interface FilterFlags {
  type: string[];
  run: string[];
  since?: string;
  all?: boolean;
}

/** The pair filters of the command line. */
export function filtersOf(opts: FilterFlags): PairFilters {
  let since: Date | undefined;
  if (opts.since !== undefined) {
    since = parseSince(opts.since);
    if (!since)
      throw new UsageError("usage", `--since '${opts.since}' is neither an ISO 8601 date nor an age`, {
        hint: "write e.g. --since 2026-12-01 or --since 7d (m, h, d, w)",
      });
  }
  return { runs: opts.run, types: opts.type, since, all: opts.all === true };
}

/** The help of every lab command's --store. */
export const LAB_STORE_HELP =
  "a shared PostgreSQL store (postgres://…; default: $SWITCHYARD_STORE): its labs are copied into the state folder first, and `lab new` makes the lab there";

/**
 * On a shared (PostgreSQL) store, runs `f` with it and then copies the store's labs into the
 * state folder `dir` (lab/shared-labs.ts), which the lab commands then read as usual.
 */
export function withSharedLabs<T>(flag: string | undefined, dir: string, f: (pg: PostgresStore | undefined) => T): T {
  const spec = namedStore(flag, dir);
  if (!spec || spec.kind !== "postgres") return f(undefined);
  const pg = new PostgresStore(spec.url, dir);
  try {
    const out = f(pg);
    pullSharedLabs(pg, dir);
    return out;
  } finally {
    pg.close();
  }
}

/** The pairs file a command means: a path to a pairs.jsonl, a lab id, or the current lab. */
export function pairsFileOf(labArg: string | undefined, state: string | undefined): { file: string; labId: string | null } {
  if (labArg !== undefined && (labArg.endsWith(".jsonl") || labArg.includes("/"))) {
    // A path to a pairs file (a copy, or one from another machine) rather than a lab id.
    const file = resolve(labArg);
    if (!existsSync(file))
      throw new UsageError("usage", `no pairs file ${file}`, { hint: "name a lab id (`switchyard lab list`) or an existing pairs.jsonl" });
    return { file, labId: labIdBeside(file) };
  }
  const dir = stateDir(state);
  let info: LabInfo;
  try {
    info = resolveLab(dir, labArg);
  } catch (err) {
    labFailure(err);
  }
  const file = pairsPath(dir, info.id);
  if (!existsSync(file)) throw new CommandFailed("lab-pairs-missing", `lab ${info.id} has no pairs.jsonl (${file})`);
  return { file, labId: info.id };
}

/** The id in the lab.json beside a pairs file (a copied lab folder), else null. */
function labIdBeside(file: string): string | null {
  try {
    const info = JSON.parse(readFileSync(join(dirname(file), "lab.json"), "utf8")) as { id?: unknown };
    return typeof info.id === "string" ? info.id : null;
  } catch {
    return null;
  }
}
