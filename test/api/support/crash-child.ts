// A program using the library API, killed with SIGKILL by test/api/crash.test.ts: it starts a run
// whose runner and provider, written in TypeScript, append each call to a log file (one line per
// call, written before the call returns), and whose runner for key "b" never returns.

import { appendFileSync } from "node:fs";
import { openState, type AgentFunction, type DecisionProvider } from "../../../src/api/index.js";

const [pack, stateDir, config, log] = process.argv.slice(2) as [string, string, string, string];

const coder: AgentFunction = async (turn) => {
  appendFileSync(log, `turn ${turn.key}\n`);
  if (turn.key === "b") await new Promise(() => undefined); // until the process is killed
  return { output: { text: `did ${turn.key}` } };
};

const mine: DecisionProvider = {
  async decide(request) {
    appendFileSync(log, `asked ${request.key}\n`);
    return { answers: Object.fromEntries(request.questions.map((q) => [q.id, { probabilities: { yes: 0.95, no: 0.05 } }])) };
  },
};

const state = openState({ stateDir });
const run = await state.run(pack, { config, concurrency: 2, decisions: { default: "mine/m1" }, providers: { mine }, runners: { coder } });
await run.done;
