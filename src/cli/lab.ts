// `switchyard lab new | list | harvest | calibrate` (H-1, H-2, H-4): make labs, list them, and read
// the agreement between a shadow model and the host out of a lab's pairs.jsonl. `lab compare` is in
// lab-compare.ts, `lab export` and `lab import` in lab-labels.ts.

import { writeFileSync } from "node:fs";
import { dirname, relative, resolve, sep } from "node:path";
import type { Command } from "commander";
import { CommandFailed, stateDir, UsageError, examples } from "./common.js";
import { locateState, prepareStateFolder } from "./state-discovery.js";
import { labsDir, listLabs, newLab } from "../lab/store.js";
import { newSharedLab } from "../lab/shared-labs.js";
import { fsStep, filtersOf, labFailure, LAB_STORE_HELP, pairsFileOf, withSharedLabs, type FilterFlags } from "./lab-common.js";
import { registerCompare } from "./lab-compare.js";
import { registerExport, registerImport } from "./lab-labels.js";
import { harvest, type HarvestReport, type KnownCalibration } from "../lab/harvest.js";
import { calibrate, DEFAULT_METHOD } from "../lab/calibrate.js";
import { CALIBRATION_METHODS } from "../decide/calibration-map.js";
import { loadMachineConfig } from "../decide/config.js";
import { appliedCalibrations, defaultCalibrationFile, readCalibrations } from "../lab/known-calibrations.js";
import { renderText, table } from "../lab/report-text.js";
import { renderHtml } from "../lab/report-html.js";
import { isOneOf } from "../shared/primitives.js";

function parseTarget(text: string): number {
  const t = Number(text);
  if (text.trim() === "" || !Number.isFinite(t) || t <= 0 || t > 1) {
    throw new UsageError("lab-bad-target", `--target must be a number in (0, 1], got '${text}'`, { hint: "for example --target 0.95" });
  }
  return t;
}

/** Adds `switchyard lab` and its subcommands: new, list, harvest, calibrate, compare, export, import. */
export function register(program: Command): void {
  const lab = program.command("lab").description("Shadow labs: record model-vs-host pairs and harvest their agreement");
  registerNew(lab);
  registerList(lab);
  registerHarvest(lab);
  registerCalibrate(lab);
  registerCompare(lab);
  registerExport(lab);
  registerImport(lab);
}

/** `lab new`: makes a lab (in the shared store when there is one) and makes it current. */
function registerNew(lab: Command): void {
  lab
    .command("new")
    .description("Make a new lab and make it current; shadow pairs go to the current lab")
    .addHelpText("after", examples([['switchyard lab new --note "jev-2 on gate.depth"']]))
    .option("--note <text>", "what this lab is for", "")
    .option("--state-dir <dir>", "state folder (default: $SWITCHYARD_HOME, else the nearest .switchyard/ here or above)")
    .option("--store <url>", LAB_STORE_HELP)
    .action((opts: { note: string; stateDir?: string; store?: string }) => {
      // Where the next run will put its state (a new ./.switchyard/ if none is found), so its pairs land in this lab.
      const dir = locateState(opts.stateDir, { forNewRun: true }).dir;
      prepareStateFolder(dir);
      const info = fsStep(`make a lab in ${labsDir(dir)}`, () =>
        withSharedLabs(opts.store, dir, (pg) => (pg ? newSharedLab(pg, opts.note) : newLab(dir, opts.note))),
      );
      process.stdout.write(`${info.id}\n`);
      process.stderr.write(`made lab ${info.id} in ${labsDir(dir)}; it is now current\n`);
    });
}

/** `lab list`: the labs, oldest first, as a table or JSON. */
function registerList(lab: Command): void {
  lab
    .command("list")
    .description("List the labs, oldest first; * marks the current one")
    .addHelpText("after", examples([["switchyard lab list"], ["switchyard lab list --json"]]))
    .option("--json", "machine-readable output")
    .option("--state-dir <dir>", "state folder (default: $SWITCHYARD_HOME, else the nearest .switchyard/ here or above)")
    .option("--store <url>", LAB_STORE_HELP)
    .action((opts: { json?: boolean; stateDir?: string; store?: string }) => {
      const dir = stateDir(opts.stateDir);
      withSharedLabs(opts.store, dir, () => undefined);
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
}

/** `lab harvest` (H-2): the agreement report of a lab's pairs, as text, JSON or HTML; `--check` fails on audit drift. */
function registerHarvest(lab: Command): void {
  lab
    .command("harvest")
    .description("Report agreement, calibration and coverage by threshold of a lab's shadow pairs")
    .addHelpText(
      "after",
      examples([
        ["switchyard lab harvest", "the current lab"],
        ["switchyard lab harvest --json | jq .types"],
        ["switchyard lab harvest --check", "exit 1 on audit drift (CI, cron)"],
      ]),
    )
    .argument("[lab]", "lab id (default: the current lab), or a path to a pairs.jsonl")
    .option("--json", "machine-readable output (shape in docs/lab.md)")
    .option("--html <file>", "also write a self-contained HTML report with the diagrams")
    .option("--target <fraction>", "agreement the recommended threshold must reach", "0.95")
    .option("--type <type>", "only this judgement type (repeatable)", (v: string, acc: string[]) => [...acc, v], [])
    .option(
      "--model <provider/model>",
      "only pairs of this model (repeatable): one candidate of a shadow of several",
      (v: string, acc: string[]) => [...acc, v],
      [],
    )
    .option("--run <id>", "only pairs of this run (repeatable)", (v: string, acc: string[]) => [...acc, v], [])
    .option("--since <when>", "only pairs since an ISO 8601 date or an age such as 7d")
    .option("--all", "count duplicate pairs (same type, state, host label and model) too")
    .option("--calibration <file>", "the calibration file to report on (default: calibration.json in the lab folder)")
    .option("--config <file>", "a machine config: the calibrations it applies are reported as applied, and audits compared with them")
    .option("--check", "exit 1 when an audited type's agreement has drifted below its shadow agreement")
    .option("--state-dir <dir>", "state folder (default: $SWITCHYARD_HOME, else the nearest .switchyard/ here or above)")
    .option("--store <url>", LAB_STORE_HELP)
    .action(
      async (
        labArg: string | undefined,
        opts: FilterFlags & {
          model: string[];
          json?: boolean;
          html?: string;
          target: string;
          calibration?: string;
          config?: string;
          check?: boolean;
          stateDir?: string;
          store?: string;
        },
      ) => {
        const target = parseTarget(opts.target);
        withSharedLabs(opts.store, stateDir(opts.stateDir), () => undefined);
        const { file, labId } = pairsFileOf(labArg, opts.stateDir);
        const calibrations = knownCalibrations(opts.calibration ?? defaultCalibrationFile(file), labId, opts.calibration !== undefined);
        // What the machine config applies wins over a file merely fitted for the lab.
        if (opts.config !== undefined) Object.assign(calibrations, appliedCalibrations(loadMachineConfig(opts.config)));
        let report: HarvestReport;
        try {
          report = await harvest(file, { target, lab: labId, calibrations, ...filtersOf(opts), models: opts.model });
        } catch (err) {
          labFailure(err);
        }
        for (const w of report.warnings) process.stderr.write(`warning: ${w}\n`);
        const htmlFile = opts.html;
        if (htmlFile) {
          const html = renderHtml(report);
          fsStep(`write ${htmlFile}`, () => writeFileSync(htmlFile, html));
          process.stderr.write(`wrote ${resolve(htmlFile)}\n`);
        }
        process.stdout.write(opts.json ? JSON.stringify(report, null, 2) + "\n" : renderText(report));
        if (!opts.json && report.overall.pairs === 0) {
          process.stderr.write("no pairs yet: run a playbook with a judgement type in shadow mode (docs/decisions.md, docs/lab.md)\n");
        }
        if (opts.check && report.drift.length > 0) {
          throw new CommandFailed("failed", `drift: audit agreement dropped beyond chance for ${report.drift.join(", ")}`);
        }
      },
    );
}

/** `lab calibrate` (D-33): fits a calibration map per judgement type and writes the calibration file. */
function registerCalibrate(lab: Command): void {
  lab
    .command("calibrate")
    .description("Fit, per judgement type, a map from the model's confidence to the chance of agreeing with the host")
    .addHelpText(
      "after",
      examples([
        ["switchyard lab calibrate", "the current lab, every type"],
        ["switchyard lab calibrate --type gate.depth --method platt -o cal.json"],
      ]),
    )
    .argument("[lab]", "lab id (default: the current lab), or a path to a pairs.jsonl")
    .option("--type <type>", "only this judgement type (repeatable)", (v: string, acc: string[]) => [...acc, v], [])
    .option("--method <method>", `isotonic, platt or temperature (default ${DEFAULT_METHOD})`, DEFAULT_METHOD)
    .option("--model <provider/model>", "the model to fit, when a type's pairs mix models")
    .option("--folds <k>", "cross-validation folds", "5")
    .option("--run <id>", "only pairs of this run (repeatable)", (v: string, acc: string[]) => [...acc, v], [])
    .option("--since <when>", "only pairs since an ISO 8601 date or an age such as 7d")
    .option("--all", "count duplicate pairs (same type, state, host label and model) too")
    .option("-o, --output <file>", "where to write the calibration file (default: calibration.json in the lab folder)")
    .option("--json", "print the calibration file on stdout as well")
    .option("--state-dir <dir>", "state folder (default: $SWITCHYARD_HOME, else the nearest .switchyard/ here or above)")
    .option("--store <url>", LAB_STORE_HELP)
    .action(async (labArg: string | undefined, opts: CalibrateFlags) => {
      if (!isOneOf(CALIBRATION_METHODS, opts.method)) {
        throw new UsageError("usage", `--method must be isotonic, platt or temperature, not '${opts.method}'`, {
          hint: "platt suits a few hundred pairs; isotonic needs more",
        });
      }
      const folds = Number(opts.folds);
      if (!Number.isInteger(folds) || folds < 2 || folds > 20)
        throw new UsageError("usage", `--folds must be an integer from 2 to 20, not '${opts.folds}'`);
      withSharedLabs(opts.store, stateDir(opts.stateDir), () => undefined);
      const { file, labId } = pairsFileOf(labArg, opts.stateDir);
      let result: Awaited<ReturnType<typeof calibrate>>;
      try {
        result = await calibrate(file, {
          ...filtersOf(opts),
          method: opts.method,
          folds,
          model: opts.model,
          lab: labId,
        });
      } catch (err) {
        labFailure(err);
      }
      for (const w of result.warnings) process.stderr.write(`warning: ${w}\n`);
      const rows = calibrationRows(result.outcomes);
      const fitted = result.outcomes.filter((o) => o.fitted).length;
      if (result.outcomes.length === 0)
        throw new CommandFailed(
          "failed",
          "no shadow pairs with a model answer to calibrate on (run a judgement type in shadow mode first)",
        );
      process.stdout.write(`calibration of ${labId ?? file} (held-out figures, ${folds}-fold cross-validation):\n`);
      process.stdout.write(table(rows, "  ", [0, 2, 3, 4, 5]).join("\n") + "\n");
      if (fitted === 0) throw new CommandFailed("failed", "no map was fitted, so no calibration file was written");
      const out = resolve(opts.output ?? defaultCalibrationFile(file));
      // Pairs in the calibration file's own folder are named relative to it, so the two move together.
      const near = relative(dirname(out), file);
      const named = near !== "" && !near.startsWith(".." + sep) && near !== ".." ? near : file;
      const text = JSON.stringify({ ...result.file, pairs_file: named }, null, 2) + "\n";
      fsStep(`write ${out}`, () => writeFileSync(out, text));
      if (opts.json) process.stdout.write(text);
      process.stderr.write(
        `wrote ${out}; name it in the machine config: "TYPE" = { mode = "PROVIDER/MODEL", calibration = "${out}", min_confidence = … } (lab harvest suggests the threshold)\n`,
      );
    });
}

/** The table `lab calibrate` prints: per type, its pairs, method, held-out ECE and Brier, and map id (or why it has none). */
function calibrationRows(outcomes: Awaited<ReturnType<typeof calibrate>>["outcomes"]): string[][] {
  const rows = [["type", "pairs", "method", "ECE before → after", "Brier before → after", "id"]];
  for (const o of outcomes) {
    if (o.fitted) {
      const c = o.calibration;
      rows.push([
        o.type,
        String(c.pairs.count),
        c.method,
        `${c.cv.ece_before.toFixed(3)} → ${c.cv.ece_after.toFixed(3)}`,
        `${c.cv.brier_before.toFixed(3)} → ${c.cv.brier_after.toFixed(3)}`,
        c.id,
      ]);
    } else rows.push([o.type, String(o.pairs), "–", `no map: ${o.reason}`, "", ""]);
  }
  return rows;
}

interface CalibrateFlags extends FilterFlags {
  method: string;
  model?: string;
  folds: string;
  output?: string;
  json?: boolean;
  stateDir?: string;
  store?: string;
}

/** The maps of a calibration file, by type; a missing default file means none. */
function knownCalibrations(file: string, labId: string | null, given: boolean): Record<string, KnownCalibration> {
  const known = readCalibrations(file, labId, given);
  if ("error" in known) throw new UsageError("usage", known.error, { hint: "write one with `switchyard lab calibrate`" });
  return known.calibrations;
}

function humanBytes(n: number): string {
  if (n < 1024) return `${n} B`;
  if (n < 1024 * 1024) return `${(n / 1024).toFixed(1)} KiB`;
  return `${(n / 1024 / 1024).toFixed(1)} MiB`;
}
