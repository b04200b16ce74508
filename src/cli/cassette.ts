// `switchyard cassette RUN [-o FILE]`: a recorded run's agent turns and model decisions
// as a cassette for `switchyard test` (docs/testing-playbooks.md). Nothing is run or asked.

import type { Command } from "commander";
import { writeFileSync } from "node:fs";
import { cassetteFromRun, cassetteText, type Cassette } from "../run/cassette/index.js";
import { examples } from "./common.js";
import { findRun, noRuns, openForReading } from "./run-lookup.js";
import { STORE_HELP } from "./store-option.js";

/** A size for people: bytes, kB or MB. */
export function sizeText(bytes: number): string {
  if (bytes < 1000) return `${bytes} B`;
  if (bytes < 1_000_000) return `${(bytes / 1000).toFixed(1)} kB`;
  return `${(bytes / 1_000_000).toFixed(1)} MB`;
}

/** One line: how many turns and decisions, and the size. */
export function cassetteSummary(c: Cassette, bytes: number): string {
  const agents = c.entries.filter((e) => e.kind === "agent").length;
  const decisions = c.entries.length - agents;
  return `${agents} agent turn${agents === 1 ? "" : "s"}, ${decisions} decision${decisions === 1 ? "" : "s"}, ${sizeText(bytes)}`;
}

/** Adds `switchyard cassette`: writes a recorded run's agent turns and model decisions as a cassette file. */
export function register(program: Command): void {
  program
    .command("cassette")
    .description("write a cassette of a recorded run's agent turns and decisions, for `switchyard test`")
    .argument("[run]", "the run id, a unique prefix, or latest (default: the latest run)")
    .option("-o, --output <file>", "write the cassette to this file (default: standard output)")
    .option("--state-dir <dir>", "the state folder (default: $SWITCHYARD_HOME, else the nearest .switchyard/ here or above)")
    .option("--store <spec>", STORE_HELP)
    .addHelpText(
      "after",
      examples([
        ["switchyard cassette latest -o examples/cve-triage/cassette.jsonl", "record once, commit the file"],
        ["switchyard test examples/cve-triage --cassette examples/cve-triage/cassette.jsonl", "then test offline"],
      ]),
    )
    .action((id: string | undefined, flags: { output?: string; stateDir?: string; store?: string }) => {
      const store = openForReading(flags.stateDir, flags.store);
      if (!store) throw noRuns(flags.stateDir);
      try {
        const run = findRun(store, id);
        const cassette = cassetteFromRun(store, run);
        const text = cassetteText(cassette);
        const bytes = Buffer.byteLength(text);
        if (flags.output === undefined) {
          process.stdout.write(text);
          process.stderr.write(`cassette of run ${run}: ${cassetteSummary(cassette, bytes)}\n`);
        } else {
          writeFileSync(flags.output, text);
          process.stdout.write(`wrote ${flags.output} from run ${run}: ${cassetteSummary(cassette, bytes)}\n`);
        }
      } finally {
        store.close();
      }
    });
}
