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
import { isOneOf, isPlainObject } from "../shared/primitives.js";
import { errnoCode, messageOf } from "../shared/thrown.js";

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
  if (!isPlainObject(out)) return [];
  const pairs: string[] = [];
  for (const [q, d] of Object.entries(out)) {
    if (isPlainObject(d) && typeof d.label === "string" && typeof d.probabilities === "object") pairs.push(`${q}=${d.label}`);
  }
  return pairs.sort();
}

/** What the run did, per task, in the expectations' shape (elements only where `listed`). */
export function observed(instances: InstanceRow[], listed: Expectations = {}): Expectations {
  const out: Expectations = {};
  for (const i of instances) {
    const t = (out[i.task] ??= {});
    const status = i.status;
    if (isOneOf(STATUSES, status)) t[status] = (t[status] ?? 0) + 1;
    if (i.status === "passed") for (const l of routeLabels(i)) (t.labels ??= {})[l] = (t.labels[l] ?? 0) + 1;
    if (i.status === "not_taken" && i.label) (t.not_taken_labels ??= {})[i.label] = (t.not_taken_labels[i.label] ?? 0) + 1;
    const key = i.key ?? "";
    const elements = listed[i.task]?.elements;
    if (elements && Object.hasOwn(elements, key)) (t.elements ??= {})[key] = elementText(i);
  }
  return out;
}

/** Reads and checks a `--expect` TOML file; a wrong shape is a usage error naming the file and the key. */
export function readExpectations(path: string): Expectations {
  let doc: Record<string, unknown>;
  try {
    doc = parse(readFileSync(path, "utf8"));
  } catch (err) {
    const why = err instanceof TomlError ? err.message.split("\n")[0] : errnoCode(err) === "ENOENT" ? "no such file" : messageOf(err);
    throw new UsageError("usage", `cannot read the expectations ${path}: ${why}`, {
      hint: "write it from a run with `switchyard test PACK --cassette FILE --expect PATH --update`",
    });
  }
  const tasks = doc.tasks;
  if (!isPlainObject(tasks)) throw new UsageError("usage", `${path}: expectations are [tasks.NAME] tables`);
  const out: Expectations = {};
  for (const [name, table] of Object.entries(tasks)) out[name] = taskExpectation(path, name, table);
  return out;
}

/** One [tasks.NAME] table, checked key by key: counts are numbers, labels count tables, elements status texts. */
function taskExpectation(path: string, name: string, table: unknown): TaskExpectation {
  const wrong = (key: string, what: string) => new UsageError("usage", `${path}: tasks.${name}${key ? `.${key}` : ""} must be ${what}`);
  if (!isPlainObject(table)) throw wrong("", "a table");
  const t: TaskExpectation = {};
  for (const [key, v] of Object.entries(table)) {
    if (isOneOf(STATUSES, key)) {
      if (typeof v !== "number") throw wrong(key, "a number");
      t[key] = v;
    } else if (key === "labels" || key === "not_taken_labels")
      t[key] = tableOf(
        v,
        (x) => typeof x === "number",
        () => wrong(key, "a table of numbers"),
      );
    else if (key === "elements")
      t.elements = tableOf(
        v,
        (x) => typeof x === "string",
        () => wrong(key, "a table of texts"),
      );
    else throw wrong(key, `one of ${[...STATUSES, "labels", "not_taken_labels", "elements"].join(", ")} (unknown key)`);
  }
  return t;
}

/** A TOML table whose every value passes `is`; else the error `wrong` makes. */
function tableOf<T>(v: unknown, is: (x: unknown) => x is T, wrong: () => Error): Record<string, T> {
  if (!isPlainObject(v)) throw wrong();
  const out: Record<string, T> = {};
  for (const [k, x] of Object.entries(v)) {
    if (!is(x)) throw wrong();
    out[k] = x;
  }
  return out;
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
function sorted(v: unknown): unknown {
  if (!isPlainObject(v)) return v;
  return Object.fromEntries(
    Object.entries(v)
      .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))
      .map(([k, x]) => [k, sorted(x)]),
  );
}

/** Writes the `--expect` file from a test run's instances (sorted, so it diffs well), keeping the elements it already listed. */
export function writeExpectations(path: string, instances: InstanceRow[]): void {
  const listed = existsSync(path) ? readExpectations(path) : {};
  const head = "# What `switchyard test` expects of the run (docs/testing-playbooks.md). Written by --update.\n";
  writeFileSync(path, head + stringify({ tasks: sorted(observed(instances, listed)) }) + "\n");
}
