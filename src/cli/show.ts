// `switchyard show RUN`: every task's status and, per key, each instance's status, output or
// error, attempts and (not taken) the closing label; for a route instance, per question the label,
// confidence, mode and who answered, and its fallback receipts. `--json` prints the documented
// shape (docs/runs.md); `--receipts` lists decision fallback receipts (D-31).

import type { Command } from "commander";
import { UsageError } from "./common.js";
import { showRun, type ShowJson } from "../run/index.js";
import type { EarlierResult, ShownRerun } from "../run/store/index.js";
import type { Receipt } from "../run/kinds/index.js";
import { findRun, noRuns, openForReading } from "./run-lookup.js";
import { STORE_HELP } from "./store-option.js";
import { nearestName } from "../lang/diagnostic.js";
import { followRun } from "./follow.js";
import { forPeople } from "./words.js";
import { writeHtml } from "./show-html.js";
import { explainInstance } from "./instance-explain.js";
import { describeDecisions, isDecision } from "./decision-text.js";
import { parseFields, selectFields } from "./show-fields.js";

export { describeDecisions } from "./decision-text.js";
import type { Store } from "../run/index.js";

interface ReceiptRow extends Receipt {
  task: string;
  question: string;
}

function receipts(shown: ShowJson): ReceiptRow[] {
  const out: ReceiptRow[] = [];
  const visit = (task: string, output: unknown) => {
    if (!output || typeof output !== "object") return;
    for (const [question, d] of Object.entries(output)) {
      if (isDecision(d) && d.receipt) out.push({ task, question, ...d.receipt });
    }
  };
  for (const [name, t] of Object.entries(shown.tasks)) {
    if (t.kind !== "route") continue;
    if (t.instances) for (const i of Object.values(t.instances)) visit(name, i.output);
    else visit(name, t.output);
  }
  return out;
}

/** Narrows every mapped task's instances to one key; a key no task has is a usage error. */
function onlyKey(shown: ShowJson, key: string): void {
  const keys = new Set<string>();
  for (const t of Object.values(shown.tasks)) {
    if (!t.instances) continue;
    for (const k of Object.keys(t.instances)) keys.add(k);
    const only = Object.hasOwn(t.instances, key) ? t.instances[key] : undefined;
    t.instances = only !== undefined ? { [key]: only } : {};
  }
  if (!keys.has(key)) {
    const near = nearestName(key, [...keys]);
    throw new UsageError("usage", `run ${shown.run} has no element with key ${key}`, {
      hint: near ? `did you mean ${near}?` : "keys are the elements of the mapped tasks' `over` lists",
    });
  }
}

/** A rerun as the command that made it, plus what it cleared. */
function describeRerun(r: ShownRerun): string {
  const flags = [
    ...r.tasks.map((t) => `--task ${t}`),
    ...r.keys.map((k) => `--key ${k}`),
    ...(r.failed ? ["--failed"] : []),
    ...(r.downstream ? ["--downstream"] : []),
    ...(r.redecide ? ["--redecide"] : []),
    ...(r.refresh_pack ? ["--refresh-pack"] : []),
  ];
  return `${flags.join(" ")}: ${r.reset} instance${r.reset === 1 ? "" : "s"} cleared${r.snapshot ? `, pack copied again to ${r.snapshot}` : ""}`;
}

const STATUSES = ["passed", "failed", "not_taken", "blocked", "running", "waiting", "pending"];

/** Keeps only the instances, and unmapped tasks, with this status (mapped tasks keep their summary). */
function onlyStatus(shown: ShowJson, status: string): void {
  for (const [name, t] of Object.entries(shown.tasks)) {
    if (t.instances) {
      t.instances = Object.fromEntries(Object.entries(t.instances).filter(([, i]) => i.status === status));
      if (Object.keys(t.instances).length === 0 && t.status !== status) delete shown.tasks[name];
    } else if (t.status !== status) delete shown.tasks[name];
  }
}

/** Lines for what reruns cleared: the earlier status and output or answer, oldest first. */
function earlierLines(kind: string, earlier: EarlierResult[] | undefined): string[] {
  return (earlier ?? []).map((e) => {
    const how = e.reason === "rerun" ? "cleared by a rerun" : "cleared downstream of a rerun";
    return `earlier (${how} at ${e.reset_at}${e.kept ? ", decision kept" : ""}): ${e.status}  ${detailOf(kind, e).detail}`.trimEnd();
  });
}

function brief(v: unknown): string {
  if (v === null || v === undefined) return "";
  const s = JSON.stringify(v);
  return s.length > 100 ? s.slice(0, 97) + "..." : s;
}

/** The flags of `show`. */
interface ShowFlags {
  task?: string;
  key?: string;
  stateDir?: string;
  store?: string;
  json?: boolean;
  receipts?: boolean;
  status?: string;
  follow?: boolean;
  html?: string;
  why?: string;
  fields?: string;
}

/** Adds `switchyard show`: a run's tasks and instances by key, as text, JSON or HTML, or followed live. */
export function register(program: Command): void {
  program
    .command("show")
    .description("show a run's tasks and instances by key")
    .argument("<run>", "the run id, or `latest`")
    .option("--task <name>", "only this task")
    .option("--key <key>", "only this element's instances (e.g. one ticket), and the unmapped tasks")
    .option("--state-dir <dir>", "the state folder")
    .option("--store <url>", STORE_HELP)
    .option("--json", "print the run as one JSON object (shape in docs/runs.md)")
    .option("--receipts", "list the decisions a model could not make and the host made instead, with the reasons")
    .option("--status <status>", `only instances (and unmapped tasks) with this status: ${STATUSES.join(", ")}`)
    .option("-f, --follow", "print the run's events as they happen, until it ends (from another terminal; reads only)")
    .option("--html <file>", "write the run's web view as one self-contained HTML file (docs/ui.md)")
    .option("--fields <list>", "with --json: only these fields of each instance and unmapped task, e.g. status,error or output.verdict")
    .option(
      "--why <instance>",
      "why TASK[KEY] is in its state: dependencies, gate, attempts, ceilings (as `switchyard explain RUN TASK[KEY]`)",
    )
    .addHelpText(
      "after",
      `
Examples:
  switchyard show latest --status failed       # what failed, and why
  switchyard show 20261202-1518 --key T7       # one ticket through every task
  switchyard show latest --why 'deep[T7]'      # why deep[T7] ran, or did not
  switchyard show latest --json --fields status,error   # only these fields of each instance
  switchyard show latest --follow              # watch a run another terminal started
  switchyard show latest --html run.html       # the run page as one file, for a ticket or CI`,
    )
    .action(showAction);
}

function checkStatus(status: string | undefined): void {
  if (status === undefined || STATUSES.includes(status)) return;
  const near = nearestName(status, STATUSES);
  throw new UsageError("usage", `--status must be one of ${STATUSES.join(", ")}, got ${JSON.stringify(status)}`, {
    hint: near ? `did you mean ${near}?` : undefined,
  });
}

function checkTask(store: Store, run: string, task: string | undefined): void {
  if (task === undefined) return;
  const names = store.tasks(run).map((t) => t.task);
  if (names.includes(task)) return;
  const near = nearestName(task, names);
  throw new UsageError("usage", `run ${run} has no task ${task}`, {
    hint: near ? `did you mean ${near}?` : `tasks: ${names.join(", ")}`,
  });
}

async function showAction(id: string, flags: ShowFlags): Promise<void> {
  checkStatus(flags.status);
  if (flags.fields !== undefined && !flags.json)
    throw new UsageError("usage", "--fields selects fields of the JSON: add --json", {
      hint: `switchyard show ${id} --json --fields ${flags.fields}`,
    });
  const fields = flags.fields !== undefined ? parseFields(flags.fields) : undefined;
  const store = openForReading(flags.stateDir, flags.store);
  if (!store) throw noRuns(flags.stateDir);
  try {
    const run = findRun(store, id);
    if (flags.why !== undefined) {
      process.stdout.write(explainInstance(store, run, flags.why).join("\n") + "\n");
      return;
    }
    if (flags.html !== undefined) {
      writeHtml(store, run, flags.html);
      return;
    }
    if (flags.follow) {
      await followRun(store, run, !!flags.json);
      return;
    }
    checkTask(store, run, flags.task);
    const shown = showRun(store, run, flags.task)!;
    if (flags.key !== undefined) onlyKey(shown, flags.key);
    if (flags.status !== undefined) onlyStatus(shown, flags.status);
    if (flags.json) {
      const selected = fields ? selectFields(shown, fields) : shown;
      const out: ShowJson & { receipts?: ReceiptRow[] } = flags.receipts ? { ...selected, receipts: receipts(shown) } : selected;
      process.stdout.write(JSON.stringify(out, null, 2) + "\n");
      return;
    }
    printText(shown, !!flags.receipts);
  } finally {
    store.close();
  }
}

/** What an instance (or unmapped task) shows after its status: its label, error, decision or output. */
function detailOf(kind: string, i: { status: string; label?: string | null; error?: string | null; output?: unknown }) {
  const decided = kind === "route" && i.status === "passed" ? describeDecisions(i.output) : undefined;
  const detail =
    i.status === "not_taken" ? (i.label ? `label ${i.label}` : "") : i.error ? i.error : decided ? decided.line : brief(i.output);
  return { detail: forPeople(detail), receipts: decided?.receipts ?? [] };
}

function printText(shown: ShowJson, withReceipts: boolean): void {
  const w = (s: string) => process.stdout.write(s);
  w(`run ${shown.run}  ${shown.playbook}  ${shown.status}\n`);
  for (const r of shown.reruns ?? []) w(`rerun at ${r.time}: ${describeRerun(r)}\n`);
  for (const [name, t] of Object.entries(shown.tasks)) {
    if (t.mapped) {
      const s = t.summary!;
      w(
        `\n${name} (${t.kind}, mapped) ${t.status}: ${s.total} total, ${s.passed} passed, ${s.failed} failed, ${s.not_taken} not_taken, ${s.blocked} blocked\n`,
      );
      if (t.error) w(`  error: ${forPeople(t.error)}\n`);
      for (const [key, i] of Object.entries(t.instances ?? {})) {
        const d = detailOf(t.kind, i);
        w(`  ${name}[${key}]  ${i.status}${i.attempts > 1 ? ` (${i.attempts} attempts)` : ""}  ${d.detail}\n`);
        for (const r of d.receipts) w(`    ${r}\n`);
        for (const l of earlierLines(t.kind, i.earlier)) w(`    ${l}\n`);
      }
    } else {
      const d = detailOf(t.kind, t);
      w(`\n${name} (${t.kind}) ${t.status}  ${d.detail}\n`);
      for (const r of d.receipts) w(`  ${r}\n`);
      for (const l of earlierLines(t.kind, t.earlier)) w(`  ${l}\n`);
    }
  }
  if (!withReceipts) return;
  const list = receipts(shown);
  w(`\nreceipts: ${list.length}\n`);
  for (const r of list) w(`  ${r.time}  ${r.task}[${r.key ?? ""}].${r.question}  ${r.type}  ${r.provider}/${r.model}: ${r.reason}\n`);
}
