// `switchyard test … --expect FILE`: a small TOML file of what a run should do, checked
// against the replayed run. Per task: counts by status, for a route the passed instances by
// question and label, for not-taken instances by the label that closed their gate; per element
// where listed. `--update` writes the file from the run (keeping the elements it lists).
//
//   [tasks.gate]
//   passed = 31
//   not_taken = 9
//   labels = { "depth=quick" = 15, "depth=deep" = 16 }
//   not_taken_labels = { settled = 9 }
//   elements = { "CVE-2023-44487" = "passed:depth=deep" }

import { existsSync, readFileSync, writeFileSync } from "node:fs";
import { parse, stringify, TomlError } from "smol-toml";
import type { InstanceRow } from "../run/index.js";
import { UsageError } from "./common.js";

const STATUSES = ["passed", "failed", "not_taken", "blocked"] as const;

/** What one task of a test run should have: counts by status, by route label and by not-taken label, and listed elements' statuses. */
export interface TaskExpectation {
  passed?: number;
  failed?: number;
  not_taken?: number;
  blocked?: number;
  labels?: Record<string, number>;
  not_taken_labels?: Record<string, number>;
  elements?: Record<string, string>;
}

/** A `--expect` file: task name → what that task should have. */
export type Expectations = Record<string, TaskExpectation>;

/** One instance as an expectation reads it: `passed`, `passed:q=label` for a route, `not_taken:label`, `failed`. */
function elementText(i: InstanceRow): string {
  if (i.status === "not_taken") return i.label ? `not_taken:${i.label}` : "not_taken";
  if (i.status === "passed" && routeLabels(i).length) return `passed:${routeLabels(i).join(",")}`;
  return i.status;
}

/** A route instance's `question=label` pairs (empty for other kinds). */
function routeLabels(i: InstanceRow): string[] {
  const out = i.output;
  if (typeof out !== "object" || out === null) return [];
  const pairs: string[] = [];
  for (const [q, d] of Object.entries(out as Record<string, unknown>)) {
    const label = typeof d === "object" && d !== null ? (d as { label?: unknown }).label : undefined;
    if (typeof label === "string" && typeof (d as { probabilities?: unknown }).probabilities === "object") pairs.push(`${q}=${label}`);
  }
  return pairs.sort();
}

/** What the run did, per task, in the expectations' shape (elements only where `listed`). */
export function observed(instances: InstanceRow[], listed: Expectations = {}): Expectations {
  const out: Expectations = {};
  for (const i of instances) {
    const t = (out[i.task] ??= {});
    if ((STATUSES as readonly string[]).includes(i.status))
      t[i.status as (typeof STATUSES)[number]] = (t[i.status as (typeof STATUSES)[number]] ?? 0) + 1;
    if (i.status === "passed") for (const l of routeLabels(i)) (t.labels ??= {})[l] = (t.labels[l] ?? 0) + 1;
    if (i.status === "not_taken" && i.label) (t.not_taken_labels ??= {})[i.label] = (t.not_taken_labels[i.label] ?? 0) + 1;
    const key = i.key ?? "";
    if (listed[i.task]?.elements && Object.hasOwn(listed[i.task]!.elements!, key)) (t.elements ??= {})[key] = elementText(i);
  }
  return out;
}

/** Reads and checks a `--expect` TOML file; a wrong shape is a usage error naming the file and the key. */
export function readExpectations(path: string): Expectations {
  let doc: Record<string, unknown>;
  try {
    doc = parse(readFileSync(path, "utf8"));
  } catch (err) {
    const why =
      err instanceof TomlError
        ? err.message.split("\n")[0]
        : (err as NodeJS.ErrnoException).code === "ENOENT"
          ? "no such file"
          : (err as Error).message;
    throw new UsageError("usage", `cannot read the expectations ${path}: ${why}`, {
      hint: "write it from a run with `switchyard test PACK --cassette FILE --expect PATH --update`",
    });
  }
  const tasks = doc.tasks;
  if (typeof tasks !== "object" || tasks === null) throw new UsageError("usage", `${path}: expectations are [tasks.NAME] tables`);
  return tasks as Expectations;
}

/** The differences, one line each: `TASK: passed 9, the run had 8`; `TASK[KEY]: expected …, the run had …`. */
export function compareExpectations(expected: Expectations, instances: InstanceRow[]): string[] {
  const got = observed(instances, expected);
  const out: string[] = [];
  for (const [task, e] of Object.entries(expected)) {
    const g = got[task] ?? {};
    if (!got[task]) out.push(`${task}: no such task in the run`);
    for (const s of STATUSES) if (e[s] !== undefined && e[s] !== (g[s] ?? 0)) out.push(`${task}: ${s} ${e[s]}, the run had ${g[s] ?? 0}`);
    for (const field of ["labels", "not_taken_labels"] as const) {
      for (const [label, n] of Object.entries(e[field] ?? {}))
        if ((g[field]?.[label] ?? 0) !== n)
          out.push(`${task}: ${field === "labels" ? label : `not taken as ${label}`} ${n}, the run had ${g[field]?.[label] ?? 0}`);
    }
    for (const [key, want] of Object.entries(e.elements ?? {})) {
      const have = g.elements?.[key] ?? "absent";
      if (have !== want) out.push(`${task}[${key}]: expected ${want}, the run had ${have}`);
    }
  }
  return out;
}

/** Keys in order at every level, so the written file diffs well. */
function sorted<T>(v: T): T {
  if (typeof v !== "object" || v === null) return v;
  return Object.fromEntries(
    Object.keys(v)
      .sort()
      .map((k) => [k, sorted((v as Record<string, unknown>)[k])]),
  ) as T;
}

/** Writes the `--expect` file from a test run's instances (sorted, so it diffs well), keeping the elements it already listed. */
export function writeExpectations(path: string, instances: InstanceRow[]): void {
  const listed = existsSync(path) ? readExpectations(path) : {};
  const head = "# What `switchyard test` expects of the run (docs/testing-playbooks.md). Written by --update.\n";
  writeFileSync(path, head + stringify({ tasks: sorted(observed(instances, listed)) }) + "\n");
}
