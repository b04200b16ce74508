// The README's run command on a clone-like folder: `npm start` in a copy of the repository's
// package.json, bin/ and examples/ (dist/ and node_modules/ linked, as `npm install` would have
// built them), so the run's state lands in that folder's fresh .switchyard/. Asserts what a
// newcomer is promised: the run passes, settled tickets cost no agent turn, the lab has pairs, and
// the output names the run and what to try next.
import { test } from "node:test";
import assert from "node:assert/strict";
import { cpSync, existsSync, mkdtempSync, rmSync, symlinkSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { spawnSync } from "node:child_process";

const ROOT = process.cwd();

interface ShownInstance {
  status: string;
  label?: string;
  output?: Record<string, { label: string; mode: string }> | null;
}
interface Shown {
  run: string;
  status: string;
  tasks: Record<string, { status: string; summary?: { not_taken: number; passed: number }; instances?: Record<string, ShownInstance> }>;
}

function cloneLike(): string {
  const dir = mkdtempSync(join(tmpdir(), "sy-clone-"));
  for (const p of ["package.json", "bin", "examples"]) cpSync(join(ROOT, p), join(dir, p), { recursive: true });
  for (const p of ["dist", "node_modules"]) symlinkSync(join(ROOT, p), join(dir, p), "dir");
  return dir;
}

function env(dir: string): NodeJS.ProcessEnv {
  const e: NodeJS.ProcessEnv = { ...process.env, XDG_CONFIG_HOME: join(dir, "xdg") };
  delete e.SWITCHYARD_HOME;
  return e;
}

test("`npm start` on a fresh clone runs the CVE triage example to `passed`, gating per ticket, with lab pairs", () => {
  const dir = cloneLike();
  try {
    // The timeout bounds a hang; it is no speed target (on a loaded machine the example takes minutes).
    const start = spawnSync("npm", ["start", "--silent"], { cwd: dir, env: env(dir), encoding: "utf8", timeout: 900_000 });
    assert.equal(start.status, 0, `npm start failed:\n${start.stdout}\n${start.stderr}`);
    const out = start.stdout;
    const id = /run (\d{8}-\d{6}-[0-9a-f]+): passed/.exec(out)?.[1];
    assert.ok(id, `the output names the run and says it passed:\n${out.slice(-2000)}`);
    assert.match(out, /not_taken/, "the summary has a not_taken column");
    // 4 agent tasks x 40 tickets could have been 160 turns; the decisions let 32 through.
    assert.match(out, /\nagent turns: 32 taken, 128 not taken, after 87 route answers\n/, "the summary says what the decisions saved");
    assert.match(out, /What next:/);
    for (const next of ["switchyard show latest", "switchyard lab harvest", "docs/getting-started.md"])
      assert.ok(out.includes(next), `says to try ${next}`);
    assert.ok(existsSync(join(dir, ".switchyard", "switchyard.db")), "the state is in the folder it ran from");

    const cli = (...args: string[]) =>
      spawnSync(process.execPath, [join(dir, "bin", "switchyard.js"), ...args], { cwd: dir, env: env(dir), encoding: "utf8" });
    const show = cli("show", "latest", "--json");
    assert.equal(show.status, 0, show.stderr);
    const shown = JSON.parse(show.stdout) as Shown;
    assert.equal(shown.run, id);
    assert.equal(shown.status, "passed");
    const status = (task: string, key: string) => shown.tasks[task].instances![key];

    // Settled by its facts: two decisions (match, gate), no agent turn; untaken to the leaves (G-5, G-6).
    const settled = "CVE-2023-45283";
    assert.equal(status("match", settled).status, "passed");
    assert.equal(status("match", settled).output!.package.mode, "model", "match is turned on");
    assert.equal(status("gate", settled).output!.depth.label, "settled");
    assert.equal(
      status("gate", settled).output!.depth.mode,
      "model",
      "gate is turned on, with the calibration fitted from the example's lab",
    );
    for (const task of ["review", "quick", "deep", "judge", "recheck"])
      assert.equal(status(task, settled).status, "not_taken", `${task}[${settled}]`);
    for (const task of ["quick", "deep", "judge", "recheck"])
      assert.equal(status(task, settled).label, "settled", `${task}[${settled}] closed by "settled"`);

    // A quick look: quick runs, deep is not taken, the host judge says the evidence does not hold, recheck runs.
    const quick = "CVE-2023-26125";
    assert.deepEqual(
      ["review", "quick", "deep", "judge", "recheck"].map((t) => status(t, quick).status),
      ["not_taken", "passed", "not_taken", "passed", "passed"],
    );
    assert.equal(status("judge", quick).output!.supported.mode, "shadow", "judge runs in shadow: the host decides");

    // An uncertain match: only the hand review runs; everything below the gate is not taken.
    const unsure = "CVE-2023-45853";
    assert.equal(status("match", unsure).output!.package.label, "uncertain");
    assert.deepEqual(
      ["review", "gate", "quick", "deep", "judge", "recheck"].map((t) => status(t, unsure).status),
      ["passed", "not_taken", "not_taken", "not_taken", "not_taken", "not_taken"],
    );

    for (const t of ["review", "quick", "deep", "judge", "recheck"])
      assert.ok(shown.tasks[t].summary!.not_taken > 0, `${t} has not-taken tickets`);

    // A reader that stops early (`| head`) is not an error: no EPIPE stack trace.
    const piped = spawnSync(
      "sh",
      ["-c", `"${process.execPath}" "${join(dir, "bin", "switchyard.js")}" show latest --json | head -c 100 >/dev/null`],
      { cwd: dir, env: env(dir), encoding: "utf8" },
    );
    assert.equal(piped.stderr, "", "show | head prints nothing on stderr");

    const harvest = cli("lab", "harvest", "--json");
    assert.equal(harvest.status, 0, harvest.stderr);
    const h = JSON.parse(harvest.stdout) as {
      lines: number;
      types: Array<{ type: string; pairs: number; audit: { pairs: number } | null }>;
    };
    const judge = h.types.find((t) => t.type === "triage.judge.supported");
    assert.ok(judge && judge.pairs > 0, "the shadow route left pairs in the lab");
    const gate = h.types.find((t) => t.type === "triage.gate.depth");
    assert.ok(gate && gate.pairs === 0 && gate.audit && gate.audit.pairs > 0, "the audited route left audit pairs only");
    assert.equal(h.types.length, 2, "only the shadow and the audited type record pairs");
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});
