// `switchyard init` scaffolds an empty cassette with its pack: `switchyard test` passes on the
// new pack offline; an agent turn added to it is a miss for exactly the element that reaches it
// (beta, the only item stage.mjs labels "large"), until `--allow-live --update` records it; then
// the pack replays with the runner never called.
import { after, before, test } from "node:test";
import assert from "node:assert/strict";
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { cli } from "../e2e/support/harness.js";

let dir: string;
let pack: string;
let calls: string;

const sy = (args: string[]) => cli(args, { cwd: dir, env: { XDG_CONFIG_HOME: join(dir, "xdg"), SWITCHYARD_HOME: "" } });
const callCount = () => (existsSync(calls) ? readFileSync(calls, "utf8").split("\n").filter(Boolean).length : 0);

before(() => {
  dir = mkdtempSync(join(tmpdir(), "sy-cassette-init-"));
  pack = join(dir, "mypack");
  calls = join(dir, "calls.log");
});
after(() => rmSync(dir, { recursive: true, force: true }));

test("init scaffolds an empty cassette; switchyard test passes on the new pack offline and prints how", async () => {
  const init = await sy(["init", "mypack"]);
  assert.equal(init.code, 0, init.err);
  assert.match(init.out, /^ {2}mypack\/cassette\.jsonl$/m);
  assert.match(init.out, /^ {2}switchyard test mypack --cassette mypack\/cassette\.jsonl /m);
  const lines = readFileSync(join(pack, "cassette.jsonl"), "utf8").split("\n").filter(Boolean);
  assert.equal(lines.length, 1, "the header only");
  assert.deepEqual(JSON.parse(lines[0]!), { format: "switchyard-cassette", version: 1, run: "", playbook: "main", written: "" });
  const r = await sy(["test", "mypack", "--cassette", "mypack/cassette.jsonl"]);
  assert.equal(r.code, 0, r.out + r.err);
  assert.match(r.out, /^test main: passed: 0 agent turns and 0 decisions answered from the cassette, 0 misses; the run passed$/m);
});

test("an agent turn added to the scaffolded pack misses for exactly its element until --allow-live --update records it", async () => {
  const star = join(pack, "main.star");
  const before = readFileSync(star, "utf8");
  const after = before.replace(
    /large = command\(([^]*?)run = "node \$SWITCHYARD_PACK\/stage\.mjs look",/,
    'large = agent($1prompt = "Look closely at {{key}}",',
  );
  assert.notEqual(after, before, "the scaffold's `large` command was found");
  writeFileSync(star, after);
  const agent = join(dir, "agent.mjs");
  writeFileSync(
    agent,
    `import { appendFileSync, writeFileSync } from "node:fs";\nappendFileSync(${JSON.stringify(calls)}, process.env.SWITCHYARD_KEY + "\\n");\nwriteFileSync(process.env.SWITCHYARD_OUTPUT, JSON.stringify({ looked_at: process.env.SWITCHYARD_KEY }));\n`,
  );
  const config = join(dir, "config.toml");
  writeFileSync(config, `[agents.default]\ncommand = ["node", ${JSON.stringify(agent)}]\n`);

  const miss = await sy(["test", "mypack", "--cassette", "mypack/cassette.jsonl", "--config", config]);
  assert.equal(miss.code, 1, miss.out + miss.err);
  assert.deepEqual(
    miss.out.split("\n").filter((l) => /^ {2}(agent turn|decision) /.test(l)),
    ["  agent turn large[beta]: a new element: the cassette has no turn for it"],
  );
  assert.equal(callCount(), 0, "nothing was run without --allow-live");

  const live = await sy(["test", "mypack", "--cassette", "mypack/cassette.jsonl", "--config", config, "--allow-live", "--update"]);
  assert.equal(live.code, 0, live.out + live.err);
  assert.equal(readFileSync(calls, "utf8"), "beta\n");
  assert.match(live.out, /^updated mypack\/cassette\.jsonl: 1 agent turn, 0 decisions, /m);

  const again = await sy(["test", "mypack", "--cassette", "mypack/cassette.jsonl"]);
  assert.equal(again.code, 0, again.out + again.err);
  assert.match(again.out, /^test main: passed: 1 agent turn and 0 decisions answered from the cassette, 0 misses; the run passed$/m);
  assert.equal(callCount(), 1, "the replay called no runner");
});
