// Labs' pairs in PostgreSQL: two machines (two state folders) run, side by side, a playbook whose
// one route's question runs in shadow (the host decides, a System One server on 127.0.0.1 answers
// beside it) on one PostgreSQL store; their pairs land in one lab in the store, not in either
// folder, and `lab list` / `lab harvest` from a third state folder see every pair: twice the
// shadow pairs one run writes (one per element the route is asked about, as a single-machine run
// writes them to its pairs.jsonl). The lab commands run in the test's process (they are not about
// processes); the two runs are processes of their own, as two machines' are.

import { test } from "node:test";
import assert from "node:assert/strict";
import { existsSync, readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { TempDir } from "../run/helpers.js";
import { freshPgUrl, testPg } from "../support/test-store.js";
import { cli } from "../e2e/support/harness.js";
import { scriptedAgent } from "../e2e/support/agent-sh.js";
import { runCliInProcess } from "../support/cli-in-process.js";
import { startSystemOneServer, systemOneProviderToml } from "../support/systemone-server.js";

const skip = testPg ? false : "SWITCHYARD_TEST_PG is not set (no PostgreSQL server for the tests)";
const KEYS = Array.from({ length: 8 }, (_, i) => `t${i + 1}`);
const TYPE = "main.judge.supported";
const KEY_ENV = "LAB_SHARED_SYSTEMONE_KEY";

// Every element reaches `judge`, whose one question runs in shadow: one pair per element and run.
const PLAYBOOK = `
playbook(description = "shadow pairs on a shared store", concurrency = 4)

prepare = command(name = "prepare", run = """echo '${JSON.stringify({ members: KEYS })}' > $SWITCHYARD_OUTPUT""", emits = {"members": "list"})

judge = route(
    name = "judge", depends_on = [prepare], over = prepare.members, max_fanout = 100,
    questions = {"supported": noul(ask = "Does the ticket's evidence support its verdict?")},
)

def note(input):
    return {"key": input["key"]}

noted = evaluate(name = "noted", depends_on = [judge], over = prepare.members, max_fanout = 100, when = judge.supported, otherwise = True, fn = note)
`;

/** Lines of every pairs.jsonl under a state folder's labs/. */
function folderPairs(state: string): string[] {
  const labs = join(state, "labs");
  if (!existsSync(labs)) return [];
  return readdirSync(labs)
    .filter((n) => n.startsWith("lab-"))
    .flatMap((n) => {
      const f = join(labs, n, "pairs.jsonl");
      return existsSync(f) ? readFileSync(f, "utf8").split("\n").filter(Boolean) : [];
    });
}

test(
  "on a PostgreSQL store the lab and its pairs are shared — two machines' shadow pairs in one lab, read from a third",
  { skip, timeout: 180000 },
  async () => {
    const dir = new TempDir("sy-lab-shared-");
    const server = await startSystemOneServer();
    try {
      const env: NodeJS.ProcessEnv = { ...process.env, SWITCHYARD_STORE: "", XDG_CONFIG_HOME: join(dir.path, "xdg") };
      const pack = dir.file("pack/main.star", PLAYBOOK).replace(/[\\/]main\.star$/, "");
      const config = dir.file(
        "config.toml",
        `[agents.default]\ncommand = ${JSON.stringify(scriptedAgent(dir.path))}\n\n` +
          `${systemOneProviderToml(server.url, KEY_ENV, `models = ["jev-1"]\nmax_retries = 1\n`)}\n` +
          `[decisions]\nhost = "default"\n\n[decisions.types]\n"${TYPE}" = "shadow:s1/jev-1"\n`,
      );
      const sy = (args: string[]) => runCliInProcess(args, { env }).then((r) => ({ code: r.code, out: r.stdout, err: r.stderr }));
      const shadow = (lines: string[]) => lines.filter((l) => (JSON.parse(l) as { type: string }).type === TYPE);
      const perRun = KEYS.length;

      const url = freshPgUrl();
      // The two machines run at the same time, each the CLI in a process of its own.
      const machines = ["machine-a", "machine-b"];
      const runs = await Promise.all(
        machines.map((machine) =>
          cli(["run", pack, "--config", config, "--store", url, "--state-dir", join(dir.path, machine), "-q"], {
            cwd: dir.path,
            env: { SWITCHYARD_STORE: "", XDG_CONFIG_HOME: join(dir.path, "xdg"), [KEY_ENV]: "sk-lab-shared-0123456789" },
          }),
        ),
      );
      for (const [i, r] of runs.entries()) {
        assert.equal(r.code, 0, r.err);
        assert.deepEqual(folderPairs(join(dir.path, machines[i]!)), [], `${machines[i]} kept no pairs of its own`);
      }
      const third = join(dir.path, "machine-c");
      const list = await sy(["lab", "list", "--json", "--store", url, "--state-dir", third]);
      assert.equal(list.code, 0, list.err);
      const labs = JSON.parse(list.out) as { id: string; current: boolean }[];
      assert.equal(labs.length, 1, "both machines used one lab");
      assert.equal(labs[0]!.current, true);
      const pairs = folderPairs(third);
      assert.equal(shadow(pairs).length, 2 * perRun, "every shadow pair of both runs, once");
      assert.equal(new Set(pairs).size, pairs.length, "no pair twice");
      assert.ok(pairs.every((l) => (JSON.parse(l) as { lab: string }).lab === labs[0]!.id));
      assert.equal(new Set(pairs.map((l) => (JSON.parse(l) as { run: string }).run)).size, 2);

      const harvest = await sy(["lab", "harvest", "--json", "--all", "--store", url, "--state-dir", third]);
      assert.equal(harvest.code, 0, harvest.err);
      assert.equal(
        (JSON.parse(harvest.out) as { overall: { pairs: number } }).overall.pairs,
        2 * perRun,
        "the harvest counts every shadow pair",
      );

      // `lab new` on the store makes the next pairs go to a new lab, for every machine.
      const made = await sy(["lab", "new", "--note", "next model", "--store", url, "--state-dir", join(dir.path, "machine-a")]);
      assert.equal(made.code, 0, made.err);
      const again = JSON.parse((await sy(["lab", "list", "--json", "--store", url, "--state-dir", third])).out) as {
        id: string;
        current: boolean;
      }[];
      assert.deepEqual(
        again.map((l) => l.current),
        [false, true],
      );
    } finally {
      await server.close();
      dir.cleanup();
    }
  },
);
