// `switchyard config check [PACK]` (D-50): validates the machine config, checks every routed
// judgement type against the resolver (D-30), and with a PACK lists the mode each declared type
// will run in and warns about types the config routes that no playbook declares (a likely typo).
// Exit 2 for a config error, 1 when the pack does not compile, 0 otherwise (warnings included).

import { statSync } from "node:fs";
import type { Command } from "commander";
import { DiagnosticError, type Diagnostic } from "../lang/diagnostic.js";
import { declaredTypes, positionsOf, routingWarnings, sourceOf, type Source } from "./type-routing.js";
import { compilePath } from "../plan/index.js";
import { playbooksIn } from "../plan/pack.js";
import { locateConfig } from "./state-discovery.js";
import { loadMachineConfig, routeProblem } from "../decide/config.js";
import type { JudgementMode, MachineConfig } from "../decide/config-types.js";
import { formatMode, modeFor, modelsOf, parseModeOverrides } from "../decide/mode.js";
import type { KeyPositions } from "../decide/toml-positions.js";
import { EXIT_USAGE, fileSources, printDiagnostics, setExitCode, examples } from "./common.js";
import { exitForDiagnostics } from "./exit-codes.js";
import { agentPreflight } from "./agent-preflight.js";
import type { Plan } from "../plan/plan.js";

interface CheckOptions {
  config?: string;
  decide: string[];
  playbook?: string;
  /** The repository `worktree` agents would work in, as `run --repo`. */
  repo?: string;
  json?: boolean;
}

interface TypeRow {
  type: string;
  mode: string;
  source: Source;
  /** Playbooks declaring the type (empty: routed by the config but declared nowhere). */
  declared_by: string[];
}

interface CheckReport {
  ok: boolean;
  config: string | null;
  pack: string | null;
  playbooks: string[];
  types: TypeRow[];
  errors: Diagnostic[];
  warnings: Diagnostic[];
}

function collect(list: string, previous: string[]): string[] {
  return [...previous, list];
}

function diagnosticJson(d: Diagnostic): Record<string, unknown> {
  const out: Record<string, unknown> = { severity: d.severity, code: d.code, message: d.message };
  if (d.pos) Object.assign(out, { file: d.pos.file, line: d.pos.line, col: d.pos.col });
  if (d.hint) out.hint = d.hint;
  return out;
}

/** The pack's playbooks compiled: their plans and diagnostics. */
function compilePack(pack: string, playbook: string | undefined): { playbooks: string[]; plans: Plan[]; diagnostics: Diagnostic[] } {
  let names: Array<string | undefined> = [playbook];
  try {
    if (playbook === undefined && statSync(pack).isDirectory()) names = playbooksIn(pack);
  } catch {
    // compilePath reports a missing path with its own code.
  }
  if (names.length === 0) names = [undefined];
  const plans: Plan[] = [];
  const diagnostics: Diagnostic[] = [];
  for (const name of names) {
    const result = compilePath(pack, { playbook: name });
    diagnostics.push(...result.diagnostics);
    if (result.plan) plans.push(result.plan);
  }
  return { playbooks: plans.map((p) => p.playbook), plans, diagnostics };
}

/** Every routed type, and the default, must pass the resolver (D-30): a run would refuse them. */
function resolverProblems(config: MachineConfig, overrides: Record<string, JudgementMode>, where: KeyPositions, report: CheckReport): void {
  const routed: Array<[string | null, JudgementMode, Source]> = [
    [null, config.decisions.default, "[decisions] default"],
    ...Object.entries(config.decisions.types)
      .filter(([t]) => !Object.hasOwn(overrides, t))
      .map(([t, m]): [string, JudgementMode, Source] => [t, m, "[decisions.types]"]),
    ...Object.entries(overrides).map(([t, m]): [string, JudgementMode, Source] => [t, m, "--decide"]),
  ];
  for (const [type, mode, source] of routed) {
    const what = type === null ? "[decisions] default" : `judgement type "${type}" (${source})`;
    // Every model the mode routes to: each shadow candidate is checked on its own (H-6); an unset
    // key is said once per provider.
    const keyChecked = new Set<string>();
    for (const ref of modelsOf(mode)) {
      const problem = routeProblem(config, ref, true);
      if (problem) {
        const pos =
          source === "[decisions.types]"
            ? where.value(["decisions", "types", type ?? ""])
            : source === "[decisions] default"
              ? where.value(["decisions", "default"])
              : undefined;
        report.errors.push({
          severity: "error",
          code: problem.code,
          message: `D-30: ${what} is routed to ${formatMode(mode)}, but ${problem.message}`,
          pos,
          hint: problem.hint,
        });
        continue;
      }
      const keyEnv = config.providers[ref.provider]?.api_key_env;
      if (keyEnv !== undefined && !process.env[keyEnv] && !keyChecked.has(ref.provider)) {
        keyChecked.add(ref.provider);
        report.warnings.push({
          severity: "warning",
          code: "config-key-unset",
          message: `${what} is routed to ${formatMode(mode)}, but $${keyEnv}, where provider "${ref.provider}" reads its key, is not set here`,
          hint: `export ${keyEnv}=… before running; the key is never stored in the config (D-21)`,
        });
      }
    }
  }
}

/** With a PACK: each declared type's mode, the agent preflight, and the routing warnings. False when the pack does not compile. */
function checkPack(
  pack: string,
  opts: CheckOptions,
  config: MachineConfig,
  overrides: Record<string, JudgementMode>,
  where: KeyPositions,
  report: CheckReport,
): boolean {
  const compiled = compilePack(pack, opts.playbook);
  report.playbooks = compiled.playbooks;
  const compileErrors = compiled.diagnostics.filter((d) => d.severity === "error");
  if (compileErrors.length > 0) {
    report.errors.push(...compileErrors);
    return false;
  }
  const declared = declaredTypes(compiled.plans);
  const modeOf = (type: string) => formatMode(modeFor(type, config.decisions, overrides));
  for (const type of [...declared.keys()].sort())
    report.types.push({ type, mode: modeOf(type), source: sourceOf(type, config, overrides), declared_by: declared.get(type)! });
  // The run's own preflight of agent work, as errors and warnings of the check.
  const agents = agentPreflight(compiled.plans, config, {
    repo: opts.repo,
    modeOf: (type) => modeFor(type, config.decisions, overrides),
    budgetUsd: compiled.plans.find((p) => p.settings.budget_usd !== undefined)?.settings.budget_usd,
  });
  for (const message of agents.problems) {
    if (agents.local.includes(message))
      report.warnings.push({ severity: "warning", code: "agent-preflight", message: `${message} (a run here would refuse)` });
    else report.errors.push({ severity: "error", code: "agent-preflight", message });
  }
  for (const message of agents.warnings) report.warnings.push({ severity: "warning", code: "agent-preflight", message });
  const routed = [...new Set([...Object.keys(config.decisions.types), ...Object.keys(overrides)])];
  for (const type of routed.filter((t) => !declared.has(t)))
    report.types.push({ type, mode: modeOf(type), source: sourceOf(type, config, overrides), declared_by: [] });
  report.warnings.push(...routingWarnings(compiled.plans, config, overrides, where, `pack ${pack}`));
  return true;
}

function checkConfig(pack: string | undefined, opts: CheckOptions): { report: CheckReport; exit: number } {
  const report: CheckReport = { ok: true, config: null, pack: pack ?? null, playbooks: [], types: [], errors: [], warnings: [] };
  let config: MachineConfig;
  let overrides: Record<string, JudgementMode>;
  try {
    config = loadMachineConfig(locateConfig(opts.config));
    overrides = parseModeOverrides(opts.decide);
  } catch (err) {
    if (!(err instanceof DiagnosticError)) throw err;
    report.ok = false;
    report.errors = err.diagnostics;
    return { report, exit: EXIT_USAGE };
  }
  report.config = config.path ?? null;
  const where = positionsOf(config);
  resolverProblems(config, overrides, where, report);
  if (pack !== undefined && !checkPack(pack, opts, config, overrides, where, report)) {
    report.ok = false;
    return { report, exit: exitForDiagnostics(report.errors) };
  }
  report.ok = report.errors.length === 0;
  return { report, exit: report.ok ? 0 : EXIT_USAGE };
}

function printReport(report: CheckReport): void {
  const sources = fileSources();
  printDiagnostics([...report.errors, ...report.warnings], sources);
  if (!report.ok) return;
  const out: string[] = [];
  out.push(`config: ${report.config ?? "(no file; every default applies)"}`);
  if (report.pack !== null) {
    out.push(`pack: ${report.pack} (${report.playbooks.join(", ") || "no playbook"})`);
    if (report.types.length === 0) out.push("no model-decided question: nothing is routed");
    else {
      const w1 = Math.max(4, ...report.types.map((r) => r.type.length));
      const w2 = Math.max(4, ...report.types.map((r) => r.mode.length));
      out.push(`${"TYPE".padEnd(w1)}  ${"MODE".padEnd(w2)}  FROM`);
      for (const r of report.types)
        out.push(
          `${r.type.padEnd(w1)}  ${r.mode.padEnd(w2)}  ${r.source}${r.declared_by.length === 0 ? "  (declared by no playbook)" : ""}`,
        );
    }
  }
  out.push(report.warnings.length === 0 ? "ok" : `ok, with ${report.warnings.length} warning${report.warnings.length === 1 ? "" : "s"}`);
  process.stdout.write(out.join("\n") + "\n");
}

/** Adds `switchyard config` and its subcommands, such as `config check`, which checks the machine config (against a pack, when given). */
export function register(program: Command): void {
  const config = program.command("config").description("The machine config: providers, agent runners and judgement modes");
  config
    .command("check [pack]")
    .description(
      "Validate the machine config that run would read (--config FILE, else $SWITCHYARD_CONFIG, .switchyard/config.toml here or above, else ~/.config/switchyard/config.toml); with PACK, show each judgement type's mode and warn about routed types no playbook declares",
    )
    .option(
      "--config <file>",
      "machine config file (default: $SWITCHYARD_CONFIG, else .switchyard/config.toml here or above, else $XDG_CONFIG_HOME/switchyard/config.toml)",
    )
    .option("--decide <type=mode>", "override a judgement type's mode, as `run` would (repeatable)", collect, [])
    .option("--playbook <name>", "check only this playbook of the pack")
    .option("--repo <path>", "the git repository of worktree agents, as `run --repo` (default: the one containing the working directory)")
    .addHelpText(
      "after",
      examples([
        ["switchyard config check"],
        ["switchyard config check examples/cve-triage", "each judgement type's mode"],
        ["SWITCHYARD_CONFIG=ci.toml switchyard config check --json"],
      ]),
    )
    .option("--json", "machine-readable output")
    .action((pack: string | undefined, opts: CheckOptions) => {
      const { report, exit } = checkConfig(pack, opts);
      if (opts.json) {
        const json = { ...report, errors: report.errors.map(diagnosticJson), warnings: report.warnings.map(diagnosticJson) };
        process.stdout.write(JSON.stringify(json, null, 2) + "\n");
      } else printReport(report);
      setExitCode(exit);
    });
}
