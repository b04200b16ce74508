// `switchyard init [DIR]`: scaffolds a new pack whose playbook compiles and runs as it is, with
// no machine config, and whose comments show where agent turns and model decisions go; with an
// empty cassette, so `switchyard test` tests it offline from the start.

import type { Command } from "commander";
import { existsSync, mkdirSync, readdirSync, writeFileSync } from "node:fs";
import { basename, join, relative, resolve } from "node:path";
import { UsageError, examples } from "./common.js";
import { PACK_FILES } from "./init-template.js";

/** Adds `switchyard init`: scaffolds a pack whose commented playbook compiles and runs. */
export function register(program: Command): void {
  program
    .command("init")
    .description("scaffold a new pack: a commented playbook that compiles and runs")
    .addHelpText("after", examples([["switchyard init triage"], ["switchyard check triage && switchyard run triage"]]))
    .argument("[dir]", "the folder to create or fill (must be empty)", ".")
    .option("--force", "write into a folder that is not empty (existing files are never overwritten)")
    .action((dir: string, opts: { force?: boolean }) => {
      const root = resolve(dir);
      if (existsSync(root) && readdirSync(root).length > 0 && !opts.force) {
        throw new UsageError("usage", `${dir} is not empty`, {
          hint: "choose a new folder, or pass --force to add the pack's files beside what is there",
        });
      }
      const name =
        basename(root)
          .replace(/[^A-Za-z0-9_]/g, "_")
          .replace(/^([0-9])/, "_$1") || "pack";
      const written: string[] = [];
      for (const [path, text] of Object.entries(PACK_FILES)) {
        const target = join(root, path);
        if (existsSync(target)) continue;
        mkdirSync(join(target, ".."), { recursive: true });
        writeFileSync(target, text.replaceAll("{{name}}", name));
        written.push(relative(process.cwd(), target) || path);
      }
      const shown = relative(process.cwd(), root) || ".";
      process.stdout.write(`created ${written.length} files in ${shown}:\n${written.map((w) => `  ${w}\n`).join("")}`);
      process.stdout.write(
        `\nnext:\n  switchyard check ${shown}\n  switchyard run ${shown}\n  switchyard test ${shown} --cassette ${join(shown, "cassette.jsonl")}   # offline: agent turns and decisions from the cassette\n`,
      );
    });
}
