// `switchyard lab new | list | harvest`: output, --json shapes, exit codes (§12) and messages for
// people. Each command runs through the CLI's entry function in the test's own process
// (test/support/cli-in-process.ts): what is tested is what a command prints and returns, and a
// child process per command cost 0.3-0.7 s of CPU each, 21 times.

import { test } from "node:test";
import assert from "node:assert/strict";
import { mkdtempSync, readFileSync, rmSync, writeFileSync, appendFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { runCliInProcess } from "../support/cli-in-process.js";

async function sy(args: string[], env: NodeJS.ProcessEnv = {}): Promise<{ code: number | null; stdout: string; stderr: string }> {
  return runCliInProcess(args, { env: { ...process.env, SWITCHYARD_HOME: "", ...env } });
}

let serial = 0;
function pairLine(type: string, host: string, label: string, confidence: number): string {
  return (
    JSON.stringify({
      lab: "x",
      time: "2026-12-02T00:00:00Z",
      run: "r",
      type,
      task: "gate",
      key: null,
      question: { id: "q", kind: "noul", labels: ["yes", "no"] },
      state_digest: `sha256:${serial++}`, // a state per pair: none is a duplicate of another
      host_label: host,
      model: {
        provider: "sys1",
        model: "jev",
        label,
        probabilities: { [label]: confidence, [label === "yes" ? "no" : "yes"]: 1 - confidence },
        confidence,
        refused: false,
        latency_ms: 1,
        usage: null,
      },
    }) + "\n"
  );
}

test("§12/H-1: lab new, lab list and lab list --json", async () => {
  const dir = mkdtempSync(join(tmpdir(), "switchyard-labcli-"));
  try {
    const empty = await sy(["lab", "list", "--state-dir", dir]);
    assert.equal(empty.code, 0);
    assert.match(empty.stdout, /no labs in .*`switchyard lab new/);
    const made = await sy(["lab", "new", "--note", "gate on jev", "--state-dir", dir]);
    assert.equal(made.code, 0, made.stderr);
    const id = made.stdout.trim();
    assert.match(id, /^lab-\d{12}-[0-9a-f]{4}$/);
    assert.match(made.stderr, /now current/);
    const second = (await sy(["lab", "new", "--state-dir", dir])).stdout.trim();
    const list = await sy(["lab", "list", "--state-dir", dir]);
    assert.equal(list.code, 0);
    const rows = list.stdout.trim().split("\n");
    assert.equal(rows.length, 3);
    assert.match(rows[1]!, new RegExp(`^ +${id} .*gate on jev$`));
    assert.match(rows[2]!, new RegExp(`^\\* +${second} `));
    const json = JSON.parse((await sy(["lab", "list", "--json"], { SWITCHYARD_HOME: dir })).stdout) as Array<{
      id: string;
      note: string;
      current: boolean;
      pairs_bytes: number;
    }>;
    assert.deepEqual(
      json.map((l) => [l.id, l.note, l.current, l.pairs_bytes]),
      [
        [id, "gate on jev", false, 0],
        [second, "", true, 0],
      ],
    );
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

test("H-2: lab harvest prints per-type tables, --json and --html, for the current or a named lab", async () => {
  const dir = mkdtempSync(join(tmpdir(), "switchyard-labcli-"));
  try {
    const first = (await sy(["lab", "new", "--state-dir", dir])).stdout.trim();
    const id = (await sy(["lab", "new", "--state-dir", dir])).stdout.trim();
    const file = join(dir, "labs", id, "pairs.jsonl");
    writeFileSync(file, pairLine("t.a", "yes", "yes", 0.97) + pairLine("t.a", "no", "yes", 0.6) + pairLine("t.b", "yes", "yes", 0.8));
    const text = await sy(["lab", "harvest", "--state-dir", dir]);
    assert.equal(text.code, 0, text.stderr);
    assert.match(text.stdout, new RegExp(`harvest of ${id}: 3 pairs, 2 judgement type`));
    assert.match(text.stdout, /judgement type t\.a\n/);
    assert.match(text.stdout, /agreement 50\.0% \(1\/2\)/);
    assert.match(text.stdout, /min_confidence for 95\.0% agreement: 0\.61 /);
    assert.match(text.stdout, /\n {2}≥0\.95 +1 +1 +100\.0%\* +0\.970\n/);
    assert.match(text.stdout, /\noverall\n/);
    const html = join(dir, "report.html");
    const json = await sy(["lab", "harvest", id, "--json", "--target", "0.5", "--html", html, "--state-dir", dir]);
    assert.equal(json.code, 0, json.stderr);
    const rep = JSON.parse(json.stdout) as {
      version: number;
      lab: string;
      target: number;
      types: Array<{ type: string; recommended: { threshold: number } | null }>;
    };
    assert.equal(rep.version, 2);
    assert.equal(rep.lab, id);
    assert.equal(rep.target, 0.5);
    assert.deepEqual(
      rep.types.map((t) => [t.type, t.recommended?.threshold]),
      [
        ["t.a", 0],
        ["t.b", 0],
      ],
    );
    assert.match(readFileSync(html, "utf8"), /<svg class="reliability before"/);
    // The other lab is empty; a path to a pairs file works too.
    const other = JSON.parse((await sy(["lab", "harvest", first, "--json", "--state-dir", dir])).stdout) as { overall: { pairs: number } };
    assert.equal(other.overall.pairs, 0);
    const byPath = JSON.parse((await sy(["lab", "harvest", file, "--json"])).stdout) as { overall: { pairs: number } };
    assert.equal(byPath.overall.pairs, 3);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

test("§12: lab harvest reports usage errors with exit 2 and other failures with exit 1, no stack traces", async () => {
  const dir = mkdtempSync(join(tmpdir(), "switchyard-labcli-"));
  try {
    const none = await sy(["lab", "harvest", "--state-dir", dir]);
    assert.equal(none.code, 2);
    assert.match(none.stderr, /^switchyard: error\[lab-none\]: no labs in /);
    assert.match(none.stderr, /switchyard lab new/);
    const id = (await sy(["lab", "new", "--state-dir", dir])).stdout.trim();
    const typo = await sy(["lab", "harvest", id.slice(0, -1) + (id.endsWith("0") ? "1" : "0"), "--state-dir", dir]);
    assert.equal(typo.code, 2);
    assert.match(typo.stderr, /error\[lab-unknown\]/);
    assert.match(typo.stderr, new RegExp(`did you mean '${id}'`));
    for (const bad of ["1.5", "0", "high"]) {
      const r = await sy(["lab", "harvest", "--target", bad, "--state-dir", dir]);
      assert.equal(r.code, 2, `--target ${bad}`);
      assert.match(r.stderr, /error\[lab-bad-target\]: --target must be a number in \(0, 1\]/);
    }
    assert.equal((await sy(["lab", "harvest", "--bogus", "--state-dir", dir])).code, 2);
    // A damaged middle line: exit 1, the file and line named, how to fix it.
    const file = join(dir, "labs", id, "pairs.jsonl");
    writeFileSync(file, pairLine("t", "yes", "yes", 0.9) + "{not json\n" + pairLine("t", "yes", "yes", 0.9));
    const damaged = await sy(["lab", "harvest", "--state-dir", dir]);
    assert.equal(damaged.code, 1);
    assert.match(damaged.stderr, /pairs\.jsonl:2: error\[lab-invalid-pair\]: line 2 is not a valid shadow pair/);
    assert.match(damaged.stderr, /help: fix or delete line 2/);
    // A torn last line: a warning on stderr, exit 0.
    writeFileSync(file, pairLine("t", "yes", "yes", 0.9));
    appendFileSync(file, pairLine("t", "yes", "yes", 0.9).slice(0, 20));
    const torn = await sy(["lab", "harvest", "--state-dir", dir]);
    assert.equal(torn.code, 0);
    assert.match(torn.stderr, /warning: .*pairs\.jsonl:2: skipped the torn last line/);
    for (const r of [none, typo, damaged, torn]) assert.doesNotMatch(r.stderr, /\n\s+at /);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});
