// Files commands and agents leave are untrusted, and no output is a poison
// pill. A FIFO, a symlink to /dev/zero, a symlink out of the workspace, an oversized file, text
// that is not UTF-8, JSON nested 100,000 deep and integers beyond 2^53 each fail only their own
// element, with a code naming the problem, as $SWITCHYARD_OUTPUT, as $SWITCHYARD_USAGE and as an
// agent's `files`; the run goes on, and resuming it is not poisoned. HTTP providers' replies and
// the machine config are capped and refused likewise.

import { test } from "node:test";
import assert from "node:assert/strict";
import { spawnSync } from "node:child_process";
import { createServer } from "node:http";
import { execFileSync } from "node:child_process";
import type { AddressInfo } from "node:net";
import { agent, command, harness, mapped, plan, ref, resumePlan, runPlan, runner, evaluate, TempDir } from "../run/helpers.js";
import { createProvider } from "../../src/decide/providers/index.js";
import { choiceQ, providerConfig, providerRequest } from "../support/decide-fixtures.js";
import { failure } from "../support/assertions.js";
import { SqliteStore } from "../../src/run/index.js";

const NESTED = `awk 'BEGIN{printf "{\\"a\\":"; for(i=0;i<100000;i++) printf "["; for(i=0;i<100000;i++) printf "]"; printf "}"}'`;

/** What each element's command leaves at $SWITCHYARD_OUTPUT (`out` is $SWITCHYARD_OUTPUT). */
const OUTPUTS: Record<string, string> = {
  fifo: `mkfifo "$out"`,
  zero: `ln -s /dev/zero "$out"`,
  escape: `ln -s /etc/passwd "$out"`,
  dangling: `ln -s "$PWD/nothing" "$out"`,
  big: `head -c 2000000 /dev/zero | tr '\\0' ' ' > "$out"`,
  nested: `${NESTED} > "$out"`,
  bigint: `printf '{"n": 9007199254740993}' > "$out"`,
  latin1: `printf '{"a": "caf\\351"}' > "$out"`,
  // These pass:
  linked: `printf '{"a": 1}' > mine.json && ln -s "$PWD/mine.json" "$out"`,
  bom: `printf '\\357\\273\\277{"a": 2}' > "$out"`,
  exact: `printf '{"n": 9007199254740991, "f": 1e300, "s": "12345678901234567890123"}' > "$out"`,
};

for (const directSpawn of [false, true])
  test(
    `hostile $SWITCHYARD_OUTPUT files fail only their element, with a code; resume is not poisoned (${directSpawn ? "spawned directly" : "launcher shells"})`,
    { timeout: 60000 },
    async () => {
      const h = harness();
      try {
        const keys = Object.keys(OUTPUTS);
        const script = `out="$SWITCHYARD_OUTPUT"; case "$SWITCHYARD_KEY" in ${keys.map((k) => `${k}) ${OUTPUTS[k]} ;;`).join(" ")} esac`;
        const p = plan([
          evaluate("prepare", { emits: { members: "list" } }),
          command("emit", script, { depends_on: ["prepare"], ...mapped(ref("prepare", "members")) }),
          evaluate("after", { depends_on: ["emit"], join: "settled" }),
        ]);
        const { run, show } = await runPlan(h, p, {
          fns: { prepare: () => ({ members: keys }), after: () => ({ ok: true }) },
          maxFileBytes: 1024 * 1024,
          directSpawn,
        });
        const inst = show.tasks.emit!.instances!;
        const err = (k: string) => inst[k]!.error ?? "";
        assert.match(err("fifo"), /^file-rejected: the command's \$SWITCHYARD_OUTPUT is a FIFO; write a regular file$/);
        assert.match(
          err("zero"),
          /^file-rejected: the command's \$SWITCHYARD_OUTPUT resolves to \/dev\/zero, outside the instance's workspace/,
        );
        assert.match(
          err("escape"),
          /^file-rejected: .* resolves to \/etc\/passwd, outside the instance's workspace; the engine reads only files inside the workspace/,
        );
        assert.match(err("dangling"), /^file-rejected: .* is a symbolic link to nothing/);
        assert.match(
          err("big"),
          /^file-rejected: the command's \$SWITCHYARD_OUTPUT is 2000000 bytes, more than the limit of 1 MB; write less, or raise the limit with SWITCHYARD_MAX_FILE_MB/,
        );
        assert.match(
          err("nested"),
          /^output-invalid: what the command wrote to \$SWITCHYARD_OUTPUT nests arrays and objects more than 256 deep, the limit/,
        );
        assert.match(
          err("bigint"),
          /^output-invalid: .* holds the integer 9007199254740993, beyond 2\^53 \(9007199254740991\).*write it as a string/,
        );
        assert.match(err("latin1"), /^output-invalid: .* is not valid UTF-8 text/);
        assert.equal(inst.linked!.status, "passed");
        assert.deepEqual(inst.linked!.output, { a: 1 });
        assert.deepEqual(inst.bom!.output, { a: 2 });
        assert.deepEqual(inst.exact!.output, { n: 9007199254740991, f: 1e300, s: "12345678901234567890123" });
        for (const k of ["fifo", "zero", "escape", "dangling", "big", "nested", "bigint", "latin1"])
          assert.equal(inst[k]!.status, "failed", k);
        assert.equal(show.tasks.after!.status, "passed");
        // Nothing of the escaping file was recorded.
        const store = new SqliteStore(h.state);
        for (const e of store.events(run))
          assert.ok(!JSON.stringify(e.payload).includes("root:"), "the content of /etc/passwd was recorded");
        store.close();
        // Resuming the run re-runs the failed elements and fails them the same way, without crashing.
        const again = await resumePlan(h, run, {
          fns: { prepare: () => ({ members: keys }), after: () => ({ ok: true }) },
          maxFileBytes: 1024 * 1024,
          directSpawn,
        });
        assert.equal(again.outcome.status, "failed");
        assert.match(again.show.tasks.emit!.instances!.nested!.error ?? "", /more than 256 deep/);
      } finally {
        h.store.close();
        h.dir.cleanup();
      }
    },
  );

test(
  "an agent's files and $SWITCHYARD_USAGE: FIFO, /dev/zero, escaping symlinks and symlinked folders are refused",
  { timeout: 60000 },
  async () => {
    const h = harness();
    try {
      const agentScript = h.dir.file(
        "agent.sh",
        `#!/bin/sh
cat > /dev/null
case "$SWITCHYARD_KEY" in
  fifo) mkfifo NOTE.txt ;;
  zero) ln -s /dev/zero NOTE.txt ;;
  escape) ln -s /etc/hostname NOTE.txt ;;
  folder) echo ok > NOTE.txt; ln -s /etc sub ;;
  usage) echo ok > NOTE.txt; mkfifo "$SWITCHYARD_USAGE" ;;
  usagezero) echo ok > NOTE.txt; ln -s /dev/zero "$SWITCHYARD_USAGE" ;;
  nestedjson) echo ok > NOTE.txt; ${NESTED} > data.json ;;
  fine) echo ok > NOTE.txt; mkdir -p sub; echo '{}' > data.json; printf '{"cost_usd": 0.25}' > "$SWITCHYARD_USAGE" ;;
esac
[ -e data.json ] || echo '{}' > data.json
[ -e sub ] || mkdir sub
[ -e sub/hostname ] || echo here > sub/hostname
`,
        0o755,
      );
      const keys = ["fifo", "zero", "escape", "folder", "usage", "usagezero", "nestedjson", "fine"];
      const p = plan([
        evaluate("prepare", { emits: { members: "list" } }),
        agent("look", "look at {{key}}", {
          depends_on: ["prepare"],
          ...mapped(ref("prepare", "members")),
          files: ["NOTE.txt", "data.json", "sub/hostname"],
        }),
      ]);
      const { show } = await runPlan(h, p, { fns: { prepare: () => ({ members: keys }) }, agentRunners: runner("default", [agentScript]) });
      const inst = show.tasks.look!.instances!;
      const err = (k: string) => inst[k]!.error ?? "";
      assert.match(err("fifo"), /^file-rejected: the agent's file NOTE\.txt is a FIFO/);
      assert.match(err("zero"), /^file-rejected: the agent's file NOTE\.txt resolves to \/dev\/zero, outside the instance's workspace/);
      assert.match(err("escape"), /^file-rejected: the agent's file NOTE\.txt resolves to \/etc\/hostname, outside/);
      assert.match(err("folder"), /^file-rejected: the agent's file sub\/hostname resolves to \/etc\/hostname, outside/);
      assert.match(err("usage"), /^file-rejected: \$SWITCHYARD_USAGE is a FIFO/);
      assert.match(err("usagezero"), /^file-rejected: \$SWITCHYARD_USAGE resolves to \/dev\/zero/);
      assert.match(err("nestedjson"), /^output-invalid: data\.json nests arrays and objects more than 256 deep/);
      assert.equal(inst.fine!.status, "passed", err("fine"));
      assert.deepEqual(inst.fine!.output, { files: { "NOTE.txt": "ok\n", "data.json": {}, "sub/hostname": "here\n" } });
    } finally {
      h.store.close();
      h.dir.cleanup();
    }
  },
);

test("an HTTP provider's reply larger than 16 MB is refused, not buffered whole", { timeout: 60000 }, async () => {
  let served = 0;
  const server = createServer((req, res) => {
    req.resume();
    res.writeHead(200, { "content-type": "application/json" });
    const chunk = Buffer.alloc(1024 * 1024, 32);
    let sent = 0;
    const pump = () => {
      while (sent < 40 && res.write(chunk)) sent++;
      if (sent >= 40) res.end();
      else res.once("drain", pump);
    };
    served++;
    pump();
    res.on("close", () => undefined);
  });
  await new Promise<void>((r) => server.listen(0, "127.0.0.1", r));
  try {
    const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
    for (const kind of ["openai", "systemone"] as const) {
      const p = createProvider(providerConfig(kind, { base_url: url, timeout_ms: 20000, max_retries: 0 }));
      const e = await failure(p.ask(providerRequest([choiceQ("team", { a: "", b: "" })])));
      assert.match(e.message, /larger than 16 MB, the limit/, kind);
      await p.close?.();
    }
    assert.ok(served >= 2);
  } finally {
    server.closeAllConnections();
    server.close();
  }
});

test("`config check` on a FIFO or a device says it is not a regular file instead of hanging", () => {
  const dir = new TempDir("sy-config-");
  try {
    const fifo = `${dir.path}/config.toml`;
    execFileSync("mkfifo", [fifo]);
    for (const path of [fifo, "/dev/zero"]) {
      const r = spawnSync(process.execPath, ["bin/switchyard.js", "config", "check", "--config", path], {
        encoding: "utf8",
        timeout: 20000,
      });
      assert.equal(r.status, 2, r.stderr);
      assert.match(r.stderr, new RegExp(`error\\[config-unreadable\\]: machine config ${path} cannot be read \\(it is a (FIFO|device)\\)`));
    }
  } finally {
    dir.cleanup();
  }
});
