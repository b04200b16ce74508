// `switchyard logs RUN TASK[KEY] [--attempt N] [-f]` (issue 13): prints the log (stdout and
// stderr) of one instance's attempt, the latest by default; -f keeps printing what is appended
// until the attempt is over. Reads only.

import { closeSync, existsSync, openSync, readSync, statSync } from "node:fs";
import { join } from "node:path";
import type { Command } from "commander";
import { nearestName } from "../lang/diagnostic.js";
import { keyDirName } from "../run/keys.js";
import type { Store } from "../run/index.js";
import { UsageError } from "./common.js";
import { findRun, noRuns, openForReading } from "./run-lookup.js";
import { STORE_HELP } from "./store-option.js";

const POLL_MS = 200;

/** `task`, or `task[key]` (the key may itself hold brackets: everything up to the last `]`). */
function parseInstance(spec: string): { task: string; key: string | null } {
  const open = spec.indexOf("[");
  if (open < 0) return { task: spec, key: null };
  if (!spec.endsWith("]"))
    throw new UsageError("usage", `cannot read the instance ${JSON.stringify(spec)}`, {
      hint: "write TASK for an unmapped task, or TASK[KEY] for one element, e.g. review[T7] (quote it in the shell)",
    });
  return { task: spec.slice(0, open), key: spec.slice(open + 1, -1) };
}

function logPath(store: Store, run: string, task: string, key: string | null, attempt: number): string {
  const base = join(store.runDir(run), "work", task);
  return key !== null ? join(base, `${keyDirName(key)}.a${attempt}.log`) : join(base, `a${attempt}.log`);
}

export function register(program: Command): void {
  program
    .command("logs")
    .description("print the log of one instance's attempt (the latest by default)")
    .argument("<run>", "the run id (or a unique prefix), or `latest`")
    .argument("<instance>", "TASK for an unmapped task, TASK[KEY] for one element")
    .option("--attempt <n>", "which attempt (1, 2, ...)")
    .option("-f, --follow", "keep printing what the attempt writes until it ends")
    .option("--state-dir <dir>", "the state folder")
    .option("--store <url>", STORE_HELP)
    .addHelpText(
      "after",
      `
Examples:
  switchyard logs latest prepare
  switchyard logs latest 'review[T7]' --attempt 1
  switchyard logs latest 'deep[T3]' -f          # while it runs`,
    )
    .action(async (id: string, spec: string, flags: { attempt?: string; follow?: boolean; stateDir?: string; store?: string }) => {
      const store = openForReading(flags.stateDir, flags.store);
      if (!store) throw noRuns(flags.stateDir);
      try {
        const run = findRun(store, id);
        const { task, key } = parseInstance(spec);
        const tasks = store.tasks(run);
        const t = tasks.find((x) => x.task === task);
        if (!t) {
          const near = nearestName(
            task,
            tasks.map((x) => x.task),
          );
          throw new UsageError("usage", `run ${run} has no task ${task}`, {
            hint: near ? `did you mean ${near}?` : `tasks: ${tasks.map((x) => x.task).join(", ")}`,
          });
        }
        if (t.mapped && key === null)
          throw new UsageError("usage", `${task} is mapped: say which element, e.g. ${task}[KEY]`, {
            hint: `keys: switchyard show ${run} --task ${task}`,
          });
        if (!t.mapped && key !== null) throw new UsageError("usage", `${task} is not mapped: write just ${task}`);
        const rows = store.instances(run, task);
        const inst = rows.find((r) => r.key === key);
        if (!inst) {
          const near = nearestName(
            key ?? "",
            rows.map((r) => r.key ?? ""),
          );
          throw new UsageError("usage", `${task} has no instance ${spec} in run ${run}`, {
            hint: near ? `did you mean ${task}[${near}]?` : "it may not have been reached yet",
          });
        }
        const attempt = flags.attempt === undefined ? inst.attempts : Number(flags.attempt);
        if (!Number.isSafeInteger(attempt) || attempt < 1 || attempt > Math.max(1, inst.attempts)) {
          if (inst.attempts === 0)
            throw new UsageError(
              "usage",
              `${spec} has no attempt: it is ${inst.status}${inst.label ? ` (${inst.label})` : ""} and never ran`,
            );
          throw new UsageError(
            "usage",
            `--attempt must be between 1 and ${inst.attempts} for ${spec}, got ${JSON.stringify(flags.attempt)}`,
          );
        }
        const path = logPath(store, run, task, key, attempt);
        if (!existsSync(path))
          throw new UsageError("usage", `${spec} attempt ${attempt} has no log (${t.kind} tasks run in the engine and write none)`, {
            hint: `its output: switchyard show ${run} --task ${task}${key !== null ? ` --key ${key}` : ""}`,
          });
        let offset = 0;
        const drain = () => {
          const size = statSync(path).size;
          if (size <= offset) return;
          const fd = openSync(path, "r");
          try {
            const buf = Buffer.alloc(size - offset);
            readSync(fd, buf, 0, buf.length, offset);
            process.stdout.write(buf);
            offset = size;
          } finally {
            closeSync(fd);
          }
        };
        drain();
        if (!flags.follow) return;
        const running = () => {
          const now = store.instances(run, task).find((r) => r.key === key);
          return (
            now !== undefined &&
            now.attempts === attempt &&
            (now.status === "running" || now.status === "pending") &&
            store.run(run)?.status === "running"
          );
        };
        while (running()) {
          await new Promise((res) => setTimeout(res, POLL_MS));
          drain();
        }
        drain();
      } finally {
        store.close();
      }
    });
}
