// An instance attempt's files in the run folder (docs/runs.md, "The state folder"): its input,
// log, prompt, usage and the workspace the process left behind. Everything there was written by
// commands and agents, so it is untrusted: paths are built from recorded names only, never from a
// request; symbolic links are neither followed nor served; reads are bounded.

import { closeSync, constants, fstatSync, lstatSync, openSync, readdirSync, readSync } from "node:fs";
import { join, relative, resolve, sep } from "node:path";
import { keyDirName } from "../run/keys.js";
import type { CellAttempt, CellFile } from "./api-types.js";

const LOG_TAIL = 16 * 1024;
const SMALL_FILE = 256 * 1024;
const FILE_VIEW_LIMIT = 64 * 1024;
const MAX_LISTED = 200;

/** The attempt's path stem: runs/RUN/work/TASK/KEY.aN (unmapped: work/TASK/aN). */
function attemptStem(runDir: string, task: string, key: string | null, attempt: number): string {
  const base = join(runDir, "work", task);
  return key !== null ? join(base, `${keyDirName(key)}.a${attempt}`) : join(base, `a${attempt}`);
}

/**
 * Reads at most `limit` bytes of a regular file (from its end when `tail`), refusing symbolic
 * links and anything that is not a regular file. Null when it is absent or refused.
 */
function readBounded(path: string, limit: number, tail = false): { text: string; bytes: number; truncated: boolean } | null {
  let fd: number;
  try {
    fd = openSync(path, constants.O_RDONLY | constants.O_NOFOLLOW | constants.O_NONBLOCK);
  } catch {
    return null;
  }
  try {
    const st = fstatSync(fd);
    if (!st.isFile()) return null;
    const n = Math.min(st.size, limit);
    const buf = Buffer.alloc(n);
    const start = tail ? st.size - n : 0;
    let got = 0;
    while (got < n) {
      const r = readSync(fd, buf, got, n - got, start + got);
      if (r === 0) break;
      got += r;
    }
    return { text: buf.subarray(0, got).toString("utf8"), bytes: st.size, truncated: st.size > n };
  } finally {
    closeSync(fd);
  }
}

function readJson(path: string): unknown {
  const r = readBounded(path, SMALL_FILE);
  if (!r || r.truncated) return r ? `(${r.bytes} bytes, too large to show)` : null;
  try {
    return JSON.parse(r.text) as unknown;
  } catch {
    return r.text;
  }
}

/** The workspace's files (not following links), breadth first, at most MAX_LISTED. */
function listWorkspace(dir: string): CellFile[] {
  const out: CellFile[] = [];
  const queue = [dir];
  while (queue.length > 0 && out.length < MAX_LISTED) {
    const d = queue.shift()!;
    let names: string[];
    try {
      names = readdirSync(d).sort();
    } catch {
      continue;
    }
    for (const name of names) {
      const p = join(d, name);
      const st = lstatSync(p, { throwIfNoEntry: false });
      if (!st) continue;
      if (st.isDirectory()) queue.push(p);
      else if (st.isFile()) out.push({ path: relative(dir, p), bytes: st.size });
      if (out.length >= MAX_LISTED) break;
    }
  }
  return out;
}

/** What an attempt left: input, log tail, prompt, usage and workspace files. */
export function attemptFiles(runDir: string, task: string, key: string | null, attempt: number): CellAttempt {
  const stem = attemptStem(runDir, task, key, attempt);
  return {
    attempt,
    input: readJson(`${stem}.input.json`),
    log_tail: readBounded(`${stem}.log`, LOG_TAIL, true)?.text ?? null,
    prompt: readBounded(`${stem}.prompt.txt`, SMALL_FILE)?.text ?? null,
    usage: readJson(`${stem}.usage.json`),
    files: listWorkspace(stem),
  };
}

/**
 * One file of an attempt's workspace, named by a relative path from the listing. Refused (null)
 * when the path leaves the workspace, passes through a symbolic link, or is not a regular file.
 */
export function workspaceFile(
  runDir: string,
  task: string,
  key: string | null,
  attempt: number,
  rel: string,
): ReturnType<typeof readBounded> {
  const root = attemptStem(runDir, task, key, attempt);
  const parts = rel.split("/");
  if (rel === "" || rel.startsWith("/") || parts.some((p) => p === "" || p === "." || p === ".." || p.includes("\\") || p.includes("\0")))
    return null;
  const full = resolve(root, ...parts);
  if (!full.startsWith(root + sep)) return null;
  let at = root;
  for (const p of parts.slice(0, -1)) {
    at = join(at, p);
    const st = lstatSync(at, { throwIfNoEntry: false });
    if (!st || !st.isDirectory()) return null;
  }
  return readBounded(full, FILE_VIEW_LIMIT);
}
