// A shadow of two candidate models (H-6), end to end: `switchyard run` with
// `--decide TYPE=shadow:s1/m1,oai/m2` asks a real System One server and a real OpenAI Decisions
// server beside a real host runner, each element once per model; the lab gets one pair per model
// and element, both against the same host answer; `lab compare` pairs them within the run; and a
// resume after a later task failed asks neither model again. The two models answer known labels,
// so the paired table is known, and its McNemar p and paired interval are checked against
// scripts/reference-stats.py's values for that table (test/fixtures/stats/reference.json) and by hand.

import { test, after } from "node:test";
import assert from "node:assert/strict";
import { existsSync, mkdirSync, mkdtempSync, readFileSync, readdirSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { runCliInProcess } from "../support/cli-in-process.js";
import { startSystemOneServer, systemOneProviderToml } from "../support/systemone-server.js";
import { startDecisionsServer } from "../support/decisions-server.js";
import type { AnswerRule } from "../support/scripted-answers.js";
import type { ShadowPair } from "../../src/decide/pair.js";

const ref = JSON.parse(readFileSync("test/fixtures/stats/reference.json", "utf8")) as {
  mcnemar: { b: number; c: number; p: number }[];
  paired: { table: number[][]; d: number; lo: number; hi: number }[];
};
const r6 = (x: number) => Math.round(x * 1e6) / 1e6;
const KEY_ENV = "SWITCHYARD_PAIR_SHADOW_KEY";
const TYPE = "main.gate.exploitable";
const dir = mkdtempSync(join(tmpdir(), "switchyard-shadow-pair-"));
after(() => rmSync(dir, { recursive: true, force: true }));

// 44 tickets (each instance's state has the whole list, and its own "key"); the host always
// says "yes". Model A (s1/m1) is right on the first 21, model B
// (oai/m2) on the first 12 and the next-but-nine 2: both right 12, only A 9, only B 2, neither 21 —
// the reference fixture's table [[12, 9], [2, 21]].
const N = 44;
const ticket = (i: number) => `T${String(i).padStart(2, "0")}x`;
const aRight = (i: number) => i < 21;
const bRight = (i: number) => i < 12 || i === 21 || i === 22;
// Right: P(yes) 0.8; wrong: P(yes) 0.3 (the model says "no" at 0.7).
const rules = (right: (i: number) => boolean): AnswerRule[] =>
  Array.from({ length: N }, (_, i) => ({ match: `"key":"${ticket(i)}"`, answer: { p_yes: right(i) ? 0.8 : 0.3 } }));

test("H-6: a shadow of two models asks each once per element beside the host; lab compare pairs them within the run, with McNemar and the paired interval of the reference", async () => {
  const s1 = await startSystemOneServer({ table: { rules: rules(aRight) } });
  const oai = await startDecisionsServer({ table: { rules: rules(bRight) } });
  try {
    const pack = join(dir, "pack");
    mkdirSync(pack);
    const gateFlag = join(dir, "finish-may-pass");
    writeFileSync(
      join(pack, "main.star"),
      `playbook(description = "two shadow models")
prepare = command(name = "prepare", run = """printf '%s' '{"members": [${Array.from({ length: N }, (_, i) => `"${ticket(i)}"`).join(", ")}]}' > "$SWITCHYARD_OUTPUT" """, emits = {"members": "list"})
gate = route(name = "gate", depends_on = [prepare], over = prepare.members, max_fanout = 100,
    questions = {"exploitable": noul(ask = "Exploitable?", drop = ["yes", "no", "uncertain"])})
finish = command(name = "finish", depends_on = [gate], run = "test -e ${gateFlag}")
`,
    );
    const runner = join(dir, "host.mjs");
    // The host: answers the first label offered ("yes").
    writeFileSync(
      runner,
      `let input = "";
process.stdin.on("data", (c) => (input += c));
process.stdin.on("end", () => {
  const m = /list above \\(([^)]*)\\)/.exec(input);
  process.stdout.write(m ? m[1].split(",")[0].trim() + "\\n" : "???\\n");
});
`,
    );
    const config = join(dir, "config.toml");
    writeFileSync(
      config,
      `[agents.scripted]
command = [${JSON.stringify(process.execPath)}, ${JSON.stringify(runner)}]

${systemOneProviderToml(s1.url, KEY_ENV, `models = ["m1"]\nmax_retries = 0`)}
[providers.oai]
kind = "openai"
vendor = "openai"
base_url = "${oai.url}"
models = ["m2"]
max_retries = 0

[decisions]
host = "scripted"
`,
    );
    const state = join(dir, "state");
    const env: NodeJS.ProcessEnv = { ...process.env, XDG_CONFIG_HOME: join(dir, "no-xdg"), [KEY_ENV]: "sk-pair-test-0123456789" };
    delete env.SWITCHYARD_HOME;
    delete env.SWITCHYARD_CONFIG;
    const sy = (...args: string[]) => runCliInProcess([...args, "--state-dir", state], { env });

    const first = await sy("run", pack, "--config", config, "--decide", `${TYPE}=shadow:s1/m1,oai/m2`);
    assert.equal(first.code, 1, "finish fails until its flag exists: " + first.stdout + first.stderr);
    const run = /\brun (\S+):/.exec(first.stdout)?.[1];
    assert.ok(run, first.stdout + first.stderr);
    // Each model was asked once per element, each through its own provider.
    assert.equal(s1.count("/v1/systemone"), N);
    assert.equal(oai.count("/v1/decisions"), N);

    const labs = join(state, "labs");
    const lab = readdirSync(labs).find((f) => f !== "current")!;
    const pairsFile = join(labs, lab, "pairs.jsonl");
    const pairsOf = () =>
      readFileSync(pairsFile, "utf8")
        .trim()
        .split("\n")
        .map((l) => JSON.parse(l) as ShadowPair);
    const pairs = pairsOf();
    assert.equal(pairs.length, 2 * N, "one pair per element and model");
    for (let i = 0; i < N; i++) {
      const of = pairs.filter((p) => p.key === ticket(i));
      assert.deepEqual(
        of.map((p) => [p.run, p.host_label, `${p.model?.provider}/${p.model?.model}`, p.model?.label]),
        [
          [run, "yes", "s1/m1", aRight(i) ? "yes" : "no"],
          [run, "yes", "oai/m2", bRight(i) ? "yes" : "no"],
        ],
        ticket(i),
      );
      assert.equal(of[0]!.state_digest, of[1]!.state_digest);
      assert.deepEqual(of[0]!.host, of[1]!.host, "the same host answer beside both");
    }

    // Resume after the later task failed: the decisions stand, neither model is asked again.
    writeFileSync(gateFlag, "");
    const resumed = await sy("resume", run, "--config", config, "--decide", `${TYPE}=shadow:s1/m1,oai/m2`);
    assert.equal(resumed.code, 0, resumed.stdout + resumed.stderr);
    assert.equal(s1.count("/v1/systemone"), N, "model A not asked again");
    assert.equal(oai.count("/v1/decisions"), N, "model B not asked again");
    assert.equal(pairsOf().length, 2 * N, "no pair written twice");
    assert.ok(existsSync(pairsFile));

    const out = await sy("lab", "compare", "--type", TYPE, "s1/m1", "oai/m2", "--json");
    assert.equal(out.code, 0, out.stderr);
    const r = JSON.parse(out.stdout);
    assert.equal(r.paired, N);
    assert.equal(r.same_run, N, "every element paired within the run, against one host answer");
    assert.deepEqual(r.table, { both: 12, only_a: 9, only_b: 2, neither: 21 });
    const expected = ref.paired.find((p) => JSON.stringify(p.table) === "[[12,9],[2,21]]")!;
    assert.deepEqual(r.difference, { d: r6(expected.d), lo: r6(expected.lo), hi: r6(expected.hi) });
    // By hand: d = (14 − 21)/44; McNemar: 2·P[X ≤ 2], X ~ Binomial(11, ½) = 2·(1 + 11 + 55)/2048.
    assert.equal(r.difference.d, r6(-7 / 44));
    assert.ok(Math.abs(r.mcnemar_p - (2 * (1 + 11 + 55)) / 2048) < 1e-12, String(r.mcnemar_p));
    assert.ok(Math.abs(r.mcnemar_p - ref.mcnemar.find((m) => m.b === 2 && m.c === 9)!.p) < 1e-12);
    assert.deepEqual([r.a.agree, r.b.agree, r.a.agreement, r.b.agreement], [21, 14, r6(21 / 44), r6(14 / 44)]);
    // The gate at its boundary: the interval ends at −1.82 %.
    const gate = (x: string) => sy("lab", "compare", "--type", TYPE, "s1/m1", "oai/m2", "--max-drop", x);
    assert.equal((await gate("0.018")).code, 1);
    assert.equal((await gate("0.0183")).code, 0);
    // Harvest per candidate: each model's own pairs against the host.
    for (const [model, agree] of [
      ["s1/m1", 21],
      ["oai/m2", 14],
    ] as const) {
      const h = await sy("lab", "harvest", "--type", TYPE, "--model", model, "--json");
      assert.equal(h.code, 0, h.stderr);
      const t = (JSON.parse(h.stdout) as { types: Array<{ pairs: number; models: unknown; agreement: { agree: number } }> }).types[0]!;
      assert.deepEqual([t.pairs, t.models, t.agreement.agree], [N, [{ model, pairs: N }], agree], model);
    }
    // People's labels: export writes each element once; a label imported comes back beside each
    // model's pair, so harvest --model compares each model with the people. The person says "yes"
    // on T15x … T24x: the host (always "yes") agrees on 10, A (right below 21) on 6, B on T21x, T22x.
    const labelsFile = join(dir, "labels.jsonl");
    const ex = await sy("lab", "export", "--type", TYPE, "-o", labelsFile);
    assert.equal(ex.code, 0, ex.stderr);
    const rows = readFileSync(labelsFile, "utf8")
      .trim()
      .split("\n")
      .map((l) => JSON.parse(l) as { key: string; label: string; by: string });
    assert.equal(rows.length, N, "one row per element, whichever models answered it");
    for (const row of rows) if (row.key >= ticket(15) && row.key <= ticket(24)) Object.assign(row, { label: "yes", by: "ana" });
    writeFileSync(labelsFile, rows.map((r) => JSON.stringify(r)).join("\n") + "\n");
    const im = await sy("lab", "import", labelsFile);
    assert.equal(im.code, 0, im.stderr);
    assert.match(im.stdout, /imported 10 reviewed labels/);
    assert.equal(pairsOf().length, 2 * N + 2 * 10, "one reviewed pair per label and model");
    for (const [model, agree] of [
      ["s1/m1", 6],
      ["oai/m2", 2],
    ] as const) {
      const h = await sy("lab", "harvest", "--type", TYPE, "--model", model, "--json");
      type Reviewed = { n: number; host: { agree: number }; model: { answered: number; agree: number } };
      const t = (JSON.parse(h.stdout) as { types: Array<{ pairs: number; reviewed: Reviewed }> }).types[0]!;
      assert.equal(t.pairs, N, "reviewed pairs are not shadow pairs");
      assert.deepEqual(
        [t.reviewed.n, t.reviewed.host.agree, t.reviewed.model.answered, t.reviewed.model.agree],
        [10, 10, 10, agree],
        model,
      );
    }
    const text = await sy("lab", "compare", "--type", TYPE, "s1/m1", "oai/m2");
    assert.match(text.stdout, /on the 44 elements both answered, each in one run/);
  } finally {
    await s1.close();
    await oai.close();
  }
});
