// The review queue end to end through the CLI (D-60 … D-66): a 200-element mapped route whose model
// is unsure of every third element. The certain elements finish and their gated work runs; the
// unsure ones wait; answers arrive by `switchyard review` while the run is up, while it is dead
// (kill -9), and while it is detached (--detach-reviews); the run finishes with every answer
// recorded and gated on, and neither the model nor a person is asked twice. A second run: questions
// in review mode time out into `uncertain`, and the notify command receives both summaries.

import { test } from "node:test";
import assert from "node:assert/strict";
import { spawn, spawnSync } from "node:child_process";
import { existsSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { TempDir } from "../run/helpers.js";
import { until } from "../support/assertions.js";
import { reviewPlaybook } from "../support/review-pack.js";
import { testStoreSpec } from "../support/test-store.js";
import { openStore, giveReviewAnswer } from "../../src/run/store/index.js";
import { spawnCliInProcess } from "../support/cli-in-process.js";

const BIN = join(process.cwd(), "bin", "switchyard.js");
const N = 200;
const KEYS = Array.from({ length: N }, (_, i) => `e${i + 1}`);
/** The model's answer by element, computed here independently of switchyard: every third is unsure. */
const unsure = (k: string) => Number(k.slice(1)) % 3 === 0;
const modelYes = (k: string) => Number(k.slice(1)) % 2 === 0;

/** A command provider (System One on stdin/stdout) that logs each element it is asked about. */
const decider = (log: string) => `#!/bin/sh
key=$(cat | grep -o '"key":"e[0-9]*"' | head -n 1 | cut -d '"' -f 4)
echo "$key" >> "${log}"
n=\${key#e}
if [ $((n % 3)) -eq 0 ]; then p=0.6; elif [ $((n % 2)) -eq 0 ]; then p=0.95; else p=0.05; fi
echo "{\\"model\\": \\"m1\\", \\"answers\\": {\\"exploitable\\": {\\"type\\": \\"noul\\", \\"noul\\": $p}}}"
`;

function env(dir: TempDir, store: string | undefined): NodeJS.ProcessEnv {
  const e: NodeJS.ProcessEnv = { ...process.env, SWITCHYARD_HOME: join(dir.path, "state"), XDG_CONFIG_HOME: join(dir.path, "xdg") };
  if (store) e.SWITCHYARD_STORE = store;
  else delete e.SWITCHYARD_STORE;
  return e;
}

const lines = (p: string) => (existsSync(p) ? readFileSync(p, "utf8").split("\n").filter(Boolean) : []);

/** Counts of each line. */
function tally(xs: string[]): Map<string, number> {
  const m = new Map<string, number>();
  for (const x of xs) m.set(x, (m.get(x) ?? 0) + 1);
  return m;
}

test(
  "D-60/D-61/D-62/D-63/D-65: 200 elements, the unsure third waits for review; answers while up, after kill -9 and while detached; nothing asked twice",
  { timeout: 240000 },
  async () => {
    const dir = new TempDir("sy-review-");
    const store = testStoreSpec();
    let child: ReturnType<typeof spawn> | undefined;
    const e = env(dir, store);
    // The commands that execute the run (resume) in a child process; those that answer, list and
    // read in this one (still a process other than the run's).
    const cli = (...args: string[]) =>
      spawnSync(process.execPath, [BIN, ...args], { cwd: dir.path, env: e, encoding: "utf8", timeout: 120000 });
    const here = (...args: string[]) => spawnCliInProcess(args, { cwd: dir.path, env: e });
    // The first few answers of each batch through the CLI; the rest straight into the store's table
    // the CLI writes to (the same rows, without a command per answer on a loaded machine).
    let viaCli = 0;
    const answer = async (key: string, label: string, who: string, cliToo: boolean) => {
      if (cliToo) {
        viaCli++;
        const r = await here("review", "latest", "--key", key, "--answer", `exploitable=${label}`, "--as", who, "--note", `checked ${key}`);
        assert.equal(r.status, 0, r.stderr + r.stdout);
        assert.match(r.stdout, new RegExp(`gate\\[${key}\\] exploitable = ${label} \\(by ${who}\\)`));
        return;
      }
      const s = openStore(store, join(dir.path, "state"));
      try {
        const run = s.latestRun()!;
        const row = { task: "gate", key, question: "exploitable", label, who, at: new Date().toISOString(), note: `checked ${key}` };
        assert.ok(giveReviewAnswer(s, run, row));
      } finally {
        s.close();
      }
    };
    const pending = async () =>
      (await here("review", "latest", "--list", "--json")).stdout
        .split("\n")
        .filter(Boolean)
        .map((l) => JSON.parse(l) as { key: string; question: { id: string; model?: { label: string; confidence: number } } });
    try {
      const askLog = join(dir.path, "asked.log");
      const fixLog = join(dir.path, "fixed.log");
      dir.file("pack/main.star", reviewPlaybook(fixLog));
      dir.file("pack/members.json", JSON.stringify({ members: KEYS }));
      const script = dir.file("decide.sh", decider(askLog), 0o755);
      const config = dir.file(
        "xdg/switchyard/config.toml",
        `[providers.cmd]\nkind = "command"\nvendor = "inhouse"\nmodels = ["m1"]\ncommand = ["${script}"]\n\n[decisions.types]\n"triage" = { mode = "cmd/m1", escalate_below = 0.7 }\n`,
      );
      assert.ok(config);
      const running = spawn(process.execPath, [BIN, "run", "pack", "--quiet"], {
        cwd: dir.path,
        env: e,
        stdio: ["ignore", "ignore", "pipe"],
      });
      child = running;
      let err = "";
      running.stderr!.on("data", (b: Buffer) => (err += b.toString()));
      const exit = new Promise<number | null>((res) => running.on("exit", (code) => res(code)));
      const waitingKeys = KEYS.filter(unsure);
      await until(
        "only waiting elements are left",
        () => /only \d+ element\(s\) waiting for review/.test(err) || running.exitCode !== null,
        180000,
      );
      assert.equal(running.exitCode, null, err);
      assert.match(err, new RegExp(`only ${waitingKeys.length} element\\(s\\) waiting for review`));

      // Every certain element is decided; the unsure ones wait, with the model's answer shown. Work
      // gated on the route starts once the whole route has settled (M-2), so none has run yet.
      const certainYes = KEYS.filter((k) => !unsure(k) && modelYes(k));
      assert.deepEqual(lines(fixLog), []);
      const listed = await pending();
      assert.deepEqual(listed.map((p) => p.key).sort(), [...waitingKeys].sort());
      assert.ok(listed.every((p) => p.question.model?.label === "yes" && Math.abs(p.question.model.confidence - 0.6) < 1e-9));
      const status = JSON.parse((await here("status", "--json")).stdout) as {
        status: string;
        tasks: Record<string, { waiting: number; passed: number }>;
      };
      assert.equal(status.status, "running");
      assert.equal(status.tasks.gate!.waiting, waitingKeys.length);
      assert.equal(status.tasks.gate!.passed, N - waitingKeys.length);

      // Answers while the run is up: it records them and goes on with those elements.
      const label = (k: string) => (Number(k.slice(1)) % 9 === 0 ? "no" : Number(k.slice(1)) % 5 === 0 ? "uncertain" : "yes");
      const [first, second, third] = [waitingKeys.slice(0, 10), waitingKeys.slice(10, 30), waitingKeys.slice(30)];
      for (const [i, k] of first.entries()) await answer(k, label(k), "alice", i < 5);
      await until("the first answers are recorded", async () => (await pending()).length === waitingKeys.length - first.length, 60000);
      await until(
        "their decisions are recorded",
        async () => {
          const st = JSON.parse((await here("status", "--json")).stdout) as { tasks: Record<string, { waiting: number }> };
          return st.tasks.gate!.waiting === waitingKeys.length - first.length;
        },
        60000,
      );
      // A second answer to an answered question is refused.
      const again = await here("review", "latest", "--key", first[0]!, "--answer", "exploitable=yes");
      assert.equal(again.status, 2);
      assert.match(again.stderr, /review-not-waiting|does not wait|no question/);
      // A label the question does not have is refused, saying which it has.
      const bad = await here("review", "latest", "--key", second[0]!, "--answer", "exploitable=maybe");
      assert.equal(bad.status, 2);
      assert.match(bad.stderr, /yes, no, uncertain/);

      // kill -9 while waiting; answers given while the run is dead wait in the store.
      running.kill("SIGKILL");
      await exit;
      for (const [i, k] of second.entries()) await answer(k, label(k), "bob", i < 5);
      assert.equal((await pending()).length, third.length);
      const detached = cli("resume", "latest", "--detach-reviews", "--quiet");
      assert.equal(detached.status, 1, detached.stderr + detached.stdout);
      const mid = JSON.parse((await here("status", "--json")).stdout) as {
        status: string;
        reason: string;
        tasks: Record<string, { waiting: number }>;
      };
      assert.equal(mid.status, "waiting");
      assert.equal(mid.tasks.gate!.waiting, third.length);
      const waitingRuns = JSON.parse((await here("runs", "--json", "--status", "waiting")).stdout) as Array<{ status: string }>;
      assert.deepEqual(
        waitingRuns.map((r) => r.status),
        ["waiting"],
      );

      // The rest answered while detached; resume finishes the run.
      for (const [i, k] of third.entries()) await answer(k, label(k), "carol", i < 5);
      const done = cli("resume", "latest", "--quiet");
      assert.equal(done.status, 0, done.stderr + done.stdout);

      // The model was asked once per element, never again (not by resume, not after the answers).
      const asked = tally(lines(askLog));
      assert.equal(asked.size, N);
      assert.ok(
        [...asked.values()].every((n) => n === 1),
        JSON.stringify([...asked].filter(([, n]) => n > 1)),
      );
      // Gated on the final labels: the model's certain yes, and the people's yes; each fixed once.
      const fixed = tally(lines(fixLog));
      const expectYes = [...certainYes, ...waitingKeys.filter((k) => label(k) === "yes")].sort();
      assert.deepEqual([...fixed.keys()].sort(), expectYes);
      assert.ok([...fixed.values()].every((n) => n === 1));
      // Each answer is recorded as a host decision with probability 1, with who, when, the note and the model's answer.
      const shown = JSON.parse((await here("show", "latest", "--json")).stdout) as {
        tasks: { gate: { instances: Record<string, { output: Record<string, Record<string, unknown>> }> } };
      };
      for (const [keys, who] of [
        [first, "alice"],
        [second, "bob"],
        [third, "carol"],
      ] as const) {
        for (const k of keys) {
          const d = shown.tasks.gate.instances[k]!.output.exploitable! as {
            label: string;
            mode: string;
            provider: string;
            confidence: number;
            probabilities: Record<string, number>;
            review: { by: string; at: string; note: string; model: { label: string; confidence: number; min_confidence: number } };
          };
          assert.equal(d.label, label(k), k);
          assert.equal(d.mode, "host");
          assert.equal(d.provider, "review");
          assert.equal(d.confidence, 1);
          assert.equal(d.probabilities[label(k)] ?? 0, label(k) === "uncertain" ? 0 : 1);
          assert.equal(d.review.by, who);
          assert.equal(d.review.note, `checked ${k}`);
          assert.ok(!Number.isNaN(Date.parse(d.review.at)));
          assert.equal(d.review.model.label, "yes");
          // The threshold the model's answer was tested against: the route's default, 0 (no config value).
          assert.equal(d.review.model.min_confidence, 0);
        }
      }
      assert.equal((await pending()).length, 0);
      assert.equal(viaCli, 15);
      // Each person's answer beside the escalated model's "yes" is a reviewed pair in the lab (H-5),
      // reported apart from shadow pairs (there are none here).
      const harvested = await here("lab", "harvest", "--json");
      assert.equal(harvested.status, 0, harvested.stderr);
      type Harvested = {
        types: Array<{ type: string; pairs: number; reviewed: { n: number; host: { answered: number }; model: { agree: number } } }>;
      };
      const triage = (JSON.parse(harvested.stdout) as Harvested).types.find((t) => t.type === "triage")!;
      assert.equal(triage.pairs, 0);
      assert.equal(triage.reviewed.n, waitingKeys.length);
      assert.equal(triage.reviewed.host.answered, 0);
      assert.equal(triage.reviewed.model.agree, waitingKeys.filter((k) => label(k) === "yes").length);
    } finally {
      if (child && child.exitCode === null && child.signalCode === null) child.kill("SIGKILL");
      dir.cleanup();
    }
  },
);

test(
  "D-64/D-66: a review question unanswered past review_timeout is uncertain, recorded as a timeout; the notify command gets both summaries",
  { timeout: 120000 },
  async () => {
    const dir = new TempDir("sy-review-timeout-");
    const e = env(dir, testStoreSpec());
    try {
      const fixLog = join(dir.path, "fixed.log");
      const notes = join(dir.path, "notes.jsonl");
      dir.file("pack/main.star", reviewPlaybook(fixLog));
      dir.file("pack/members.json", JSON.stringify({ members: ["e1", "e2", "e3"] }));
      const notify = dir.file(
        "notify.mjs",
        `import { appendFileSync, readFileSync } from "node:fs";\nappendFileSync(process.argv[2], readFileSync(0, "utf8"));\n`,
      );
      dir.file(
        "xdg/switchyard/config.toml",
        `[decisions]\nreview_notify = [${JSON.stringify(process.execPath)}, ${JSON.stringify(notify)}, ${JSON.stringify(notes)}]\n\n[decisions.types]\n"triage" = { mode = "review", review_timeout = "1s" }\n`,
      );
      const r = spawnSync(process.execPath, [BIN, "run", "pack", "--quiet"], { cwd: dir.path, env: e, encoding: "utf8", timeout: 60000 });
      assert.equal(r.status, 0, r.stderr + r.stdout);
      const shown = JSON.parse((await spawnCliInProcess(["show", "latest", "--json"], { cwd: dir.path, env: e })).stdout) as {
        tasks: {
          gate: {
            instances: Record<
              string,
              { output: Record<string, { label: string; confidence: number; review: { by: string; timeout: boolean } }> }
            >;
          };
        };
      };
      for (const k of ["e1", "e2", "e3"]) {
        const d = shown.tasks.gate.instances[k]!.output.exploitable!;
        assert.equal(d.label, "uncertain");
        assert.equal(d.confidence, 0);
        assert.deepEqual([d.review.by, d.review.timeout], ["timeout", true]);
      }
      assert.deepEqual(lines(fixLog), []);
      await until("both summaries arrived", () => lines(notes).length >= 2, 20000);
      const got = lines(notes).map((l) => JSON.parse(l) as { event: string; waiting: number; questions: Array<{ key: string }> });
      assert.deepEqual(
        got.map((g) => [g.event, g.waiting]),
        [
          ["waiting", 3],
          ["empty", 0],
        ],
      );
      assert.deepEqual(got[0]!.questions.map((q) => q.key).sort(), ["e1", "e2", "e3"]);
    } finally {
      dir.cleanup();
    }
  },
);
