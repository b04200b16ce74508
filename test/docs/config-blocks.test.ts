// The machine config getting-started.md tells people to write is one switchyard accepts for the
// example pack (D-50): `switchyard config check` passes it with the keys' variables set and the
// agent CLIs it names installed (fakes with the real names on PATH).
import { test } from "node:test";
import assert from "node:assert/strict";
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fencedBlocks } from "./blocks.js";
import { fakeAgentBin } from "../support/fake-agent-bin.js";
import { spawnCliInProcess } from "../support/cli-in-process.js";

test("D-50: the machine config in docs/getting-started.md passes `config check examples/cve-triage`", async () => {
  const blocks = fencedBlocks("docs/getting-started.md", readFileSync("docs/getting-started.md", "utf8")).filter((b) => b.lang === "toml");
  assert.ok(blocks.length >= 1, "getting-started.md shows a machine config");
  const dir = mkdtempSync(join(tmpdir(), "sy-config-"));
  try {
    for (const b of blocks) {
      const file = join(dir, `config-${b.line}.toml`);
      writeFileSync(file, b.text);
      const vars = [...b.text.matchAll(/api_key_env\s*=\s*"([A-Z_][A-Z0-9_]*)"/g)].map((m) => m[1]);
      const env = {
        ...process.env,
        PATH: `${fakeAgentBin(dir)}:${process.env.PATH}`,
        ...Object.fromEntries(vars.map((v) => [v, "not-a-real-key"])),
      };
      const r = await spawnCliInProcess(["config", "check", "examples/cve-triage", "--config", file], { env });
      assert.equal(r.status, 0, `docs/getting-started.md:${b.line}: ${r.stdout}${r.stderr}`);
      assert.doesNotMatch(r.stderr, /error\[|warning\[/, `docs/getting-started.md:${b.line}: ${r.stderr}`);
      assert.match(r.stdout, /^ok$/m);
    }
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});
