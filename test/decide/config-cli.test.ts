// `switchyard config check [PACK]` (D-50): what it prints and returns, through the CLI's entry
// function in the test's own process (test/support/cli-in-process.ts), not a child process per
// command.

import { test, after } from "node:test";
import assert from "node:assert/strict";
import { mkdtempSync, mkdirSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { runCliInProcess } from "../support/cli-in-process.js";

const dir = mkdtempSync(join(tmpdir(), "switchyard-configcli-"));
after(() => rmSync(dir, { recursive: true, force: true }));

async function sy(args: string[], env: NodeJS.ProcessEnv = {}): Promise<{ code: number | null; stdout: string; stderr: string }> {
  return runCliInProcess(args, { env: { ...process.env, XDG_CONFIG_HOME: join(dir, "no-xdg"), LOCAL_KEY: "", ...env } });
}

const pack = join(dir, "pack");
mkdirSync(pack);
writeFileSync(
  join(pack, "main.star"),
  `playbook(description = "config check fixture")
prepare = command(name = "prepare", run = "echo", emits = {"members": "list"})
gate = route(
    name = "gate", depends_on = [prepare], over = prepare.members, max_fanout = 10,
    questions = {
        "exploitable": noul(ask = "Exploitable?", drop = ["yes", "no", "uncertain"]),
        "size": choice(ask = "Size?", options = {"s": "small", "l": "large"}, type = "triage.size", drop = ["s", "l", "uncertain"]),
    },
)
`,
);

function config(name: string, text: string): string {
  const file = join(dir, name);
  writeFileSync(file, text);
  return file;
}

const PROVIDERS = `
[providers.local]
kind = "systemone"
vendor = "mapika"
base_url = "http://127.0.0.1:8000"
api_key_env = "LOCAL_KEY"
models = ["decider-2b"]

[providers.acme]
kind = "openai"
vendor = "acme"
models = ["a1"]
`;

test("D-50: config check PACK lists each declared type's mode and warns about a routed type no playbook declares", async () => {
  const file = config(
    "typo.toml",
    `${PROVIDERS}
[decisions.types]
"main.gate.exploitable" = "shadow:local/decider-2b"
"main.gate.exploitabel" = "local/decider-2b"
`,
  );
  const r = await sy(["config", "check", pack, "--config", file], { LOCAL_KEY: "set" });
  assert.equal(r.code, 0, r.stderr);
  assert.match(r.stdout, /main\.gate\.exploitable\s+shadow:local\/decider-2b\s+\[decisions\.types\]/);
  assert.match(r.stdout, /triage\.size\s+host\s+\[decisions\] default/);
  // Without a terminal (as under most test runners), the host-mode type is also warned about.
  const noTty = /warning\[agent-preflight\]: the host answers .*"tty", but switchyard has no terminal/.test(r.stderr);
  assert.match(r.stdout, noTty ? /ok, with 2 warnings/ : /ok, with 1 warning/);
  assert.match(
    r.stderr,
    /typo\.toml:16:1: warning\[config-undeclared-type\]: judgement type "main\.gate\.exploitabel" is routed by \[decisions\.types\] but no question of pack .* asks it \(likely a typo; did you mean "main\.gate\.exploitable"\?\)/,
  );
  // triage.size is left to the default on purpose (no unused entry looks meant for it): no warning.
  assert.doesNotMatch(r.stderr, /config-unrouted-type/);

  const j = await sy(["config", "check", pack, "--config", file, "--json", "--decide", "triage.size=local/decider-2b"], {
    LOCAL_KEY: "set",
  });
  assert.equal(j.code, 0, j.stderr);
  const report = JSON.parse(j.stdout) as {
    ok: boolean;
    playbooks: string[];
    types: Array<{ type: string; mode: string; source: string; declared_by: string[] }>;
    warnings: Array<{ code: string; line: number }>;
  };
  assert.equal(report.ok, true);
  assert.deepEqual(report.playbooks, ["main"]);
  assert.deepEqual(
    report.types.find((t) => t.type === "triage.size"),
    { type: "triage.size", mode: "local/decider-2b", source: "--decide", declared_by: ["main"] },
  );
  // (agent-preflight's no-terminal warning depends on where the test runs; see above.)
  assert.deepEqual(
    report.warnings.filter((w) => w.code !== "agent-preflight" || !noTty).map((w) => [w.code, w.line]),
    [["config-undeclared-type", 16]],
  );
});

test("D-50: an invalid config exits 2 with every error at FILE:LINE:COL; --json carries them too", async () => {
  const file = config("bad.toml", `${PROVIDERS}timeout = "soon"\n\n[decisions]\ndefault = "shadow:locl/decider-2b"\n`);
  const r = await sy(["config", "check", "--config", file]);
  assert.equal(r.code, 2);
  assert.match(r.stderr, /bad\.toml:13:11: error\[config-bad-value\]: providers\.acme\.timeout "soon" is not a duration/);
  assert.match(
    r.stderr,
    /bad\.toml:16:11: error\[config-unknown-provider\]: decisions\.default = "shadow:locl\/decider-2b": no provider "locl" is configured \(did you mean "local"\?\)/,
  );
  assert.match(r.stderr, /\n16 \| default = "shadow:locl\/decider-2b"\n/);
  const j = await sy(["config", "check", "--config", file, "--json"]);
  assert.equal(j.code, 2);
  const report = JSON.parse(j.stdout) as { ok: boolean; errors: Array<{ code: string; file: string; line: number; col: number }> };
  assert.equal(report.ok, false);
  assert.deepEqual(
    report.errors.map((e) => [e.code, e.line, e.col]),
    [
      ["config-bad-value", 13, 11],
      ["config-unknown-provider", 16, 11],
    ],
  );
});

test("D-30: config check reports a type routed to a denied vendor (exit 2), and an unset key as a warning", async () => {
  const file = config(
    "deny.toml",
    `${PROVIDERS}
[decisions]
deny_vendors = ["acme"]
[decisions.types]
"main.gate.exploitable" = "acme/a1"
"triage.size" = "local/decider-2b"
`,
  );
  const r = await sy(["config", "check", "--config", file]);
  assert.equal(r.code, 2);
  assert.match(
    r.stderr,
    /deny\.toml:17:27: error\[config-denied-vendor\]: judgement type "main\.gate\.exploitable" \(\[decisions\.types\]\) is routed to acme\/a1, but provider "acme" is of vendor "acme", which \[decisions\] deny_vendors denies/,
  );
  assert.match(
    r.stderr,
    /warning\[config-key-unset\]: judgement type "triage\.size" .* \$LOCAL_KEY, where provider "local" reads its key, is not set here/,
  );
});

test("H-6: config check takes --decide TYPE=shadow:A/M1,B/M2, checks each candidate, and names a bad list", async () => {
  const file = config("two.toml", `${PROVIDERS}\n[decisions]\ndeny_vendors = ["acme"]\n`);
  const ok = await sy(["config", "check", pack, "--config", file, "--decide", "main.gate.exploitable=shadow:local/decider-2b,acme/a1"], {
    LOCAL_KEY: "set",
  });
  // The second candidate's vendor is denied: that candidate is an error of its own.
  assert.equal(ok.code, 2, ok.stderr);
  assert.match(
    ok.stderr,
    /error\[config-denied-vendor\]: judgement type "main\.gate\.exploitable" \(--decide\) is routed to shadow:local\/decider-2b,acme\/a1, but provider "acme" is of vendor "acme"/,
  );
  const unknown = await sy([
    "config",
    "check",
    "--config",
    file,
    "--decide",
    "main.gate.exploitable=shadow:local/decider-2b,locl/decider-2b",
  ]);
  assert.equal(unknown.code, 2);
  assert.match(unknown.stderr, /error\[config-unknown-provider\]: .* but no provider "locl" is configured \(did you mean "local"\?\)/);
  // The key of a provider both candidates use is warned about once.
  const both = await sy([
    "config",
    "check",
    "--config",
    config("both.toml", `${PROVIDERS.replace('models = ["decider-2b"]', 'models = ["decider-2b", "decider-3b"]')}`),
    "--decide",
    "t.x=shadow:local/decider-2b,local/decider-3b",
  ]);
  assert.equal(both.code, 0, both.stderr);
  assert.equal(both.stderr.match(/warning\[config-key-unset\]/g)?.length, 1, both.stderr);
  const twice = await sy(["config", "check", "--config", file, "--decide", "t.x=shadow:local/decider-2b,local/decider-2b"]);
  assert.equal(twice.code, 2);
  assert.match(
    twice.stderr,
    /error\[config-bad-mode\]: --decide t\.x: "shadow:local\/decider-2b,local\/decider-2b" names local\/decider-2b twice/,
  );
});

test("D-50: a missing --config is exit 2; no config file at all means every default", async () => {
  const missing = await sy(["config", "check", "--config", join(dir, "nope.toml")]);
  assert.equal(missing.code, 2);
  assert.match(missing.stderr, /error\[config-not-found\]: machine config .*nope\.toml does not exist/);
  const none = await sy(["config", "check", pack]);
  assert.equal(none.code, 0, none.stderr);
  assert.match(none.stdout, /config: \(no file; every default applies\)/);
  assert.match(none.stdout, /main\.gate\.exploitable\s+host\s+\[decisions\] default/);
  const badFlag = await sy(["config", "check", "--decide", "main.gate.exploitable"]);
  assert.equal(badFlag.code, 2);
  assert.match(badFlag.stderr, /error\[config-bad-override\]: --decide "main\.gate\.exploitable" is not TYPE=MODE/);
});

test("D-50: a pack that does not compile fails the check with exit 1", async () => {
  const broken = join(dir, "broken");
  mkdirSync(broken);
  writeFileSync(
    join(broken, "main.star"),
    `playbook(description = "x")\nprepare = command(name = "prepare", run = "echo", emits = {"members": "list"})\ngate = route(name = "gate", depends_on = [prepare], questions = {"q": noul(ask = "?")})\n`,
  );
  const r = await sy(["config", "check", broken]);
  assert.equal(r.code, 1);
  assert.match(r.stderr, /error\[uncovered-label\]/);
});
