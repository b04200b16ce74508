// `show RUN --json --fields a,b`: keeps only the named fields of every instance and of every
// unmapped task (a task keeps its kind, whether it is mapped and a mapped task's summary, so the
// shape stays that of docs/runs.md). A field may be a dotted path into an output or a decision
// record, `output.verdict` or `output.depth.label`: it keeps that part, nested as it was.

import type { ShowJson } from "../run/index.js";
import { nearestName } from "../lang/diagnostic.js";
import { itemAt } from "../shared/checked-index.js";
import { isPlainObject } from "../shared/primitives.js";
import { UsageError } from "./common.js";

/** The fields an instance (or an unmapped task) has in `show --json`. */
export const INSTANCE_FIELDS = ["status", "output", "error", "attempts", "label", "usage", "earlier"];

/** `--fields` read: each a known field, or a dotted path under one; a usage error names the nearest field. */
export function parseFields(text: string): string[][] {
  const paths = text
    .split(",")
    .map((f) => f.trim())
    .filter((f) => f !== "")
    .map((f) => f.split("."));
  if (paths.length === 0)
    throw new UsageError("usage", "--fields needs at least one field", { hint: `fields: ${INSTANCE_FIELDS.join(", ")}` });
  for (const p of paths) {
    const head = itemAt(p, 0);
    if (INSTANCE_FIELDS.includes(head) && p.every((part) => part !== "")) continue;
    const near = nearestName(head, INSTANCE_FIELDS);
    throw new UsageError("usage", `--fields: an instance has no field ${JSON.stringify(p.join("."))}`, {
      hint: `${near ? `did you mean ${near}? ` : ""}fields: ${INSTANCE_FIELDS.join(", ")}; a dotted path reaches inside one, e.g. output.verdict`,
    });
  }
  return paths;
}

/** Copies `path` of `from` into `to`, nested as it was; a path that leads nowhere copies nothing. */
function copyPath(from: unknown, to: Record<string, unknown>, path: string[]): void {
  let value = from;
  for (const part of path) {
    if (!isPlainObject(value) || !Object.hasOwn(value, part)) return;
    value = value[part];
  }
  let at = to;
  for (const part of path.slice(0, -1)) {
    const next = at[part];
    if (isPlainObject(next)) at = next;
    else at = at[part] = {};
  }
  at[itemAt(path, path.length - 1)] = value;
}

function pick(from: object, paths: string[][]): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const p of paths) copyPath(from, out, p);
  return out;
}

/** The run with only these fields kept on its instances and unmapped tasks. */
export function selectFields(shown: ShowJson, paths: string[][]): ShowJson {
  const tasks: Record<string, unknown> = {};
  for (const [name, t] of Object.entries(shown.tasks)) {
    const head = { kind: t.kind, mapped: t.mapped };
    tasks[name] = t.mapped
      ? {
          ...head,
          status: t.status,
          summary: t.summary,
          instances: Object.fromEntries(Object.entries(t.instances ?? {}).map(([k, i]) => [k, pick(i, paths)])),
        }
      : { ...head, ...pick(t, paths) };
  }
  return { ...shown, tasks: tasks as ShowJson["tasks"] };
}
