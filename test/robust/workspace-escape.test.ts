// The workspace folder itself is untrusted: a command or agent that removes it and puts a
// symbolic link (or another folder) in its place fails with `workspace-replaced`, and nothing is
// read through the link — not its output, not an agent's `files`. The web view never lists or
// serves anything outside the recorded workspace, even when the folder (or one above it) is
// swapped for a link after the run recorded it. The link always goes to a folder of the test's
// own holding a known secret, never to a system folder.

import { test } from "node:test";
import assert from "node:assert/strict";
import { mkdirSync, renameSync, rmSync, symlinkSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { agent, command, evaluate, harness, mapped, plan, ref, runPlan, runner } from "../run/helpers.js";
import { keyDirName } from "../../src/run/engine/keys.js";
import { get, startUi } from "../ui/support.js";

const SECRET = "secret-4b1d9e0c-never-recorded";

/** A folder outside every workspace holding the secret (the link's target). */
function outsideFolder(root: string): string {
  const outside = join(root, "outside");
  mkdirSync(outside, { recursive: true });
  writeFileSync(join(outside, "secret.txt"), `${SECRET}\n`);
  writeFileSync(join(outside, "NOTE.txt"), `${SECRET} as a note\n`);
  return outside;
}

/** Shell: what each element does to its workspace folder (`$o` is the outside folder). */
const SWAP = `case "$SWITCHYARD_KEY" in
  link) cd /; rm -rf "$SWITCHYARD_WORKSPACE"; ln -s "$o" "$SWITCHYARD_WORKSPACE" ;;
  folder) cd /; mv "$SWITCHYARD_WORKSPACE" "$SWITCHYARD_WORKSPACE.old"; mkdir "$SWITCHYARD_WORKSPACE"; echo mine > "$SWITCHYARD_WORKSPACE/secret.txt" ;;
  removed) cd /; rm -rf "$SWITCHYARD_WORKSPACE" ;;
  fine) echo mine > secret.txt ;;
esac`;

const KEYS = ["link", "folder", "removed", "fine"];

test(
  "a command that replaces its workspace folder by a link or another folder fails with workspace-replaced",
  { timeout: 60000 },
  async () => {
    const h = harness();
    try {
      const o = outsideFolder(h.dir.path);
      const p = plan([
        evaluate("prepare", { emits: { members: "list" } }),
        command("swap", `o='${o}'\n${SWAP}\nprintf '{"ok": true}' > "$SWITCHYARD_OUTPUT"`, {
          depends_on: ["prepare"],
          emits: { ok: "bool" },
          ...mapped(ref("prepare", "members")),
        }),
      ]);
      const { run, show } = await runPlan(h, p, { fns: { prepare: () => ({ members: KEYS }) } });
      const inst = show.tasks.swap!.instances!;
      const ws = (k: string) => join(h.state, "runs", run, "work", "swap", `${keyDirName(k)}.a1`);
      assert.equal(inst.link!.status, "failed");
      assert.equal(
        inst.link!.error,
        `workspace-replaced: the instance's workspace folder ${ws("link")} was replaced by a symbolic link to ${o} while the instance ran; nothing is read from it. A command or agent must leave its workspace folder in place (work inside it)`,
      );
      assert.match(
        inst.folder!.error ?? "",
        /^workspace-replaced: the instance's workspace folder .* was replaced by another folder while/,
      );
      // A removed folder is no escape: the output beside it is read as always.
      assert.equal(inst.removed!.status, "passed", inst.removed!.error ?? "");
      assert.equal(inst.fine!.status, "passed", inst.fine!.error ?? "");
      assert.deepEqual(inst.fine!.output, { ok: true });
    } finally {
      h.store.close();
      h.dir.cleanup();
    }
  },
);

test(
  "an agent that replaces its workspace folder by a link fails with workspace-replaced and its `files` are not read through it",
  { timeout: 60000 },
  async () => {
    const h = harness();
    try {
      const o = outsideFolder(h.dir.path);
      const script = h.dir.file("agent.sh", `#!/bin/sh\ncat > /dev/null\no='${o}'\n${SWAP}\n`, 0o755);
      const p = plan([
        evaluate("prepare", { emits: { members: "list" } }),
        agent("look", "look at {{key}}", { depends_on: ["prepare"], ...mapped(ref("prepare", "members")), files: ["secret.txt"] }),
      ]);
      const { run, show } = await runPlan(h, p, { fns: { prepare: () => ({ members: KEYS }) }, agentRunners: runner("default", [script]) });
      const inst = show.tasks.look!.instances!;
      assert.match(inst.link!.error ?? "", /^workspace-replaced: the instance's workspace folder .* was replaced by a symbolic link to /);
      assert.match(inst.folder!.error ?? "", /^workspace-replaced: .* was replaced by another folder/);
      assert.match(inst.removed!.error ?? "", /^agent-file-missing: the agent did not leave secret\.txt/);
      assert.deepEqual(inst.fine!.output, { files: { "secret.txt": "mine\n" } });
      // Nothing of the secret was recorded anywhere.
      for (const e of h.store.events(run)) assert.ok(!JSON.stringify(e.payload).includes(SECRET), `${e.type} holds the secret`);
    } finally {
      h.store.close();
      h.dir.cleanup();
    }
  },
);

test(
  "the web view lists and serves nothing outside a workspace swapped for a link after the run recorded it",
  { timeout: 120000 },
  async () => {
    const h = harness();
    try {
      const o = outsideFolder(h.dir.path);
      const script = h.dir.file("agent.sh", `#!/bin/sh\ncat > /dev/null\necho "my note" > NOTE.txt\n`, 0o755);
      const p = plan([
        evaluate("prepare", { emits: { members: "list" } }),
        agent("look", "look at {{key}}", { depends_on: ["prepare"], ...mapped(ref("prepare", "members")), files: ["NOTE.txt"] }),
      ]);
      const { run, show } = await runPlan(h, p, {
        fns: { prepare: () => ({ members: ["k"] }) },
        agentRunners: runner("default", [script]),
      });
      assert.equal(show.tasks.look!.status, "passed");
      h.store.close();
      const taskDir = join(h.state, "runs", run, "work", "look");
      const ws = join(taskDir, "k.a1");
      const ui = await startUi(h.state);
      try {
        const cell = async () => {
          const r = await get(new URL(`/api/runs/${run}/cells/look?key=k`, ui.url).href);
          assert.equal(r.status, 200, r.text);
          assert.ok(!r.text.includes(SECRET), "the cell shows the secret");
          // An attempt of which nothing can be shown is left out of the cell.
          const shown = (JSON.parse(r.text) as { attempt_files: Array<{ files: Array<{ path: string }>; log_tail: string | null }> })
            .attempt_files;
          return shown[0] ?? { files: [], log_tail: null };
        };
        const file = (path: string) =>
          get(new URL(`/api/runs/${run}/cells/look/file?key=k&attempt=1&path=${encodeURIComponent(path)}`, ui.url).href);
        // As the run left it: the workspace's file is listed and served.
        assert.deepEqual(
          (await cell()).files.map((f) => f.path),
          ["NOTE.txt"],
        );
        const served = await file("NOTE.txt");
        assert.equal(served.status, 200);
        assert.match(served.text, /my note/);
        const refused = async (why: string) => {
          assert.deepEqual((await cell()).files, [], `${why}: files are listed`);
          for (const p of ["NOTE.txt", "secret.txt"]) {
            const r = await file(p);
            assert.equal(r.status, 404, `${why}: ${p} -> ${r.status} ${r.text}`);
            assert.ok(!r.text.includes(SECRET), `${why}: ${p} served the secret`);
          }
        };
        // The workspace folder itself replaced by a link to the outside folder.
        renameSync(ws, `${ws}.moved`);
        symlinkSync(o, ws);
        await refused("the workspace is a link");
        rmSync(ws);
        renameSync(`${ws}.moved`, ws);
        // A folder above it (work/TASK) replaced by a link to a look-alike holding the secret.
        const lookalike = join(o, "look");
        mkdirSync(join(lookalike, "k.a1"), { recursive: true });
        writeFileSync(join(lookalike, "k.a1", "NOTE.txt"), `${SECRET}\n`);
        writeFileSync(join(lookalike, "k.a1.log"), `${SECRET}\n`);
        renameSync(taskDir, `${taskDir}.moved`);
        symlinkSync(lookalike, taskDir);
        await refused("work/TASK is a link");
        assert.equal((await cell()).log_tail, null, "the log is read through the link");
        rmSync(taskDir);
        renameSync(`${taskDir}.moved`, taskDir);
        // The log swapped for a link to the secret.
        rmSync(`${ws}.log`);
        symlinkSync(join(o, "secret.txt"), `${ws}.log`);
        assert.equal((await cell()).log_tail, null);
        // Put back, it is all shown again (the refusals above were the links, not a broken view).
        assert.deepEqual(
          (await cell()).files.map((f) => f.path),
          ["NOTE.txt"],
        );
      } finally {
        await ui.stop();
      }
    } finally {
      h.dir.cleanup();
    }
  },
);
