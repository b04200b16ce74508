// `switchyard lab export` and `lab import` (docs/lab.md): the elements to label out to a CSV or
// JSONL file for people, and their labels back in as `reviewed` pairs.

import { writeFileSync } from "node:fs";
import { resolve } from "node:path";
import type { Command } from "commander";
import { UsageError, examples, stateDir } from "./common.js";
import { filtersOf, fsStep, labFailure, LAB_STORE_HELP, pairsFileOf, withSharedLabs, type FilterFlags } from "./lab-common.js";
import { exportRows, formatRows, importLabels } from "../lab/labels.js";
import { itemAt } from "../shared/checked-index.js";

interface ExportFlags extends FilterFlags {
  disagreements?: boolean;
  output: string;
  format?: string;
  stateDir?: string;
  store?: string;
}

function formatOf(file: string, flag: string | undefined): "csv" | "jsonl" {
  const format = flag ?? (file.endsWith(".csv") ? "csv" : file.endsWith(".jsonl") ? "jsonl" : undefined);
  if (format === "csv" || format === "jsonl") return format;
  throw new UsageError("usage", `cannot tell the format of ${file}: name it .csv or .jsonl, or give --format csv|jsonl`);
}

/** Adds `lab export`. */
export function registerExport(lab: Command): void {
  lab
    .command("export")
    .description("Write the elements to label (question, state digest, host's and model's answers) as CSV or JSONL")
    .addHelpText("after", examples([["switchyard lab export --disagreements --type gate.depth -o to-label.csv"]]))
    .argument("[lab]", "lab id (default: the current lab), or a path to a pairs.jsonl")
    .requiredOption("-o, --output <file>", "the file to write (.csv or .jsonl)")
    .option("--disagreements", "only the elements where the model and the host disagree")
    .option("--format <format>", "csv or jsonl (default: from the file's name)")
    .option("--type <type>", "only this judgement type (repeatable)", (v: string, acc: string[]) => [...acc, v], [])
    .option("--run <id>", "only pairs of this run (repeatable)", (v: string, acc: string[]) => [...acc, v], [])
    .option("--since <when>", "only pairs since an ISO 8601 date or an age such as 7d")
    .option("--state-dir <dir>", "state folder (default: $SWITCHYARD_HOME, else the nearest .switchyard/ here or above)")
    .option("--store <url>", LAB_STORE_HELP)
    .action(async (labArg: string | undefined, opts: ExportFlags) => {
      const format = formatOf(opts.output, opts.format);
      withSharedLabs(opts.store, stateDir(opts.stateDir), () => undefined);
      const { file } = pairsFileOf(labArg, opts.stateDir);
      let result: Awaited<ReturnType<typeof exportRows>>;
      try {
        result = await exportRows(file, { ...filtersOf(opts), disagreements: opts.disagreements === true });
      } catch (err) {
        labFailure(err);
      }
      for (const w of result.warnings) process.stderr.write(`warning: ${w}\n`);
      fsStep(`write ${opts.output}`, () => writeFileSync(opts.output, formatRows(result.rows, format)));
      process.stderr.write(
        `wrote ${result.rows.length} elements to ${resolve(opts.output)}; fill in the label column (and by), then: switchyard lab import ${labArg ?? ""}${labArg ? " " : ""}${opts.output}\n`,
      );
    });
}

/** Adds `lab import`. */
export function registerImport(lab: Command): void {
  lab
    .command("import")
    .description("Read people's labels (a filled-in `lab export` file) back into the lab as reviewed pairs")
    .addHelpText(
      "after",
      examples([["switchyard lab import to-label.csv", "into the current lab"], ["switchyard lab import LAB labels.jsonl"]]),
    )
    .argument("<args...>", "[LAB] FILE: the lab (default: the current one) and the labelled file")
    .option("--state-dir <dir>", "state folder (default: $SWITCHYARD_HOME, else the nearest .switchyard/ here or above)")
    .option("--store <url>", LAB_STORE_HELP)
    .action(async (args: string[], opts: { stateDir?: string; store?: string }) => {
      if (args.length > 2)
        throw new UsageError("usage", "give at most a lab and one labels file", { hint: "switchyard lab import [LAB] FILE" });
      const labelsFile = itemAt(args, args.length - 1);
      withSharedLabs(opts.store, stateDir(opts.stateDir), () => undefined);
      const { file } = pairsFileOf(args.length === 2 ? args[0] : undefined, opts.stateDir);
      let result: Awaited<ReturnType<typeof importLabels>>;
      try {
        result = await importLabels(file, labelsFile);
      } catch (err) {
        labFailure(err);
      }
      for (const w of result.warnings) process.stderr.write(`warning: ${w}\n`);
      process.stdout.write(
        `imported ${result.imported} reviewed labels into ${file} (${result.unlabelled} rows without a label skipped)\n`,
      );
    });
}
