// The host path reads a preset tool's own report before its exit status, as an agent
// turn does: Claude Code's recorded turn-limit result (exit 1) and Gemini CLI's recorded error on
// stderr (exit 53) fail the decision with the tool's name, its message and its exit status —
// not "exited with status 1" and an empty stderr. The fakes replay test/fixtures/real-agents/.

import { test } from "node:test";
import assert from "node:assert/strict";
import { createHostProvider } from "../../src/decide/providers/index.js";
import { DecisionFailure } from "../../src/run/kinds/judge.js";
import { parseMachineConfig } from "../../src/decide/config.js";
import { choiceQ, providerRequest } from "../support/decide-fixtures.js";
import { failure } from "../support/assertions.js";
import { fakeAgentBin } from "../support/fake-agent-bin.js";
import { withTempDir } from "../support/setup.js";

let dir: string;
withTempDir("sy-host-reports-", (d) => (dir = d));
const team = choiceQ("team", { billing: "Payments", technical: "Bugs" });

const cases = [
  {
    preset: "claude-code",
    message:
      "(Claude Code) for question 'team' (run r1, task triage[k1]) reported an error and exited with status 1: error_max_turns: Reached maximum number of turns (10)",
  },
  {
    preset: "gemini",
    message:
      "(Gemini CLI) for question 'team' (run r1, task triage[k1]) reported an error and exited with status 53: FatalTurnLimitedError: Reached max session turns for this session.",
  },
];

for (const c of cases) {
  test(`D-20 host ${c.preset}: the tool's own error report, read before its exit status, names the tool, its message and the status`, async () => {
    const PATH = process.env.PATH;
    process.env.PATH = `${fakeAgentBin(dir)}:${PATH}`;
    try {
      const runner = parseMachineConfig(`[agents.h]\npreset = "${c.preset}"\nenv = { FAKE_AGENT_MODE = "error" }\n`, "/tmp/c.toml").agents
        .h!;
      const e = await failure(createHostProvider({ runner }).ask(providerRequest([team])));
      assert.ok(e instanceof DecisionFailure);
      assert.equal(e.code, "host-failed");
      assert.ok(e.message.includes(c.message), e.message);
    } finally {
      process.env.PATH = PATH;
    }
  });
}
