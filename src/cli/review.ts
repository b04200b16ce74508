// `switchyard review RUN` (D-62, D-63): the run's review queue. At a terminal, without --list or
// --answer, it walks the waiting questions one keypress at a time (review-walk.ts). `--list` shows
// the questions its waiting elements need answered (`--json`: one object per question); `--key K
// --answer Q=LABEL` answers one, recorded with who (`--as NAME`, else the login name) and when. The
// run's owner records the answer in the log and goes on with the element; a run that ended as
// `waiting` (--detach-reviews) takes it when resumed.

import type { Command } from "commander";
import { userInfo } from "node:os";
import { UsageError, examples } from "./common.js";
import { findRun, noRuns, openForReading } from "./run-lookup.js";
import { STORE_HELP } from "./store-option.js";
import { giveAnswer, pendingQuestions, type PendingQuestion } from "./review-queue.js";
import { tallyLine, walkQueue } from "./review-walk.js";

interface ReviewFlags {
  stateDir?: string;
  store?: string;
  list?: boolean;
  json?: boolean;
  task?: string;
  key?: string;
  answer: string[];
  note?: string;
  as?: string;
}

/** Who answers: --as, else the login name. */
function answerer(flag: string | undefined): string {
  const name = (flag ?? process.env.USER ?? userInfo().username).trim();
  if (name.length === 0 || name.length > 100)
    throw new UsageError("usage", "--as must name who answers (1 to 100 characters)", { hint: "e.g. --as alice" });
  return name;
}

/** The walk needs a terminal to read keys from and show questions on; elsewhere it is a usage error. */
function atTerminal(): void {
  if (process.stdin.isTTY && process.stdout.isTTY) return;
  throw new UsageError("usage", "`switchyard review` without --list or --answer walks the questions at a terminal, and this is not one", {
    hint: "list them with `switchyard review RUN --list [--json]`, answer one with `switchyard review RUN --key K --answer QUESTION=LABEL`, or run `switchyard review` in a terminal",
  });
}

/** One waiting question as lines for people. */
function describe(p: PendingQuestion): string {
  const m = p.question.model;
  const where = `${p.task}${p.key === null ? "" : `[${p.key}]`}`;
  const model = m ? `  model: ${m.label} (confidence ${m.confidence.toFixed(2)})\n` : "";
  return `${where} ${p.question.id}: ${p.question.ask}\n  labels: ${[...p.question.labels, "uncertain"].join(", ")}\n${model}  waiting since ${p.since}\n`;
}

/** `Q=LABEL` of --answer, split. */
function parseAnswer(text: string): { question: string; label: string } {
  const eq = text.indexOf("=");
  if (eq <= 0 || eq === text.length - 1)
    throw new UsageError("usage", `--answer ${JSON.stringify(text)} is not QUESTION=LABEL`, { hint: "e.g. --answer exploitable=yes" });
  return { question: text.slice(0, eq).trim(), label: text.slice(eq + 1).trim() };
}

/** Adds `switchyard review`: lists and answers the questions a run's elements wait on. */
export function register(program: Command): void {
  program
    .command("review")
    .description("list or answer the questions a run's elements wait on (review mode, escalated answers)")
    .argument("[run]", "the run id (or a unique prefix), or `latest` (default)")
    .option("--state-dir <dir>", "the state folder")
    .option("--store <url>", STORE_HELP)
    .option("--list", "list the waiting questions (without --list or --answer, at a terminal: walk them one by one)")
    .option("--json", "with --list: one JSON object per line per waiting question, with the element's state")
    .option("--task <route>", "the route, when an element waits in several")
    .option("--key <key>", "the element whose question is answered (omit for an unmapped route)")
    .option("--answer <question=label>", "the answer, a label or `uncertain` (repeatable)", (v: string, acc: string[]) => [...acc, v], [])
    .option("--note <text>", "a note recorded with the answer")
    .option("--as <name>", "who answers (default: the login name)")
    .addHelpText(
      "after",
      examples([
        ["switchyard review latest", "at a terminal: one question at a time, one keypress each"],
        ["switchyard review latest --list"],
        ["switchyard review latest --key CVE-2026-0042 --answer exploitable=no --as alice", "answer one"],
        ["switchyard resume latest", "a run that ended as waiting (--detach-reviews) continues"],
      ]),
    )
    .action(async (id: string | undefined, flags: ReviewFlags) => {
      const walk = flags.answer.length === 0 && !flags.list && !flags.json;
      if (walk) atTerminal();
      const store = openForReading(flags.stateDir, flags.store);
      if (!store) throw noRuns(flags.stateDir);
      try {
        const run = findRun(store, id);
        if (walk) {
          process.stdout.write(
            tallyLine(run, await walkQueue(store, run, answerer(flags.as), { input: process.stdin, output: process.stdout })),
          );
          return;
        }
        const pending = pendingQuestions(store, run);
        if (flags.answer.length === 0) {
          if (flags.json) for (const p of pending) process.stdout.write(JSON.stringify(p) + "\n");
          else if (pending.length === 0) process.stdout.write(`run ${run}: no questions wait for review\n`);
          else {
            process.stdout.write(`run ${run}: ${pending.length} question(s) wait for review\n\n`);
            for (const p of pending) process.stdout.write(describe(p) + "\n");
          }
          return;
        }
        const who = answerer(flags.as);
        for (const text of flags.answer) {
          const { question, label } = parseAnswer(text);
          const p = giveAnswer(store, run, pending, {
            ...(flags.task !== undefined ? { task: flags.task } : {}),
            key: flags.key ?? null,
            question,
            label,
            who,
            ...(flags.note !== undefined ? { note: flags.note } : {}),
          });
          process.stdout.write(`${p.task}${p.key === null ? "" : `[${p.key}]`} ${question} = ${label} (by ${who})\n`);
        }
      } finally {
        store.close();
      }
    });
}
