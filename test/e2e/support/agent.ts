// A scripted agent runner for the end-to-end tests (D-40), also the host (D-20). Run as
// `node dist/test/e2e/support/agent.js` by the shell script that stands in for it
// (test/e2e/support/agent.sh: it does the same for the common calls without a Node start-up, and
// hands this file the others), with:
//   E2E_LOG    a file: one line per invocation, appended — "host TASK[KEY]" for a host question,
//              "turn TASK[KEY] EFFORT" for an agent turn — so tests count what was asked of it
//   E2E_KEY_ENV (optional) the name of a provider key variable: if this process can see that
//              variable, it logs "KEY VISIBLE" (R-20: agents and the host never see provider keys)
//   E2E_HOST   (optional) a JSON file {TASK: {KEY: LABEL}}: the host's answers; without an entry
//              the host answers the first label listed in the prompt
// A host prompt (src/decide/providers/host.ts renderHostPrompt) is recognised by "exactly one
// label"; its first line names the task and key ("… (run R, task gate[T1]).") and its "## Labels"
// section lists the labels as "- label" or "- label: description".
// An agent turn writes RESULT.json with a verdict and two lines of evidence, and {} as its output.

import { appendFileSync, existsSync, readFileSync, writeFileSync } from "node:fs";

const prompt = readFileSync(0, "utf8");
const log = (line: string): void => {
  if (process.env.E2E_LOG) appendFileSync(process.env.E2E_LOG, line + "\n");
};

const keyEnv = process.env.E2E_KEY_ENV;
if (keyEnv && process.env[keyEnv] !== undefined) log(`KEY VISIBLE to ${process.env.SWITCHYARD_TASK ?? "the host"}`);

if (/exactly one label/i.test(prompt)) {
  const where = /task ([A-Za-z_][A-Za-z0-9_]*)(?:\[([^\]]*)\])?\)/.exec(prompt);
  const task = where?.[1] ?? "?";
  const key = where?.[2] ?? "";
  log(`host ${task}[${key}]`);
  const labels = [...prompt.slice(prompt.indexOf("## Labels")).matchAll(/^- ([A-Za-z_][A-Za-z0-9_]*)/gm)].map((m) => m[1]!);
  const file = process.env.E2E_HOST;
  const scripted = file && existsSync(file) ? (JSON.parse(readFileSync(file, "utf8")) as Record<string, Record<string, string>>) : {};
  process.stdout.write(`${scripted[task]?.[key] ?? labels[0] ?? "?"}\n`);
} else {
  log(`turn ${process.env.SWITCHYARD_TASK}[${process.env.SWITCHYARD_KEY ?? ""}] ${process.env.SWITCHYARD_EFFORT}`);
  writeFileSync(
    "RESULT.json",
    JSON.stringify({ ticket: process.env.SWITCHYARD_KEY, verdict: "affected", evidence: ["calls the vulnerable path", "reproduced"] }),
  );
  writeFileSync(process.env.SWITCHYARD_OUTPUT!, "{}");
}
