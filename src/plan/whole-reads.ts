// A warning, not an error: a mapped agent whose prompt renders an object field of
// the producer it maps over whole — `{{inputs.prep.facts}}` or `{{inputs.prep}}` — where
// `keyed = [prep.facts]` would render only the instance's own entry. Every instance then carries
// the whole object in its prompt: 10,000 elements reading a 10,000-entry object is 10,000 copies
// sent to agents. Only the producer the task maps over is considered (its object fields are the
// ones most likely keyed by element), and only prompt placeholders: they are the reads a
// playbook spells out. (A command's input file also holds every dependency's whole output;
// docs/runs.md gives that cost.)

import type { Diagnostic } from "../lang/diagnostic.js";
import type { TaskPlan } from "./plan.js";
import { PLACEHOLDER } from "./placeholders.js";

function promptsOf(t: TaskPlan): string[] {
  const agents = [t.agent, t.revise?.body.agent, t.revise?.reviewer.agent];
  return agents.filter((a) => a !== undefined).map((a) => a.prompt);
}

/** The producer's object fields, not narrowed by `keyed`, that `prompt` renders whole. */
function wholeFields(t: TaskPlan, producer: TaskPlan, prompt: string): string[] {
  const unkeyed = Object.entries(producer.emits)
    .filter(([f, type]) => type === "object" && !t.keyed.some((r) => r.task === producer.name && r.field === f))
    .map(([f]) => f);
  const out: string[] = [];
  for (const m of prompt.matchAll(PLACEHOLDER)) {
    const parts = m[1]!.split(".");
    if (parts[0] !== "inputs" || parts[1] !== producer.name) continue;
    for (const f of parts.length === 2 ? unkeyed : unkeyed.filter((f) => f === parts[2])) if (!out.includes(f)) out.push(f);
  }
  return out;
}

/** Warnings for mapped agents whose prompts render a whole object field of the producer they map over (where `keyed` would render one entry). */
export function wholeReadWarnings(tasks: readonly TaskPlan[]): Diagnostic[] {
  const byName = new Map(tasks.map((t) => [t.name, t]));
  const out: Diagnostic[] = [];
  for (const t of tasks) {
    if (!t.over || !t.depends_on.includes(t.over.task)) continue;
    const producer = byName.get(t.over.task);
    if (!producer || producer.over) continue;
    const fields: string[] = [];
    for (const p of promptsOf(t)) for (const f of wholeFields(t, producer, p)) if (!fields.includes(f)) fields.push(f);
    if (fields.length === 0) continue;
    const refs = fields.map((f) => `${producer.name}.${f}`);
    out.push({
      severity: "warning",
      code: "unkeyed-object-read",
      message: `the prompt of ${t.name} (mapped over ${t.over.task}.${t.over.field}) renders ${refs.join(", ")} whole for every element`,
      pos: { file: t.declared_at.file, line: t.declared_at.line, col: t.declared_at.col },
      hint: `if ${fields.length === 1 ? "it is an object" : "they are objects"} keyed by element, add keyed = [${refs.join(", ")}] so each instance renders only its own entry`,
    });
  }
  return out;
}
