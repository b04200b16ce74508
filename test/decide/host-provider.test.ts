import { test } from "node:test";
import assert from "node:assert/strict";
import { spawnSync } from "node:child_process";
import { existsSync, readFileSync, writeFileSync } from "node:fs";
import { join, resolve } from "node:path";
import { resolveAll } from "../../src/decide/answer.js";
import { createHostProvider, parseHostReply } from "../../src/decide/providers/index.js";
import { DecisionFailure } from "../../src/run/kinds/judge.js";
import { choiceQ, noulQ, providerRequest } from "../support/decide-fixtures.js";
import { failure } from "../support/assertions.js";
import { withTempDir } from "../support/setup.js";

let dir: string;
const team = choiceQ("team", { billing: "Payments, refunds", technical: "Bugs and outages", other: "" });

withTempDir("sy-host-", (d) => (dir = d));

/** An agent runner that records each prompt and replies with the next of `replies`. */
function runner(name: string, replies: string[], exitCode = 0) {
  const prompts = join(dir, `${name}.prompts.json`);
  const path = join(dir, `${name}.mjs`);
  writeFileSync(
    path,
    `import { existsSync, readFileSync, writeFileSync } from "node:fs";
let t = ""; process.stdin.on("data", (c) => (t += c)); process.stdin.on("end", () => {
  const seen = existsSync(${JSON.stringify(prompts)}) ? JSON.parse(readFileSync(${JSON.stringify(prompts)}, "utf8")) : [];
  seen.push({ prompt: t, env: process.env.RUNNER_FLAVOUR ?? null });
  writeFileSync(${JSON.stringify(prompts)}, JSON.stringify(seen));
  const replies = ${JSON.stringify(replies)};
  process.stdout.write(replies[Math.min(seen.length - 1, replies.length - 1)]);
  if (${exitCode}) { process.stderr.write("agent crashed"); process.exit(${exitCode}); }
});`,
  );
  return {
    config: { name, command: [process.execPath, path], env: { RUNNER_FLAVOUR: "test" } },
    prompts: (): { prompt: string; env: string | null }[] => (existsSync(prompts) ? JSON.parse(readFileSync(prompts, "utf8")) : []),
  };
}

test("D-20 host runner: the prompt has the state, the question, each label with its description; probability 1", async () => {
  const r = runner("agent1", ["technical\n"]);
  const host = createHostProvider({ runner: r.config });
  const resp = await host.ask(providerRequest([team], { ticket: "site down" }));
  const resolved = resolveAll([team], resp);
  assert.equal(resolved.team!.label, "technical");
  assert.deepEqual(resolved.team!.probabilities, { billing: 0, technical: 1, other: 0 });
  assert.equal(resolved.team!.confidence, 1);
  const [seen] = r.prompts();
  assert.equal(seen!.env, "test", "the runner's env is passed");
  const prompt = seen!.prompt;
  assert.match(prompt, /\{"ticket":"site down"\}/);
  assert.match(prompt, /Which team\?/);
  assert.match(prompt, /- billing: Payments, refunds\n- technical: Bugs and outages\n- other\n/);
  assert.match(prompt, /Answer with exactly one label/);
  assert.match(prompt, /run r1, task triage\[k1\]/);
});

test("D-20 host runner: an unparseable reply is asked once more, then accepted", async () => {
  const r = runner("agent2", ["I am not sure, maybe billing or technical?", "**billing**"]);
  const resp = await createHostProvider({ runner: r.config }).ask(providerRequest([team]));
  assert.equal(resolveAll([team], resp).team!.label, "billing");
  const seen = r.prompts();
  assert.equal(seen.length, 2);
  assert.match(seen[1]!.prompt, /Your previous reply could not be read as one label: 'I am not sure, maybe billing or technical\?'/);
});

test("D-20 host runner: unparseable twice fails the decision after exactly two asks", async () => {
  const r = runner("agent3", ["no idea", "still no idea"]);
  const e = await failure(createHostProvider({ runner: r.config }).ask(providerRequest([team])));
  assert.ok(e instanceof DecisionFailure);
  assert.equal(e.code, "host-unparseable");
  assert.match(e.message, /could not be read as one label of billing, technical, other after 2 tries; last reply: 'still no idea'/);
  assert.equal(r.prompts().length, 2);
});

test("D-20 host runner: a failing runner fails the decision with its stderr", async () => {
  const r = runner("agent4", ["billing"], 2);
  const e = await failure(createHostProvider({ runner: r.config }).ask(providerRequest([team])));
  assert.ok(e instanceof DecisionFailure);
  assert.match(e.message, /host runner 'agent4' .* exited with status 2; stderr: agent crashed/);
});

test("D-20 host runner: several questions are asked one by one", async () => {
  const r = runner("agent5", ["yes"]);
  const q2 = noulQ("urgent", "Explicitly time-sensitive");
  const resp = await createHostProvider({ runner: r.config }).ask(providerRequest([q2, noulQ("angry")]));
  assert.equal(resolveAll([q2], resp).urgent!.label, "yes");
  assert.equal(r.prompts().length, 2);
  assert.match(r.prompts()[0]!.prompt, /- yes: Explicitly time-sensitive\n- no\n/);
});

test("D-20 parseHostReply: exact label, decorations, last line, single whole word, numbers only at the tty", () => {
  const labels = ["billing", "technical", "other"];
  assert.equal(parseHostReply("billing", labels), "billing");
  assert.equal(parseHostReply("  `Technical`.\n", labels), "technical");
  assert.equal(parseHostReply("Answer: other", labels), "other");
  assert.equal(parseHostReply("Reading the ticket, payments are involved.\n\nbilling", labels), "billing");
  assert.equal(parseHostReply("This is clearly a billing matter.", labels), "billing");
  assert.equal(parseHostReply("billing or technical", labels), undefined);
  assert.equal(parseHostReply("billingx", labels), undefined);
  assert.equal(parseHostReply("2", labels), undefined);
  assert.equal(parseHostReply("2", labels, true), "technical");
  assert.equal(parseHostReply("4", labels, true), undefined);
  assert.equal(parseHostReply("", labels), undefined);
});

// The terminal path, through a real pseudo-terminal: python3's pty.fork makes the pty the driver's
// controlling terminal, so the host opens it as /dev/tty like at a person's terminal.
const PTY_DRIVER = `
import json, os, pty, select, sys, time
argv = json.loads(sys.argv[1]); script = json.loads(sys.argv[2])
pid, fd = pty.fork()
if pid == 0:
    os.execv(argv[0], argv)
out = b""
def read_until(pattern, timeout=10.0):
    global out
    end = time.time() + timeout
    while pattern.encode() not in out:
        r, _, _ = select.select([fd], [], [], max(0.0, end - time.time()))
        if not r:
            raise SystemExit("timed out waiting for %r; got %r" % (pattern, out.decode(errors="replace")))
        try:
            chunk = os.read(fd, 4096)
        except OSError:
            raise SystemExit("pty closed waiting for %r; got %r" % (pattern, out.decode(errors="replace")))
        out += chunk
for wait, send in script:
    read_until(wait)
    out = out.replace(wait.encode(), b"<" + wait.encode() + b">", 1)
    os.write(fd, send.encode())
while True:
    try:
        chunk = os.read(fd, 4096)
    except OSError:
        break
    if not chunk:
        break
    out += chunk
_, status = os.waitpid(pid, 0)
sys.stdout.write(out.decode(errors="replace"))
sys.exit(os.waitstatus_to_exitcode(status))
`;

function ttyDriver(resultFile: string): string {
  const path = join(dir, "tty-driver.mjs");
  const index = resolve("dist/src/decide/providers/index.js");
  writeFileSync(
    path,
    `import { writeFileSync } from "node:fs";
import { createHostProvider } from ${JSON.stringify(index)};
const q = { id: "team", kind: "choice", ask: "Which team?", labels: ["billing", "technical", "other"], descriptions: { billing: "Payments, refunds", technical: "Bugs", other: "" }, type: "t", min_confidence: 0 };
const host = createHostProvider({ tty: true });
try {
  const r = await host.ask({ model: "host", state: { ticket: "site down" }, state_text: '{"ticket":"site down"}', questions: [q], signal: new AbortController().signal, context: { run: "r1", task: "triage", key: "k7" } });
  writeFileSync(${JSON.stringify(resultFile)}, JSON.stringify({ ok: r.answers.team.probabilities }));
} catch (e) {
  writeFileSync(${JSON.stringify(resultFile)}, JSON.stringify({ error: e.message, code: e.code }));
}`,
  );
  return path;
}

function runPty(steps: [string, string][], name: string): { transcript: string; result: Record<string, unknown> } {
  const pyPath = join(dir, "pty-drive.py");
  writeFileSync(pyPath, PTY_DRIVER);
  const resultFile = join(dir, `${name}.json`);
  const driver = ttyDriver(resultFile);
  const r = spawnSync("python3", [pyPath, JSON.stringify([process.execPath, driver]), JSON.stringify(steps)], {
    encoding: "utf8",
    timeout: 20_000,
  });
  assert.equal(r.status, 0, `pty driver failed: ${r.stderr}\n${r.stdout}`);
  return { transcript: r.stdout, result: JSON.parse(readFileSync(resultFile, "utf8")) };
}

const PROMPT = "Answer with a label or its number (1–3): ";

test("D-20 host tty: a person sees the state and numbered options, answers by number after one bad reply", () => {
  const { transcript, result } = runPty(
    [
      [PROMPT, "dunno\r"],
      ["is not one of the labels", "2\r"],
    ],
    "tty1",
  );
  assert.deepEqual(result, { ok: { billing: 0, technical: 1, other: 0 } });
  assert.match(transcript, /switchyard needs a decision \(run r1, task triage\[k7\]\)/);
  assert.match(transcript, /\{"ticket":"site down"\}/);
  assert.match(transcript, /1\) billing — Payments, refunds/);
  assert.match(transcript, /2\) technical — Bugs/);
  assert.match(transcript, /3\) other/);
  assert.match(transcript, /→ technical/);
});

test("D-20 host tty: a label typed by name is accepted; two bad replies fail the decision", () => {
  assert.deepEqual(runPty([[PROMPT, "Billing\r"]], "tty2").result, { ok: { billing: 1, technical: 0, other: 0 } });
  const { result, transcript } = runPty(
    [
      [PROMPT, "sales\r"],
      ["is not one of the labels", "9\r"],
    ],
    "tty3",
  );
  assert.equal(result.code, "host-unparseable");
  assert.match(String(result.error), /could not be read as one label of billing, technical, other after 2 tries; last reply: '9'/);
  assert.match(transcript, /this decision fails/);
});
