// An instance attempt's files in the run folder (docs/runs.md, "The state folder"): its input,
// log, prompt, usage and the workspace the process left behind. Everything there was written by
// commands and agents, so it is untrusted: paths are built from recorded names only, never from a
// request; no symbolic link is followed anywhere below the state folder's runs/ — not in the
// workspace, nor the workspace folder itself, nor the folders above it up to runs/, which a
// command could have replaced by links after the run recorded them (openBeneathSync); reads are
// bounded.

import { closeSync, readSync } from "node:fs";
import { basename, dirname } from "node:path";
import { keyDirName } from "../run/engine/index.js";
import { openBeneathSync, readFolderBeneathSync } from "../run/process/index.js";
import type { CellAttempt, CellFile } from "./api-types.js";
import { parseJson } from "../shared/primitives.js";

const LOG_TAIL = 16 * 1024;
const SMALL_FILE = 256 * 1024;
const FILE_VIEW_LIMIT = 64 * 1024;
const MAX_LISTED = 200;

/** Where an attempt's files are: the trusted folder (runs/) and the parts below it. */
interface AttemptPlace {
  base: string;
  /** RUN, work, TASK: the folder holding the attempt's files. */
  folder: string[];
  /** KEY.aN (unmapped: aN): the workspace's name, and its files' stem. */
  stem: string;
}

/** The attempt's place: runs/RUN/work/TASK/KEY.aN (unmapped: work/TASK/aN). */
function attemptPlace(runDir: string, task: string, key: string | null, attempt: number): AttemptPlace {
  return {
    base: dirname(runDir),
    folder: [basename(runDir), "work", task],
    stem: key !== null ? `${keyDirName(key)}.a${attempt}` : `a${attempt}`,
  };
}

/**
 * Reads at most `limit` bytes of a regular file below `base` (from its end when `tail`),
 * following no symbolic link on the way. Null when it is absent or refused.
 */
function readBounded(
  base: string,
  parts: string[],
  limit: number,
  tail = false,
): { text: string; bytes: number; truncated: boolean } | null {
  const f = openBeneathSync(base, parts);
  if (!f) return null;
  try {
    const st = f.st;
    const n = Math.min(st.size, limit);
    const buf = Buffer.alloc(n);
    const start = tail ? st.size - n : 0;
    let got = 0;
    // Stryker disable next-line EqualityOperator: untestable without a race: a regular file's first readSync returns all n bytes, so a second round (here, its length and offset, the break) is reached only by a file shrinking mid-read
    while (got < n) {
      // Stryker disable next-line ArithmeticOperator: got is 0 on the only round a test can reach (above)
      const r = readSync(f.fd, buf, got, n - got, start + got);
      // Stryker disable next-line ConditionalExpression: reached only by a file shrinking mid-read (above)
      if (r === 0) break;
      got += r;
    }
    return { text: buf.subarray(0, got).toString("utf8"), bytes: st.size, truncated: st.size > n };
  } finally {
    closeSync(f.fd);
  }
}

function readJson(base: string, parts: string[]): unknown {
  const r = readBounded(base, parts, SMALL_FILE);
  if (!r || r.truncated) return r ? `(${r.bytes} bytes, too large to show)` : null;
  try {
    return parseJson(r.text);
  } catch {
    return r.text;
  }
}

/** The workspace's files (not following links), breadth first, at most MAX_LISTED. */
function listWorkspace(base: string, root: string[]): CellFile[] {
  const out: CellFile[] = [];
  const queue: string[][] = [[]];
  while (queue.length > 0 && out.length < MAX_LISTED) {
    const rel = queue.shift()!;
    for (const { name, st } of readFolderBeneathSync(base, [...root, ...rel]) ?? []) {
      if (st.isDirectory()) queue.push([...rel, name]);
      else if (st.isFile()) out.push({ path: [...rel, name].join("/"), bytes: st.size });
      if (out.length >= MAX_LISTED) break;
    }
  }
  return out;
}

/** What an attempt left: input, log tail, prompt, usage and workspace files. */
export function attemptFiles(runDir: string, task: string, key: string | null, attempt: number): CellAttempt {
  const { base, folder, stem } = attemptPlace(runDir, task, key, attempt);
  const beside = (suffix: string) => [...folder, `${stem}${suffix}`];
  return {
    attempt,
    input: readJson(base, beside(".input.json")),
    log_tail: readBounded(base, beside(".log"), LOG_TAIL, true)?.text ?? null,
    prompt: readBounded(base, beside(".prompt.txt"), SMALL_FILE)?.text ?? null,
    usage: readJson(base, beside(".usage.json")),
    files: listWorkspace(base, [...folder, stem]),
  };
}

/** The prompt a revise loop's body agent got in one round (`STEM-rN-body.prompt.txt`), or null. */
export function roundPrompt(runDir: string, task: string, key: string | null, attempt: number, round: number): string | null {
  const { base, folder, stem } = attemptPlace(runDir, task, key, attempt);
  return readBounded(base, [...folder, `${stem}-r${round}-body.prompt.txt`], SMALL_FILE)?.text ?? null;
}

/**
 * One file of an attempt's workspace, named by a relative path from the listing. Refused (null)
 * when the path leaves the workspace, passes through a symbolic link (the workspace folder or one
 * above it included), or is not a regular file.
 */
export function workspaceFile(
  runDir: string,
  task: string,
  key: string | null,
  attempt: number,
  rel: string,
): ReturnType<typeof readBounded> {
  const { base, folder, stem } = attemptPlace(runDir, task, key, attempt);
  const parts = rel.split("/");
  // Stryker disable next-line ConditionalExpression,LogicalOperator,StringLiteral,MethodExpression: a second lock: openBeneathSync refuses "", ".", "..", NUL and (after a leading "/") the empty part itself, so only the backslash rule is this line's own (tested, with a folder named with one)
  if (rel === "" || rel.startsWith("/") || parts.some((p) => p === "" || p === "." || p === ".." || p.includes("\\") || p.includes("\0")))
    return null;
  return readBounded(base, [...folder, stem, ...parts], FILE_VIEW_LIMIT);
}
