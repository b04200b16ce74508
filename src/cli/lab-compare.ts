// `switchyard lab compare` (docs/lab.md): model B against model A on the same elements of one
// judgement type, from one lab or two; `--max-drop X` makes it a CI gate for a model change.

import type { Command } from "commander";
import { CommandFailed, UsageError, examples } from "./common.js";
import { filtersOf, labFailure, LAB_STORE_HELP, pairsFileOf, withSharedLabs, type FilterFlags } from "./lab-common.js";
import { stateDir } from "./common.js";
import { compare, type CompareReport } from "../lab/compare.js";
import { table } from "../lab/report-text.js";
import { itemAt } from "../shared/checked-index.js";

interface CompareFlags extends Omit<FilterFlags, "type"> {
  /** --type is a required option: commander always gives it. */
  type: string;
  against?: string;
  threshold?: string;
  target: string;
  maxDrop?: string;
  json?: boolean;
  stateDir?: string;
  store?: string;
}

function fraction(flag: string, text: string, allowZero: boolean): number;
function fraction(flag: string, text: string | undefined, allowZero: boolean): number | undefined;
function fraction(flag: string, text: string | undefined, allowZero: boolean): number | undefined {
  if (text === undefined) return undefined;
  const x = Number(text);
  if (text.trim() === "" || !Number.isFinite(x) || x < 0 || x > 1 || (!allowZero && x === 0))
    throw new UsageError("usage", `${flag} must be a number ${allowZero ? "from 0" : "above 0 and"} to 1, got '${text}'`, {
      hint: `for example ${flag} 0.05`,
    });
  return x;
}

/** Which files and models the positional arguments and --against name. */
function sidesOf(args: string[], against: string | undefined, state: string | undefined) {
  const usage = () =>
    new UsageError("usage", "name two models of one lab (`lab compare [LAB] MODEL_A MODEL_B --type T`), or two labs with --against", {
      hint: "for example: switchyard lab compare --type gate.depth sys1/jev sys1/jev-2",
    });
  let labA: string | undefined;
  let models: [string | null, string | null] = [null, null];
  if (args.length === 3 || (args.length === 1 && against !== undefined)) labA = args[0];
  if (args.length >= 2) models = [itemAt(args, args.length - 2), itemAt(args, args.length - 1)];
  if (args.length > 3 || (args.length < 2 && against === undefined) || (args.length === 1 && against === undefined)) throw usage();
  const a = pairsFileOf(labA, state);
  const b = against === undefined ? a : pairsFileOf(against, state);
  return { a: { file: a.file, model: models[0] }, b: { file: b.file, model: models[1] } };
}

const pct = (x: number | null): string => (x === null ? "–" : `${(x * 100).toFixed(1)}%`);
const signed = (x: number): string => `${x >= 0 ? "+" : "−"}${Math.abs(x * 100).toFixed(1)}%`;
const ms = (x: number | null): string => (x === null ? "–" : `${Math.round(x)} ms`);

/** The comparison as text for a terminal. */
export function renderCompare(r: CompareReport): string {
  const at = r.threshold === null ? "no threshold" : `at ${r.threshold.toFixed(2)}`;
  const sameRun = r.same_run === 0 ? "" : r.same_run === r.paired ? ", each in one run" : `, ${r.same_run} of them in one run`;
  const out = [`compare ${r.type}: B ${r.b.model} against A ${r.a.model} on the ${r.paired} elements both answered${sameRun}`];
  const rows = [["", "model", "answered", "agreement (95% CI)", `${at}: decides`, "agreement", "mean latency", "p95 latency", "cost"]];
  for (const [name, m] of [
    ["A", r.a],
    ["B", r.b],
  ] as const)
    rows.push([
      name,
      m.model,
      String(m.answered),
      `${pct(m.agreement)} (${pct(m.wilson.lo)}–${pct(m.wilson.hi)})`,
      pct(m.at_threshold.coverage),
      pct(m.at_threshold.agreement),
      ms(m.cost.mean_latency_ms),
      ms(m.cost.p95_latency_ms),
      m.cost.mean_cost_usd === null ? "–" : `$${m.cost.mean_cost_usd.toFixed(6)}`,
    ]);
  out.push(...table(rows, "  ", [0, 1]));
  out.push(`  both right ${r.table.both} · only A ${r.table.only_a} · only B ${r.table.only_b} · neither ${r.table.neither}`);
  if (r.difference)
    out.push(
      `  difference B − A: ${signed(r.difference.d)} (${signed(r.difference.lo)} … ${signed(r.difference.hi)}), McNemar exact p = ${r.mcnemar_p.toPrecision(3)}`,
    );
  return out.join("\n") + "\n";
}

/** Adds `lab compare`. */
export function registerCompare(lab: Command): void {
  lab
    .command("compare")
    .description("Compare two models of one judgement type on the elements both answered, each against the host")
    .addHelpText(
      "after",
      examples([
        ["switchyard lab compare --type gate.depth sys1/jev sys1/jev-2", "two models in the current lab"],
        ["switchyard lab compare LAB_OLD --against LAB_NEW --type gate.depth --max-drop 0.02", "a CI gate for a model change"],
      ]),
    )
    .argument("[args...]", "[LAB] MODEL_A MODEL_B: the lab (default: the current one) and the two models (PROVIDER/MODEL)")
    .requiredOption("--type <type>", "the judgement type to compare")
    .option("--against <lab>", "take model B from this lab (a lab id or a pairs.jsonl); A from the first")
    .option("--threshold <t>", "the min_confidence both are measured at (default: the lowest at which A reaches --target)")
    .option("--target <fraction>", "agreement A must reach at the default threshold", "0.95")
    .option("--max-drop <x>", "exit 1 when B's agreement is below A's by more than x at 95 % (the interval's upper end is below −x)")
    .option("--run <id>", "only pairs of this run (repeatable)", (v: string, acc: string[]) => [...acc, v], [])
    .option("--since <when>", "only pairs since an ISO 8601 date or an age such as 7d")
    .option("--all", "count duplicate pairs (same type, state, host label and model) too")
    .option("--json", "machine-readable output (shape in docs/lab.md)")
    .option("--state-dir <dir>", "state folder (default: $SWITCHYARD_HOME, else the nearest .switchyard/ here or above)")
    .option("--store <url>", LAB_STORE_HELP)
    .action(async (args: string[], opts: CompareFlags) => {
      const target = fraction("--target", opts.target, false);
      const threshold = fraction("--threshold", opts.threshold, true);
      const maxDrop = fraction("--max-drop", opts.maxDrop, true);
      withSharedLabs(opts.store, stateDir(opts.stateDir), () => undefined);
      const sides = sidesOf(args, opts.against, opts.stateDir);
      const { types: _types, ...filters } = filtersOf({ ...opts, type: [] });
      let report: CompareReport;
      try {
        report = await compare({
          ...filters,
          type: opts.type,
          ...sides,
          target,
          ...(threshold !== undefined ? { threshold } : {}),
        });
      } catch (err) {
        labFailure(err);
      }
      for (const w of report.warnings) process.stderr.write(`warning: ${w}\n`);
      process.stdout.write(opts.json ? JSON.stringify(report, null, 2) + "\n" : renderCompare(report));
      if (maxDrop === undefined) return;
      if (report.difference === null) throw new CommandFailed("failed", "--max-drop: no element was answered by both models");
      const { hi } = report.difference;
      if (hi < -maxDrop - 1e-12)
        throw new CommandFailed(
          "failed",
          `B is worse than A by more than ${pct(maxDrop)} at 95 %: the interval of B − A ends at ${signed(hi)}, below −${pct(maxDrop)}`,
        );
      process.stderr.write(`--max-drop ${maxDrop}: holds (the interval of B − A ends at ${signed(hi)}, not below −${pct(maxDrop)})\n`);
    });
}
