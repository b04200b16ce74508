// The end-to-end tests' scripted agent and host is a shell script (test/e2e/support/agent.sh) that
// answers the common calls itself and hands every other call to agent.ts. A call the shell answers
// is made of both, on the same prompt, environment, working folder and scripted answers: the
// shell's stdout, stderr, exit status, files and log are agent.ts's, byte for byte, with Node
// unable to start for the shell (NODE_OPTIONS requires a file that does not exist). A call the
// shell must hand over is made of a shell agent whose "agent.ts" is a stand-in that records how it
// was started: it must get the call's argv and the prompt's very bytes, with nothing done before.

import { test } from "node:test";
import assert from "node:assert/strict";
import { spawnSync } from "node:child_process";
import { mkdirSync, rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { renderHostPrompt } from "../../src/decide/providers/host.js";
import { TempDir } from "../run/helpers.js";
import { choiceQ, providerRequest } from "../support/decide-fixtures.js";
import { quoted } from "../support/fake-agent-sh.js";
import { answerOf, files, handedOver, NO_NODE, standIn } from "../support/shell-fakes.js";
import { NODE_AGENT, scriptedAgent } from "./support/agent-sh.js";

/** A host prompt as the engine renders it, for TASK[KEY] (KEY null: a task without a key). */
const hostPrompt = (task: string, key: string | null, options: Record<string, string> = { p1: "golang.org/x/net", none: "" }) =>
  renderHostPrompt(
    choiceQ("package", options),
    providerRequest([], { key, ticket: "flaw in ticket" }, { context: { run: "r1", task, key } }),
  );

interface Case {
  name: string;
  prompt: string;
  env?: Record<string, string | undefined>;
  /** E2E_HOST's contents (a folder for "/") */
  host?: string;
  /** hand it over (else it answers itself); also compared with agent.ts */
  handed?: boolean;
  compare?: boolean;
}

const TURN = { SWITCHYARD_TASK: "deep", SWITCHYARD_KEY: "T1", SWITCHYARD_EFFORT: "high", SWITCHYARD_OUTPUT: "out/output.json" };

const CASES: Case[] = [
  // Host questions.
  { name: "host: the first label, no scripted answers", prompt: hostPrompt("match", "T1") },
  {
    name: "host: the scripted answer",
    prompt: hostPrompt("match", "T3"),
    host: JSON.stringify({ match: { T3: "p2" }, gate: { T1: "quick" } }),
  },
  {
    name: "host: the task scripted, not the key",
    prompt: hostPrompt("gate", "T9"),
    host: JSON.stringify({ gate: { T1: "quick", T2: "deep" } }),
  },
  { name: "host: no scripted answers at all", prompt: hostPrompt("gate", "T1"), host: "{}" },
  {
    name: "host: a later name wins, as in JSON.parse; an empty label",
    prompt: hostPrompt("gate", "T1"),
    host: '{"gate":{"T1":"quick","T1":"deep"},"match":{},"gate":{"T2":"x"},"judge":{"T1":""}}',
  },
  { name: "host: an empty scripted label", prompt: hostPrompt("judge", "T1"), host: '{"judge":{"T1":""}}' },
  { name: "host: a task without a key", prompt: hostPrompt("gate", null), host: JSON.stringify({ gate: { "": "x", T1: "y" } }) },
  { name: "host: E2E_HOST names no file", prompt: hostPrompt("gate", "T1"), env: { E2E_HOST: "missing.json" } },
  {
    name: "host: the first text that reads as TASK[KEY]) wins",
    prompt:
      "Reply with Exactly One Label.\nsubtask 9x) task a b) task c[d] ) task [e]) task f[g](\ntask h[i]) task j)\n" +
      "see ## Labels- fake\n## Labels\n-x\n- 9bad\n- good_1: yes\n- other\n",
  },
  { name: "host: no label line", prompt: "EXACTLY ONE LABEL (task t[k]).\n## Labels\n\n-none\n" },
  {
    name: "host: E2E_KEY_ENV names a variable it can see",
    prompt: hostPrompt("gate", "T1"),
    env: { E2E_KEY_ENV: "SY_SECRET", SY_SECRET: "sk" },
  },
  { name: "host: E2E_KEY_ENV names one it cannot see", prompt: hostPrompt("gate", "T1"), env: { E2E_KEY_ENV: "SY_SECRET" } },
  { name: "host: no E2E_LOG", prompt: hostPrompt("gate", "T1"), env: { E2E_LOG: undefined } },
  // Agent turns.
  { name: "turn", prompt: "Look at ticket T1.\n", env: TURN },
  { name: "turn: E2E_KEY_ENV names a variable it can see", prompt: "", env: { ...TURN, E2E_KEY_ENV: "SY_SECRET", SY_SECRET: "" } },
  { name: "turn: no key, task or effort", prompt: "x", env: { SWITCHYARD_OUTPUT: "output.json" } },
  { name: "turn: a key to escape", prompt: "x", env: { ...TURN, SWITCHYARD_KEY: 'a "b" \\c' } },

  // Handed over: what the shell cannot be sure to do alike.
  { name: "a prompt beyond ASCII", prompt: "Café: answer with exactly one label (task t[k]).\n## Labels\n- a\n", handed: true },
  { name: "a NUL byte", prompt: `${hostPrompt("gate", "T1")}\u0000`, handed: true, compare: true },
  { name: "a carriage return", prompt: hostPrompt("gate", "T1").replace("\n", "\r\n"), handed: true },
  { name: "host: no TASK[KEY])", prompt: "Answer with exactly one label.\n## Labels\n- a\n", handed: true },
  { name: "host: no ## Labels", prompt: "Answer with exactly one label (task t[k]).\n- a\n", handed: true },
  { name: "host: a task JSON.parse's object inherits", prompt: hostPrompt("constructor", "T1"), handed: true },
  { name: "host: a key it inherits", prompt: hostPrompt("gate", "toString"), handed: true },
  { name: "host: E2E_HOST not JSON (agent.ts fails)", prompt: hostPrompt("gate", "T1"), host: "{gate", handed: true, compare: true },
  { name: "host: E2E_HOST not an object", prompt: hostPrompt("gate", "T1"), host: "[]", handed: true },
  {
    name: "host: E2E_HOST with spaces",
    prompt: hostPrompt("gate", "T1"),
    host: JSON.stringify({ gate: { T1: "quick" } }, null, 1),
    handed: true,
  },
  { name: "host: E2E_HOST with an escape", prompt: hostPrompt("gate", "T1"), host: '{"gate":{"T1":"a\\"b"}}', handed: true },
  { name: "host: E2E_HOST with a number", prompt: hostPrompt("gate", "T1"), host: '{"gate":{"T1":1}}', handed: true },
  { name: "host: E2E_HOST a folder", prompt: hostPrompt("gate", "T1"), host: "/", handed: true },
  { name: "host: E2E_KEY_ENV not an upper-case name", prompt: hostPrompt("gate", "T1"), env: { E2E_KEY_ENV: "constructor" }, handed: true },
  {
    name: "turn: KEY VISIBLE to a task beyond ASCII",
    prompt: "",
    env: { ...TURN, SWITCHYARD_TASK: "tâche", E2E_KEY_ENV: "HOME" },
    handed: true,
  },
  { name: "turn: no SWITCHYARD_OUTPUT (agent.ts fails)", prompt: "", env: { ...TURN, SWITCHYARD_OUTPUT: undefined }, handed: true },
  {
    name: "turn: SWITCHYARD_OUTPUT in a folder that is not there",
    prompt: "",
    env: { ...TURN, SWITCHYARD_OUTPUT: "nowhere/o.json" },
    handed: true,
  },
  {
    name: "turn: SWITCHYARD_OUTPUT under RESULT.json, a file it writes",
    prompt: "",
    env: { ...TURN, SWITCHYARD_OUTPUT: "RESULT.json/x" },
    handed: true,
  },
  { name: "turn: a key beyond ASCII", prompt: "", env: { ...TURN, SWITCHYARD_KEY: "clé" }, handed: true },
  { name: "E2E_LOG in a folder that is not there", prompt: "", env: { ...TURN, E2E_LOG: "/nonexistent/agent.log" }, handed: true },
];

test("the shell scripted agent answers as agent.ts does, and hands it every other call as it came", () => {
  const dir = new TempDir("sy-agent-sh-");
  try {
    const node = join(dir.path, "node");
    const sh = join(dir.path, "sh");
    const stood = join(dir.path, "stood");
    for (const d of [node, sh, stood]) mkdirSync(d);
    writeFileSync(join(node, "agent.sh"), `#!/bin/sh\nexec ${NODE_AGENT.map(quoted).join(" ")} "$@"\n`, { mode: 0o755 });
    scriptedAgent(sh);
    // A stand-in for agent.ts: it records its argv and its stdin.
    scriptedAgent(stood, ["/bin/sh", standIn(join(dir.path, "stand-in.sh")), "one", "two words"]);
    const clean = Object.fromEntries(Object.entries(process.env).filter(([k]) => !/^(E2E_|SWITCHYARD_|NODE_OPTIONS$)/.test(k)));
    const ws = join(dir.path, "ws");
    const log = join(dir.path, "agent.log");
    const handed = join(dir.path, "handed");

    const call = (bin: string, c: Case, env: Record<string, string | undefined> = {}) => {
      for (const p of [ws, log, `${handed}.argv`, `${handed}.stdin`, `${handed}.env`]) rmSync(p, { recursive: true, force: true });
      mkdirSync(join(ws, "out"), { recursive: true });
      if (c.host === "/") mkdirSync(join(ws, "host.json"));
      else if (c.host !== undefined) writeFileSync(join(ws, "host.json"), c.host);
      const before = files(ws);
      const r = spawnSync(join(bin, "agent.sh"), [], {
        cwd: ws,
        env: { ...clean, E2E_LOG: log, E2E_HOST: join(ws, "host.json"), ...c.env, ...env },
        input: Buffer.from(c.prompt),
        encoding: "latin1",
      });
      return { answer: answerOf(r, ws, log), before };
    };

    for (const c of CASES) {
      if (!c.handed) {
        const byNode = call(node, c).answer;
        assert.deepEqual(call(sh, c, NO_NODE).answer, byNode, `${c.name}: the shell agent answers as agent.ts`);
        assert.equal(byNode.status, 0, `${c.name}: ${byNode.stderr}`);
        continue;
      }
      const { answer, before } = call(stood, c, { HANDED: handed });
      assert.equal(answer.status, 0, `${c.name}: handed over\n${answer.stderr}`);
      const got = handedOver(handed);
      assert.deepEqual(got.argv, ["one", "two words"], `${c.name}: the argv`);
      assert.deepEqual(got.stdin, Buffer.from(c.prompt), `${c.name}: the prompt's bytes`);
      assert.deepEqual(answer.files, before, `${c.name}: no file written`);
      assert.ok(!answer.log, `${c.name}: no log line`);
      if (c.compare) assert.deepEqual(call(sh, c).answer, call(node, c).answer, `${c.name}: agent.ts's answer`);
    }

    // What the tests read off it, known independently.
    const host = call(sh, CASES[1]!, NO_NODE).answer;
    assert.equal(host.stdout, "p2\n");
    assert.equal(host.log, "host match[T3]\n");
    const first = call(sh, CASES[8]!, NO_NODE).answer;
    assert.deepEqual([first.stdout, first.log], ["good_1\n", "host h[i]\n"]);
    const turn = call(
      sh,
      CASES.find((c) => c.name === "turn: E2E_KEY_ENV names a variable it can see")!,
      NO_NODE,
    ).answer;
    assert.equal(turn.log, "KEY VISIBLE to deep\nturn deep[T1] high\n");
    assert.deepEqual(JSON.parse(turn.files["RESULT.json"]!), {
      ticket: "T1",
      verdict: "affected",
      evidence: ["calls the vulnerable path", "reproduced"],
    });
    assert.equal(turn.files["out/output.json"], "{}");
  } finally {
    dir.cleanup();
  }
});
