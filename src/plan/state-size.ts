// How big a model-decided route's state is per element, estimated from the plan
// alone: what `check` warns about and what `switchyard estimate` prices. The state is the
// instance's input — for each dependency its whole output (unmapped; `keyed` fields
// narrowed to the element's entry), its instance for the same key (aligned), or its fold (any
// other mapped dependency) — plus the route's `files`. The plan knows each field's declared type
// but not its value, so sizes are assumed by type, and a list or object that holds one entry per
// element is as long as the fan-out. Measured sizes (from producers `estimate` ran) replace the
// assumptions where they are known. Characters are counted as the serialised JSON has them;
// tokens are ceil(characters / 4), the rule the context-window check (D-32) uses.

import type { Diagnostic } from "../lang/diagnostic.js";
import type { FieldType, TaskPlan } from "./plan.js";

/** Above this many estimated tokens per element, `check` warns about a route's state. */
export const DEFAULT_STATE_WARN_TOKENS = 2000;
/** Characters per token, as the context-window check (D-32) counts. */
export const CHARS_PER_TOKEN = 4;

const SCALAR: Record<Exclude<FieldType, "list" | "object">, number> = { string: 50, any: 50, number: 10, bool: 5 };

/** The assumed serialised size of a value of each declared type, and of the parts of a list or object (docs/reference/runs.md, R-22). */
export const ASSUMED = {
  /** An element's key. */
  key: 16,
  scalar: SCALAR,
  /** One entry of a list (a short string, quoted, with its comma). */
  listEntry: 20,
  /** One entry of an object (a key and a short value). */
  objectEntry: 40,
  /** Entries of a list or object that nothing says holds one entry per element. */
  entries: 10,
  /** One JSON file of the route's `files`. */
  file: 1000,
};

/** What is known beyond the plan: element counts and measured sizes (from producers that ran). */
export interface Measured {
  /** How many elements a mapped task has, when known. */
  elements?: (task: TaskPlan) => number | undefined;
  /** The serialised size of `task.field` as an instance reads it whole (a mapped task: one instance's, the largest), when known. */
  fieldChars?: (task: string, field: string) => number | undefined;
  /** The serialised size of the largest entry of the object `task.field` (what `keyed` leaves each element), when known. */
  entryChars?: (task: string, field: string) => number | undefined;
}

/** One part of a route's state and its estimated size. */
export interface StatePart {
  /** `producer.field`, `producer` (a fold or an aligned instance), `files.DEP.NAME` or `key`. */
  ref: string;
  chars: number;
  /** How the size was reached, in words ("300 entries, one per element, × 40"). */
  why: string;
  /** How to make it smaller, when there is a way the playbook can say. */
  narrow?: string;
}

/** A route's estimated state per element: its size and its parts, largest first. */
export interface StateEstimate {
  route: string;
  chars: number;
  tokens: number;
  parts: StatePart[];
}

const fieldFraming = (name: string) => name.length + 4; // "name": and a comma

/** Tokens of `chars` characters of serialised text. */
export function tokensOf(chars: number): number {
  return Math.ceil(chars / CHARS_PER_TOKEN);
}

/** How many elements a mapped task has: as measured, else its max_fanout. */
function fanout(t: TaskPlan, m: Measured): number {
  return m.elements?.(t) ?? t.max_fanout ?? ASSUMED.entries;
}

/** The estimate of one field `producer.field` read whole by `route`. */
function fieldPart(
  tasks: readonly TaskPlan[],
  route: TaskPlan,
  producer: TaskPlan,
  field: string,
  type: FieldType,
  m: Measured,
): StatePart {
  const ref = `${producer.name}.${field}`;
  const measured = m.fieldChars?.(producer.name, field);
  if (type !== "list" && type !== "object") {
    const chars = measured ?? ASSUMED.scalar[type];
    return { ref, chars: chars + fieldFraming(field), why: measured !== undefined ? "measured" : `a ${type}` };
  }
  const entry = type === "list" ? ASSUMED.listEntry : ASSUMED.objectEntry;
  const mapsOver = (t: TaskPlan) => t.over?.task === producer.name && t.over.field === field;
  const mapper = mapsOver(route) ? route : tasks.find(mapsOver);
  const perElement = mapper ?? (route.over?.task === producer.name && !producer.over ? route : undefined);
  const entries = perElement ? fanout(perElement, m) : ASSUMED.entries;
  const why =
    measured !== undefined
      ? "measured"
      : perElement
        ? `${entries} entries, one per element of ${perElement.name}, × ${entry}`
        : `${entries} entries assumed × ${entry}`;
  const narrow =
    type === "object" && route.over && !producer.over
      ? `keyed = [${ref}] gives each element only its own entry`
      : `emit a smaller field than ${ref} for the decision (a task that keeps only what the questions need)`;
  return { ref, chars: (measured ?? entries * entry) + fieldFraming(field), why, narrow };
}

/** One dependency's output as an instance of it is read: its fields (or their measured sizes), summed. */
function outputChars(tasks: readonly TaskPlan[], route: TaskPlan, dep: TaskPlan, m: Measured): number {
  return 2 + Object.entries(dep.emits).reduce((n, [f, type]) => n + fieldPart(tasks, route, dep, f, type, m).chars, 0);
}

/** The parts one dependency adds to the route's state (R-20, M-2, M-3). */
function dependencyParts(tasks: readonly TaskPlan[], route: TaskPlan, dep: TaskPlan, m: Measured): StatePart[] {
  const framing = fieldFraming(dep.name) + 2;
  if (route.aligned_with.includes(dep.name))
    return [{ ref: dep.name, chars: framing + outputChars(tasks, route, dep, m), why: "its instance for the same element" }];
  if (dep.over) {
    // The fold: items (key → output), status (key → status) and summary (M-2).
    const n = fanout(dep, m);
    const perItem = ASSUMED.key + 4 + outputChars(tasks, route, dep, m) + ASSUMED.key + 14;
    return [
      {
        ref: dep.name,
        chars: framing + 40 + n * perItem + 80,
        why: `the fold of ${n} instances`,
        narrow: route.over
          ? `map ${dep.name} and ${route.name} over the same list, so each element reads only its own instance`
          : `read a smaller summary task instead of ${dep.name}'s fold`,
      },
    ];
  }
  const parts: StatePart[] = [{ ref: dep.name, chars: framing, why: "framing" }];
  for (const [f, type] of Object.entries(dep.emits)) {
    if (route.keyed.some((r) => r.task === dep.name && r.field === f)) {
      const entry = m.entryChars?.(dep.name, f);
      parts.push({
        ref: `${dep.name}.${f}`,
        chars: (entry ?? ASSUMED.objectEntry) + fieldFraming(f),
        why: `keyed: one entry${entry !== undefined ? ", measured" : ""}`,
      });
      continue;
    }
    parts.push(fieldPart(tasks, route, dep, f, type, m));
  }
  return parts;
}

/** The estimated state per element of a model-decided `route`. */
export function estimateRouteState(tasks: readonly TaskPlan[], route: TaskPlan, m: Measured = {}): StateEstimate {
  const byName = new Map(tasks.map((t) => [t.name, t]));
  // {"key":"KEY","inputs":{}} for a mapped route, {"inputs":{}} for an unmapped one.
  const parts: StatePart[] = [{ ref: "key", chars: route.over ? 22 + ASSUMED.key : 13, why: "framing" }];
  for (const name of route.depends_on) {
    const dep = byName.get(name);
    if (dep) parts.push(...dependencyParts(tasks, route, dep, m));
  }
  if (route.join === "settled")
    parts.push({ ref: "statuses", chars: 14 + route.depends_on.reduce((n, d) => n + d.length + 14, 0), why: "framing" });
  const files = route.route?.files ?? [];
  if (files.length > 0) {
    parts.push({ ref: "files", chars: 10, why: "framing" });
    for (const dep of route.depends_on.map((d) => byName.get(d)).filter((d) => d !== undefined)) {
      const declared = dep.agent?.files ?? dep.revise?.body.agent?.files ?? [];
      for (const f of files.filter((x) => declared.includes(x)))
        parts.push({ ref: `files.${dep.name}.${f}`, chars: ASSUMED.file, why: "a file, assumed", narrow: `leave ${f} out of files` });
    }
  }
  const chars = parts.reduce((n, p) => n + p.chars, 0);
  return { route: route.name, chars, tokens: tokensOf(chars), parts: [...parts].sort((a, b) => b.chars - a.chars) };
}

/** The model-decided routes of a plan. */
export function modelRoutes(tasks: readonly TaskPlan[]): TaskPlan[] {
  return tasks.filter((t) => t.kind === "route" && t.route.decide === "model");
}

const num = (n: number) => n.toLocaleString("en-US");

/** Warnings (`route-state-large`, R-22) for model-decided routes whose state per element is estimated above `limit` tokens. */
export function stateSizeWarnings(tasks: readonly TaskPlan[], limit = DEFAULT_STATE_WARN_TOKENS, m: Measured = {}): Diagnostic[] {
  const out: Diagnostic[] = [];
  for (const route of modelRoutes(tasks)) {
    const e = estimateRouteState(tasks, route, m);
    if (e.tokens <= limit) continue;
    // The parts that make it big: the largest, until they hold most of it.
    const big: StatePart[] = [];
    for (const p of e.parts.filter((x) => x.why !== "framing")) {
      if (big.length >= 3 || big.reduce((n, x) => n + x.chars, 0) >= e.chars * 0.8) break;
      big.push(p);
    }
    const named = big.map((p) => `${p.ref} ~${num(p.chars)} characters (${p.why})`).join(", ");
    const narrows = big.flatMap((p) => (p.narrow ? [p.narrow] : []));
    out.push({
      severity: "warning",
      code: "route-state-large",
      message: `each decision of ${route.name} sends a state of about ${num(e.tokens)} tokens (${num(e.chars)} characters), above the limit of ${num(limit)} (R-22): ${named}`,
      pos: { ...route.declared_at },
      hint: `${narrows.join("; ")}${narrows.length ? "; " : ""}or raise the limit with --state-warn-tokens N`,
    });
  }
  return out;
}
