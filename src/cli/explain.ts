// `switchyard explain [CODE]`: what an error code means and how to fix it; without a code, the
// list. The same texts make docs/errors.md (`--markdown`).

import type { Command } from "commander";
import { nearestName } from "../lang/diagnostic.js";
import { UsageError } from "./common.js";
import { allCodes, findCode, renderErrorsDoc } from "./codes.js";

export function register(program: Command): void {
  program
    .command("explain")
    .description("explain an error code: what it means and how to fix it")
    .argument("[code]", "the code in error[CODE]; omit to list every code")
    .option("--json", "print JSON")
    .option("--markdown", "print every entry as Markdown (docs/errors.md)")
    .action((code: string | undefined, opts: { json?: boolean; markdown?: boolean }) => {
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
      if (!entry) {
        const near = nearestName(wanted, allCodes().map((e) => e.code));
        throw new UsageError(`no error code '${wanted}'${near ? ` (did you mean '${near}'?)` : ""}`, "`switchyard explain` lists every code");
      }
      if (opts.json) {
        process.stdout.write(JSON.stringify(entry, null, 2) + "\n");
        return;
      }
      process.stdout.write(`error[${entry.code}]: ${entry.summary}${entry.rule ? ` (SPEC ${entry.rule})` : ""}\n\n${wrap(entry.explain, 96)}\n`);
    });
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
