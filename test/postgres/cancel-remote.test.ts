// R-7 across machines: `switchyard cancel` on one machine cancels a run whose owner
// executes on another machine sharing the PostgreSQL store. The owner runs in a UTS namespace of
// its own with another host name (`unshare -u`, as root), so to `cancel` it is a process on
// another machine: it must not be signalled by pid (that pid here is somebody else's), but asked
// through the store. Skipped without a test server or without `unshare`.

import { test } from "node:test";
import assert from "node:assert/strict";
import { spawn, spawnSync } from "node:child_process";
import { hostname } from "node:os";
import { join } from "node:path";
import { TempDir } from "../run/helpers.js";
import { until } from "../support/assertions.js";
import { freshPgUrl, testPg } from "../support/test-store.js";
import { openStore } from "../../src/run/index.js";

const BIN = join(process.cwd(), "bin", "switchyard.js");
const canUnshare = spawnSync("unshare", ["-u", "true"]).status === 0;
const skip = !testPg
  ? "SWITCHYARD_TEST_PG is not set (no PostgreSQL server for the tests)"
  : !canUnshare
    ? "unshare -u is not permitted here (needs root)"
    : false;

const PACK = `playbook(description = "remote cancel")
items = command(name = "items", run = """echo '{"keys": ["a", "b", "c"]}' > "$SWITCHYARD_OUTPUT" """, emits = {"keys": "list"})
slow = command(name = "slow", depends_on = [items], over = items.keys, max_fanout = 10, run = "sleep 60")
`;

test(
  "R-7: cancel from another machine reaches the owner through the store; it stops its instances and records the cancel",
  { skip, timeout: 60000 },
  async () => {
    const dir = new TempDir("sy-rcancel-");
    const url = freshPgUrl();
    try {
      dir.file("pack/main.star", PACK);
      const env = { ...process.env, SWITCHYARD_STORE: url, XDG_CONFIG_HOME: join(dir.path, "xdg") };
      const ownerState = join(dir.path, "machine-a");
      const owner = spawn(
        "unshare",
        ["-u", "sh", "-c", `hostname sy-machine-a && exec "${process.execPath}" "${BIN}" run pack --state-dir "${ownerState}"`],
        { cwd: dir.path, env, stdio: ["ignore", "pipe", "pipe"] },
      );
      let err = "";
      owner.stderr!.on("data", (b: Buffer) => (err += b.toString()));
      const exited = new Promise<number | null>((res) => owner.on("exit", (code) => res(code)));

      const store = openStore(url, join(dir.path, "reader"));
      let run = "";
      try {
        await until("three slow instances running", () => {
          run = store.latestRun() ?? "";
          return run !== "" && store.instances(run, "slow").filter((i) => i.status === "running").length === 3;
        });
      } finally {
        store.close();
      }

      const t0 = Date.now();
      const cancel = spawnSync(process.execPath, [BIN, "cancel", run, "--state-dir", join(dir.path, "machine-b")], {
        cwd: dir.path,
        env,
        encoding: "utf8",
      });
      assert.equal(cancel.status, 0, cancel.stderr);
      assert.match(cancel.stdout, new RegExp(`run ${run}: cancelled`));
      assert.ok(Date.now() - t0 < 15000, "the owner took the request within the wait");
      assert.equal(await exited, 1, err);
      assert.match(err, new RegExp(`cancelled by \`switchyard cancel\` on ${hostname()}`));

      const after = openStore(url, join(dir.path, "reader"));
      try {
        assert.equal(after.run(run)!.status, "cancelled");
        assert.deepEqual(
          after.instances(run, "slow").map((i) => i.status),
          ["pending", "pending", "pending"],
          "running instances were stopped and recorded as interrupted",
        );
        const types = [...after.events(run)].map((e) => e.type);
        assert.equal(types.filter((t) => t === "run_cancelled").length, 1);
      } finally {
        after.close();
      }
    } finally {
      dir.cleanup();
    }
  },
);
