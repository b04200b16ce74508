// `switchyard show RUN`: every task's status and, per key, each instance's status, output or
// error, attempts and (not taken) the closing label; for a route instance, per question the label,
// confidence, mode and who answered, and its fallback receipts. `--json` prints the documented
// shape (docs/runs.md); `--receipts` lists decision fallback receipts (D-31).

import type { Command } from "commander";
import { UsageError } from "./common.js";
import { showRun, type ShowJson } from "../run/index.js";
import type { EarlierResult, ShownRerun } from "../run/store/index.js";
import type { DecisionRecord, Receipt } from "../run/kinds/index.js";
import { findRun, noRuns, openForReading } from "./run-lookup.js";
import { STORE_HELP } from "./store-option.js";
import { nearestName } from "../lang/diagnostic.js";
import { followRun } from "./follow.js";
import { forPeople } from "./words.js";
import { writeHtml } from "./show-html.js";

interface ReceiptRow extends Receipt {
  task: string;
  question: string;
}

function receipts(shown: ShowJson): ReceiptRow[] {
  const out: ReceiptRow[] = [];
  const visit = (task: string, output: unknown) => {
    if (!output || typeof output !== "object") return;
    for (const [question, d] of Object.entries(output as DecisionRecord)) {
      if (d && typeof d === "object" && d.receipt) out.push({ task, question, ...d.receipt });
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

function isDecision(v: unknown): v is DecisionRecord[string] {
  return (
    !!v &&
    typeof v === "object" &&
    typeof (v as { label?: unknown }).label === "string" &&
    typeof (v as { mode?: unknown }).mode === "string"
  );
}

/**
 * A route instance's decision record as text: per question its label, confidence, the
 * mode it ran in and who answered ("package=p3 0.84 model s1/jev-1"), and a line per receipt.
 * Undefined when the output is not a decision record.
 */
export function describeDecisions(output: unknown): { line: string; receipts: string[] } | undefined {
  if (!output || typeof output !== "object" || Array.isArray(output)) return undefined;
  const entries = Object.entries(output as Record<string, unknown>);
  if (entries.length === 0 || !entries.every(([, d]) => isDecision(d))) return undefined;
  const parts: string[] = [];
  const receiptLines: string[] = [];
  for (const [question, d] of entries as [string, DecisionRecord[string]][]) {
    const who = d.mode === "output" ? "" : ` ${d.provider ?? "?"}/${d.model ?? "?"}`;
    const confidence = typeof d.confidence === "number" ? ` ${d.confidence.toFixed(2)}` : "";
    parts.push(`${question}=${d.label}${confidence}${d.refused ? " refused" : ""} ${d.mode}${who}`);
    if (d.receipt) {
      const reason = d.receipt.reason.length > 240 ? d.receipt.reason.slice(0, 237) + "..." : d.receipt.reason;
      receiptLines.push(`receipt: ${question}: ${d.receipt.provider}/${d.receipt.model} could not answer, the host did: ${reason}`);
    }
  }
  return { line: parts.join("  "), receipts: receiptLines };
}

/** Lines for what reruns cleared: the earlier status and output or answer, oldest first. */
function earlierLines(kind: string, earlier: EarlierResult[] | undefined): string[] {
  return (earlier ?? []).map((e) => {
    const decided = kind === "route" && e.status === "passed" ? describeDecisions(e.output) : undefined;
    const detail =
      e.status === "not_taken" ? (e.label ? `label ${e.label}` : "") : e.error ? e.error : decided ? decided.line : brief(e.output);
    const how = e.reason === "rerun" ? "cleared by a rerun" : "cleared downstream of a rerun";
    return `earlier (${how} at ${e.reset_at}${e.kept ? ", decision kept" : ""}): ${e.status}  ${detail}`.trimEnd();
  });
}

function brief(v: unknown): string {
  if (v === null || v === undefined) return "";
  const s = JSON.stringify(v);
  return s.length > 100 ? s.slice(0, 97) + "..." : s;
}

/** Adds `switchyard show`: a run's tasks and instances by key, as text, JSON or HTML, or followed live. */
// eslint-disable-next-line max-lines-per-function -- not split yet: `show` and its options; the action below is to move into a named function
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
    .addHelpText(
      "after",
      `
Examples:
  switchyard show latest --status failed       # what failed, and why
  switchyard show 20261202-1518 --key T7       # one ticket through every task
  switchyard show latest --follow              # watch a run another terminal started
  switchyard show latest --html run.html       # the run page as one file, for a ticket or CI`,
    )
    .action(
      async (
        id: string,
        flags: {
          task?: string;
          key?: string;
          stateDir?: string;
          store?: string;
          json?: boolean;
          receipts?: boolean;
          status?: string;
          follow?: boolean;
          html?: string;
        },
        // eslint-disable-next-line max-lines-per-function -- not split yet: show's action (text, JSON, HTML, --follow) is to be split per output
      ) => {
        if (flags.status !== undefined && !STATUSES.includes(flags.status)) {
          const near = nearestName(flags.status, STATUSES);
          throw new UsageError("usage", `--status must be one of ${STATUSES.join(", ")}, got ${JSON.stringify(flags.status)}`, {
            hint: near ? `did you mean ${near}?` : undefined,
          });
        }
        const store = openForReading(flags.stateDir, flags.store);
        if (!store) throw noRuns(flags.stateDir);
        try {
          const run = findRun(store, id);
          if (flags.html !== undefined) {
            writeHtml(store, run, flags.html);
            return;
          }
          if (flags.follow) {
            await followRun(store, run, !!flags.json);
            return;
          }
          if (flags.task !== undefined) {
            const names = store.tasks(run).map((t) => t.task);
            if (!names.includes(flags.task)) {
              const near = nearestName(flags.task, names);
              throw new UsageError("usage", `run ${run} has no task ${flags.task}`, {
                hint: near ? `did you mean ${near}?` : `tasks: ${names.join(", ")}`,
              });
            }
          }
          const shown = showRun(store, run, flags.task)!;
          if (flags.key !== undefined) onlyKey(shown, flags.key);
          if (flags.status !== undefined) onlyStatus(shown, flags.status);
          if (flags.json) {
            const out: ShowJson & { receipts?: ReceiptRow[] } = flags.receipts ? { ...shown, receipts: receipts(shown) } : shown;
            process.stdout.write(JSON.stringify(out, null, 2) + "\n");
            return;
          }
          process.stdout.write(`run ${shown.run}  ${shown.playbook}  ${shown.status}\n`);
          for (const r of shown.reruns ?? []) process.stdout.write(`rerun at ${r.time}: ${describeRerun(r)}\n`);
          for (const [name, t] of Object.entries(shown.tasks)) {
            if (t.mapped) {
              const s = t.summary!;
              process.stdout.write(
                `\n${name} (${t.kind}, mapped) ${t.status}: ${s.total} total, ${s.passed} passed, ${s.failed} failed, ${s.not_taken} not_taken, ${s.blocked} blocked\n`,
              );
              if (t.error) process.stdout.write(`  error: ${forPeople(t.error)}\n`);
              for (const [key, i] of Object.entries(t.instances ?? {})) {
                const decided = t.kind === "route" && i.status === "passed" ? describeDecisions(i.output) : undefined;
                const detail =
                  i.status === "not_taken"
                    ? i.label
                      ? `label ${i.label}`
                      : ""
                    : i.error
                      ? i.error
                      : decided
                        ? decided.line
                        : brief(i.output);
                process.stdout.write(
                  `  ${name}[${key}]  ${i.status}${i.attempts > 1 ? ` (${i.attempts} attempts)` : ""}  ${forPeople(detail)}\n`,
                );
                for (const r of decided?.receipts ?? []) process.stdout.write(`    ${r}\n`);
                for (const l of earlierLines(t.kind, i.earlier)) process.stdout.write(`    ${l}\n`);
              }
            } else {
              const decided = t.kind === "route" && t.status === "passed" ? describeDecisions(t.output) : undefined;
              const detail =
                t.status === "not_taken"
                  ? t.label
                    ? `label ${t.label}`
                    : ""
                  : t.error
                    ? t.error
                    : decided
                      ? decided.line
                      : brief(t.output);
              process.stdout.write(`\n${name} (${t.kind}) ${t.status}  ${forPeople(detail)}\n`);
              for (const r of decided?.receipts ?? []) process.stdout.write(`  ${r}\n`);
              for (const l of earlierLines(t.kind, t.earlier)) process.stdout.write(`  ${l}\n`);
            }
          }
          if (flags.receipts) {
            const list = receipts(shown);
            process.stdout.write(`\nreceipts: ${list.length}\n`);
            for (const r of list)
              process.stdout.write(
                `  ${r.time}  ${r.task}[${r.key ?? ""}].${r.question}  ${r.type}  ${r.provider}/${r.model}: ${r.reason}\n`,
              );
          }
        } finally {
          store.close();
        }
      },
    );
}
