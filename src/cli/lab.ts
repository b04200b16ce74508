// `switchyard lab new | list | harvest` (H-1, H-2): make labs, list them, and read the agreement
// between a shadow model and the host out of a lab's pairs.jsonl.

import { existsSync, writeFileSync } from "node:fs";
import { resolve } from "node:path";
import type { Command } from "commander";
import { CommandFailed, stateDir, UsageError, examples } from "./common.js";
import { locateState, prepareStateFolder } from "./state-discovery.js";
import { labsDir, LabError, listLabs, newLab, pairsPath, resolveLab, type LabInfo } from "../lab/store.js";
import { harvest, type HarvestReport } from "../lab/harvest.js";
import { PairsFileError } from "../lab/pairs-reader.js";
import { renderText, table } from "../lab/report-text.js";
import { renderHtml } from "../lab/report-html.js";

function labFailure(err: unknown): never {
  if (err instanceof LabError) {
    // Nothing to read where the person pointed (no lab, an unknown lab): like `show` with no runs, exit 2.
    if (err.code === "lab-unknown" || err.code === "lab-none") throw new UsageError(err.message, err.hint, err.code);
    throw new CommandFailed(`error[${err.code}]: ${err.message}${err.hint ? `\nhelp: ${err.hint}` : ""}`);
  }
  if (err instanceof PairsFileError) {
    throw new CommandFailed(
      `${err.file}:${err.line}: error[${err.code}]: ${err.message}\nhelp: fix or delete line ${err.line} (e.g. sed -i '${err.line}d' FILE) and harvest again`,
    );
  }
  if (isFsError(err)) throw new CommandFailed(`cannot read the pairs: ${err.message}`);
  throw err;
}

/** A file-system failure (permissions, a missing folder, a full disk): the person's to fix. */
function isFsError(err: unknown): err is NodeJS.ErrnoException {
  return err instanceof Error && typeof (err as NodeJS.ErrnoException).code === "string" && typeof (err as NodeJS.ErrnoException).syscall === "string";
}

/** Runs a step, turning file-system errors into plain messages instead of stack traces. */
function fsStep<T>(what: string, step: () => T): T {
  try {
    return step();
  } catch (err) {
    if (isFsError(err)) throw new CommandFailed(`cannot ${what}: ${err.message}`);
    throw err;
  }
}

function parseTarget(text: string): number {
  const t = Number(text);
  if (text.trim() === "" || !Number.isFinite(t) || t <= 0 || t > 1) {
    throw new UsageError(`--target must be a number in (0, 1], got '${text}'`, "for example --target 0.95", "lab-bad-target");
  }
  return t;
}

export function register(program: Command): void {
  const lab = program.command("lab").description("Shadow labs: record model-vs-host pairs and harvest their agreement");

  lab
    .command("new")
    .description("Make a new lab and make it current; shadow pairs go to the current lab")
    .addHelpText("after", examples([["switchyard lab new --note \"jev-2 on gate.depth\""]]))
    .option("--note <text>", "what this lab is for", "")
    .option("--state-dir <dir>", "state folder (default: $SWITCHYARD_HOME, else the nearest .switchyard/ here or above)")
    .action((opts: { note: string; stateDir?: string }) => {
      // Where the next run will put its state (a new ./.switchyard/ if none is found), so its pairs land in this lab.
      const dir = locateState(opts.stateDir, { forNewRun: true }).dir;
      prepareStateFolder(dir);
      const info = fsStep(`make a lab in ${labsDir(dir)}`, () => newLab(dir, opts.note));
      process.stdout.write(`${info.id}\n`);
      process.stderr.write(`made lab ${info.id} in ${labsDir(dir)}; it is now current\n`);
    });

  lab
    .command("list")
    .description("List the labs, oldest first; * marks the current one")
    .addHelpText("after", examples([["switchyard lab list"], ["switchyard lab list --json"]]))
    .option("--json", "machine-readable output")
    .option("--state-dir <dir>", "state folder (default: $SWITCHYARD_HOME, else the nearest .switchyard/ here or above)")
    .action((opts: { json?: boolean; stateDir?: string }) => {
      const dir = stateDir(opts.stateDir);
      const labs = listLabs(dir);
      if (opts.json) {
        process.stdout.write(
          JSON.stringify(
            labs.map((l) => ({ id: l.id, created: l.created, note: l.note, current: l.current, dir: l.dir, pairs_bytes: l.pairs_bytes })),
            null,
            2,
          ) + "\n",
        );
        return;
      }
      if (labs.length === 0) {
        process.stdout.write(`no labs in ${labsDir(dir)} — make one with \`switchyard lab new --note TEXT\`\n`);
        return;
      }
      const rows = [["", "lab", "created", "pairs.jsonl", "note"]];
      for (const l of labs) rows.push([l.current ? "*" : "", l.id, l.created, humanBytes(l.pairs_bytes), l.note]);
      process.stdout.write(table(rows, "", [0, 1, 2, 4]).join("\n") + "\n");
    });

  lab
    .command("harvest")
    .description("Report agreement, calibration and coverage by threshold of a lab's shadow pairs")
    .addHelpText("after", examples([["switchyard lab harvest", "the current lab"], ["switchyard lab harvest --json | jq .types"]]))
    .argument("[lab]", "lab id (default: the current lab), or a path to a pairs.jsonl")
    .option("--json", "machine-readable output (shape in docs/lab.md)")
    .option("--html <file>", "also write a self-contained HTML report with the diagrams")
    .option("--target <fraction>", "agreement the recommended threshold must reach", "0.95")
    .option("--state-dir <dir>", "state folder (default: $SWITCHYARD_HOME, else the nearest .switchyard/ here or above)")
    .action(async (labArg: string | undefined, opts: { json?: boolean; html?: string; target: string; stateDir?: string }) => {
      const target = parseTarget(opts.target);
      let file: string;
      let labId: string | null;
      if (labArg !== undefined && (labArg.endsWith(".jsonl") || labArg.includes("/"))) {
        // A path to a pairs file (a copy, or one from another machine) rather than a lab id.
        file = resolve(labArg);
        labId = null;
        if (!existsSync(file)) throw new UsageError(`no pairs file ${file}`, "name a lab id (`switchyard lab list`) or an existing pairs.jsonl");
      } else {
        const dir = stateDir(opts.stateDir);
        let info: LabInfo;
        try {
          info = resolveLab(dir, labArg);
        } catch (err) {
          labFailure(err);
        }
        file = pairsPath(dir, info.id);
        labId = info.id;
        if (!existsSync(file)) throw new CommandFailed(`lab ${info.id} has no pairs.jsonl (${file}) [lab-pairs-missing]`);
      }
      let report: HarvestReport;
      try {
        report = await harvest(file, { target, lab: labId });
      } catch (err) {
        labFailure(err);
      }
      for (const w of report.warnings) process.stderr.write(`warning: ${w}\n`);
      if (opts.html) {
        const html = renderHtml(report);
        fsStep(`write ${opts.html}`, () => writeFileSync(opts.html as string, html));
        process.stderr.write(`wrote ${resolve(opts.html)}\n`);
      }
      process.stdout.write(opts.json ? JSON.stringify(report, null, 2) + "\n" : renderText(report));
      if (!opts.json && report.overall.pairs === 0) {
        process.stderr.write("no pairs yet: run a playbook with a judgement type in shadow mode (docs/decisions.md, docs/lab.md)\n");
      }
    });
}

function humanBytes(n: number): string {
  if (n < 1024) return `${n} B`;
  if (n < 1024 * 1024) return `${(n / 1024).toFixed(1)} KiB`;
  return `${(n / 1024 / 1024).toFixed(1)} MiB`;
}
