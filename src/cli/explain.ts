// `switchyard explain [CODE]`: what an error code means and how to fix it; without a code, the
// list. The same texts make docs/errors.md (`--markdown`). `switchyard explain RUN TASK[KEY]`:
// why that instance is in its state (instance-explain.ts).

import type { Command } from "commander";
import { nearestName } from "../lang/diagnostic.js";
import { UsageError } from "./common.js";
import { allCodes, findCode, renderErrorsDoc } from "./codes.js";
import { forPeople, RULE_ID } from "./words.js";
import { explainInstance } from "./instance-explain.js";
import { findRun, noRuns, openForReading } from "./run-lookup.js";
import { STORE_HELP } from "./store-option.js";

/** Adds `switchyard explain`: what an error code (or a rule id) means and how to fix it. */
export function register(program: Command): void {
  program
    .command("explain")
    .description("explain an error code (or the rule behind it), or why a run's instance is in its state")
    .argument("[code]", "the code in error[CODE], or a rule id such as G-8; omit to list every code (or: a run id, or `latest`)")
    .argument("[instance]", "with a run: TASK or TASK[KEY], the instance to explain")
    .option("--json", "print JSON")
    .option("--markdown", "print every entry as Markdown (docs/errors.md)")
    .option("--state-dir <dir>", "with RUN TASK[KEY]: the state folder")
    .option("--store <url>", `with RUN TASK[KEY]: ${STORE_HELP}`)
    .action((code: string | undefined, instance: string | undefined, opts: ExplainFlags) => {
      // commander fills positional arguments in order: with an instance there is always a run.
      if (code !== undefined && instance !== undefined) {
        printInstance(code, instance, opts);
        return;
      }
      if (opts.markdown) {
        process.stdout.write(renderErrorsDoc());
        return;
      }
      if (code === undefined) {
        const all = allCodes().sort((a, b) => (a.code < b.code ? -1 : 1));
        if (opts.json) {
          process.stdout.write(JSON.stringify(all, null, 2) + "\n");
          return;
        }
        const width = Math.max(...all.map((e) => e.code.length));
        for (const e of all) process.stdout.write(`${e.code.padEnd(width)}  ${e.summary}${e.rule ? ` (${e.rule})` : ""}\n`);
        return;
      }
      const wanted = code.replace(/^error\[(.*)\]:?$/, "$1");
      const entry = findCode(wanted);
      if (!entry && RULE_ID.test(wanted)) {
        explainRule(wanted.toUpperCase().replace(/A$/, "a"), !!opts.json);
        return;
      }
      if (!entry) {
        const near = nearestName(
          wanted,
          allCodes().map((e) => e.code),
        );
        throw new UsageError("usage", `no error code '${wanted}'${near ? ` (did you mean '${near}'?)` : ""}`, {
          hint: "`switchyard explain` lists every code",
        });
      }
      if (opts.json) {
        process.stdout.write(JSON.stringify(entry, null, 2) + "\n");
        return;
      }
      process.stdout.write(
        `error[${entry.code}]: ${entry.summary}${entry.rule ? ` (rule ${entry.rule})` : ""}\n\n${wrap(forPeople(entry.explain), 96)}\n`,
      );
    })
    .addHelpText(
      "after",
      `
Examples:
  switchyard explain unhandled-label      # the code in error[unhandled-label]
  switchyard explain G-8                  # a rule id, as seen in a record or an issue
  switchyard explain latest 'deep[T3]'    # why this instance is in its state
  switchyard explain --json | jq -r '.[].code'`,
    );
}

interface ExplainFlags {
  json?: boolean;
  markdown?: boolean;
  stateDir?: string;
  store?: string;
}

/** `explain RUN TASK[KEY]`: the instance's history in words. */
function printInstance(id: string, spec: string, opts: ExplainFlags): void {
  const store = openForReading(opts.stateDir, opts.store);
  if (!store) throw noRuns(opts.stateDir);
  try {
    process.stdout.write(explainInstance(store, findRun(store, id), spec).join("\n") + "\n");
  } finally {
    store.close();
  }
}

/** `explain G-8`: the codes that rule stands behind, each in words. */
function explainRule(rule: string, json: boolean): void {
  const entries = allCodes().filter((e) => e.rule !== undefined && e.rule.split(/[,\s]+/).includes(rule));
  if (entries.length === 0) {
    throw new UsageError("usage", `no error comes from rule ${rule}`, {
      hint: "docs/reference/ states every rule, each under its id. `switchyard explain` lists every error code",
    });
  }
  if (json) {
    process.stdout.write(JSON.stringify({ rule, codes: entries }, null, 2) + "\n");
    return;
  }
  process.stdout.write(`rule ${rule} is behind ${entries.length === 1 ? "this error" : `these ${entries.length} errors`}:\n`);
  for (const e of entries) process.stdout.write(`\nerror[${e.code}]: ${e.summary}\n\n${wrap(forPeople(e.explain), 96)}\n`);
}

function wrap(text: string, width: number): string {
  const lines: string[] = [];
  let line = "";
  for (const word of text.split(/\s+/)) {
    if (line && line.length + 1 + word.length > width) {
      lines.push(line);
      line = word;
    } else line = line ? `${line} ${word}` : word;
  }
  if (line) lines.push(line);
  return lines.join("\n");
}
