// The machine config (D-50): loading, defaults, and every config-* error with its position.

import { test, after } from "node:test";
import assert from "node:assert/strict";
import { mkdtempSync, writeFileSync, mkdirSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { loadMachineConfig, defaultConfigPath } from "../../src/decide/config.js";
import { parseDurationMs } from "../../src/shared/primitives.js";
import { DECIDE_CODES } from "../../src/decide/codes.js";
import { DiagnosticError, formatDiagnostic, type Diagnostic } from "../../src/lang/diagnostic.js";

const dir = mkdtempSync(join(tmpdir(), "switchyard-config-"));
after(() => rmSync(dir, { recursive: true, force: true }));
let n = 0;

function write(text: string): string {
  const file = join(dir, `c${n++}.toml`);
  writeFileSync(file, text);
  return file;
}

function errorsOf(text: string): Diagnostic[] {
  const file = write(text);
  try {
    loadMachineConfig(file, {});
  } catch (err) {
    assert.ok(err instanceof DiagnosticError, `expected a DiagnosticError, got ${String(err)}`);
    for (const d of err.diagnostics) {
      assert.ok(d.code.startsWith("config-"), `code ${d.code} starts with config-`);
      assert.ok(
        DECIDE_CODES.some((c) => c.code === d.code),
        `code ${d.code} is in the catalog`,
      );
    }
    return err.diagnostics;
  }
  assert.fail("expected the config to be rejected");
}

function only(text: string, code: string): Diagnostic {
  const list = errorsOf(text);
  assert.deepEqual(
    list.map((d) => d.code),
    [code],
    list.map((d) => formatDiagnostic(d)).join("\n"),
  );
  return list[0]!;
}

const PROVIDER = `
[providers.local]
kind = "systemone"
vendor = "mapika"
base_url = "http://127.0.0.1:8000"
models = ["decider-2b", "wald-4b"]
`;

test("D-50: a complete machine config loads with every field and its defaults", () => {
  const file = write(`
[agents.claude]
command = ["claude", "-p"]
env = { MODE = "batch" }

[providers.local]
kind = "systemone"
vendor = "mapika"
base_url = "http://127.0.0.1:8000"
api_key_env = "LOCAL_KEY"
models = ["decider-2b", "meta-llama/Llama-3.1-8B"]
context_window = { "decider-2b" = 8192 }
timeout = "1m30s"
max_retries = 5

[providers.oai]
kind = "openai"
vendor = "openai"
models = ["gpt-6-luna", "gpt-4o-mini"]
logprob_models = ["gpt-4o-mini"]

[providers.mine]
kind = "command"
vendor = "us"
command = ["./decide.sh", "--fast"]
models = ["v1"]

[decisions]
default = "shadow:local/decider-2b"
deny_vendors = ["acme"]
fallback_on_refusal = true
host = "claude"

[decisions.types]
"triage.gate.exploitable" = "oai/gpt-6-luna"
"triage.match.product" = "host"
"triage.judge.severity" = "local/meta-llama/Llama-3.1-8B"
`);
  const c = loadMachineConfig(file, {});
  assert.equal(c.path, file);
  assert.deepEqual(c.agents.claude, { name: "claude", command: ["claude", "-p"], env: { MODE: "batch" } });
  assert.deepEqual(c.providers.local, {
    name: "local",
    kind: "systemone",
    vendor: "mapika",
    base_url: "http://127.0.0.1:8000",
    api_key_env: "LOCAL_KEY",
    models: ["decider-2b", "meta-llama/Llama-3.1-8B"],
    logprob_models: [],
    context_window: { "decider-2b": 8192 },
    timeout_ms: 90_000,
    max_retries: 5,
  });
  assert.equal(c.providers.oai!.timeout_ms, 30_000);
  assert.equal(c.providers.oai!.max_retries, 3);
  assert.deepEqual(c.providers.oai!.logprob_models, ["gpt-4o-mini"]);
  assert.deepEqual(c.providers.mine!.command, [join(dir, "decide.sh"), "--fast"]); // ./ is relative to the config file
  assert.deepEqual(c.decisions, {
    default: { kind: "shadow", models: [{ provider: "local", model: "decider-2b" }] },
    types: {
      "triage.gate.exploitable": { kind: "model", provider: "oai", model: "gpt-6-luna" },
      "triage.match.product": { kind: "host" },
      "triage.judge.severity": { kind: "model", provider: "local", model: "meta-llama/Llama-3.1-8B" },
    },
    deny_vendors: ["acme"],
    fallback_on_refusal: true,
    host: "claude",
  });
});

test("D-50: a missing default file means every default; XDG_CONFIG_HOME, then HOME, locate it", () => {
  const xdg = join(dir, "xdg");
  const c = loadMachineConfig(undefined, { XDG_CONFIG_HOME: xdg });
  assert.equal(c.path, undefined);
  assert.deepEqual(c.decisions.default, { kind: "host" });
  assert.equal(c.decisions.host, "tty");
  assert.deepEqual(c.providers, {});
  assert.equal(defaultConfigPath({ XDG_CONFIG_HOME: xdg }), join(xdg, "switchyard", "config.toml"));
  assert.equal(defaultConfigPath({ HOME: "/home/someone" }), "/home/someone/.config/switchyard/config.toml");

  mkdirSync(join(xdg, "switchyard"), { recursive: true });
  writeFileSync(join(xdg, "switchyard", "config.toml"), `${PROVIDER}\n[decisions]\ndefault = "local/wald-4b"\n`);
  const found = loadMachineConfig(undefined, { XDG_CONFIG_HOME: xdg });
  assert.equal(found.path, join(xdg, "switchyard", "config.toml"));
  assert.deepEqual(found.decisions.default, { kind: "model", provider: "local", model: "wald-4b" });
});

test("D-50: a missing --config file is an error (config-not-found)", () => {
  assert.throws(
    () => loadMachineConfig(join(dir, "nope.toml"), {}),
    (err: unknown) => {
      assert.ok(err instanceof DiagnosticError);
      assert.equal(err.diagnostics[0]!.code, "config-not-found");
      assert.match(err.diagnostics[0]!.message, /nope\.toml does not exist/);
      return true;
    },
  );
  assert.throws(
    () => loadMachineConfig(dir, {}),
    (err: unknown) => err instanceof DiagnosticError && err.diagnostics[0]!.code === "config-unreadable",
  );
});

test("D-50: invalid TOML is config-syntax at its line and column", () => {
  const d = only(`[decisions]\ndefault = "host\n`, "config-syntax");
  assert.equal(d.pos?.line, 2);
});

test("D-50: a key written twice names the key, its table and the earlier line, and says to replace that line", () => {
  const key = only(
    `[decisions]\nhost = "tty"\n\n[decisions.types]\n"a.b.c" = "host"\n"a.b.d" = "host"\n"a.b.c" = "host"\n`,
    "config-syntax",
  );
  assert.equal(key.message, `"a.b.c" in [decisions.types] is written twice (first on line 5): TOML allows each key and table once`);
  assert.equal(key.hint, "replace line 5 with this line (or delete this one) — a line pasted under the old one replaces nothing");
  assert.deepEqual([key.pos?.line, key.pos?.col], [7, 1]);
  // The same key in another table is not the earlier line.
  const other = only(`[agents.a]\ncommand = ["x"]\n[agents.b]\ncommand = ["y"]\ncommand = ["z"]\n`, "config-syntax");
  assert.equal(other.message, "command in [agents.b] is written twice (first on line 4): TOML allows each key and table once");
  const table = only(`[decisions]\nhost = "tty"\n[ decisions ]\n`, "config-syntax");
  assert.equal(table.message, "[decisions] is written twice (first on line 1): TOML allows each key and table once");
  assert.equal(table.hint, "move the keys under this header into the [decisions] on line 1, and delete this header");
});

test("D-50: an unquoted dotted judgement type is config-unquoted-type, with the quoted line as the fix", () => {
  const list = errorsOf(
    `[decisions]\nhost = "tty"\n[decisions.types]\ntriage.match.package = "host"\ntriage.gate.depth = { mode = "host", min_confidence = 0.8 }\n`,
  );
  assert.deepEqual(
    list.map((d) => [d.code, d.message, d.hint, d.pos?.line]),
    [
      [
        "config-unquoted-type",
        `triage.match.package = "host" in [decisions.types] has dots outside quotes, so TOML reads it as nested tables (triage → match → package), not as one judgement type`,
        `quote the whole type: "triage.match.package" = "host"`,
        4,
      ],
      [
        "config-unquoted-type",
        "triage.gate.depth = { mode = … } in [decisions.types] has dots outside quotes, so TOML reads it as nested tables (triage → gate → depth), not as one judgement type",
        `quote the whole type: "triage.gate.depth" = { mode = … }`,
        4,
      ],
    ],
  );
  // A table entry with a misspelt key is still that mistake, not this one.
  assert.equal(
    only(`[decisions.types]\n"a.b.c" = { mode = "host", min_confidense = 0.8 }\n`, "config-unknown-key").code,
    "config-unknown-key",
  );
});

test("D-50: unknown keys at every level name the key, the table, a near key and the accepted keys", () => {
  const top = only(`[decision]\ndefault = "host"\n`, "config-unknown-key");
  assert.match(top.message, /unknown key "decision" at the top level \(did you mean "decisions"\?\)/);
  assert.match(top.hint ?? "", /agents, providers, decisions/);
  assert.deepEqual([top.pos?.line, top.pos?.col], [1, 2]);

  const agent = only(`[agents.a]\ncommand = ["x"]\nenvironment = {}\n`, "config-unknown-key");
  assert.match(agent.message, /"environment" in \[agents\.a\]/);
  assert.deepEqual([agent.pos?.line, agent.pos?.col], [3, 1]);

  const prov = only(`${PROVIDER}max_retrys = 2\n`, "config-unknown-key");
  assert.match(prov.message, /"max_retrys" in \[providers\.local\] \(did you mean "max_retries"\?\)/);
  assert.match(
    prov.hint ?? "",
    /kind, vendor, base_url, api_key_env, models, logprob_models, context_window, command, protocol, timeout, max_retries/,
  );
  assert.equal(prov.pos?.line, 7);

  const dec = only(`[decisions]\nfallback_on_refusals = true\n`, "config-unknown-key");
  assert.match(dec.message, /did you mean "fallback_on_refusal"/);
  assert.deepEqual([dec.pos?.line, dec.pos?.col], [2, 1]);

  // A dotted key in a table is located too.
  const dotted = only(`[decisions]\ntypes.x = "host"\nwhat.ever = 1\n`, "config-unknown-key");
  assert.equal(dotted.pos?.line, 3);
});

test("D-50: wrong value types are config-bad-type naming the type expected", () => {
  const models = only(`[providers.p]\nkind = "openai"\nvendor = "v"\nmodels = "m1"\n`, "config-bad-type");
  assert.match(models.message, /providers\.p\.models must be an array of strings, not a string/);
  assert.deepEqual([models.pos?.line, models.pos?.col], [4, 10]);
  assert.match(only(`${PROVIDER}max_retries = "3"\n`, "config-bad-type").message, /must be an integer, not a string/);
  assert.match(only(`[decisions]\nfallback_on_refusal = "yes"\n`, "config-bad-type").message, /boolean/);
  assert.match(
    only(`[decisions.types]\n"a.b.c" = 3\n`, "config-bad-type").message,
    /decisions\.types\.(")?a\.b\.c(")? must be a mode string/,
  );
  assert.match(only(`agents = 1\n`, "config-bad-type").message, /agents must be a table, not an integer/);
  assert.match(only(`[agents.a]\ncommand = ["x"]\nenv = { A = 1 }\n`, "config-bad-type").message, /agents\.a\.env\.A must be a string/);
  const cw = only(`${PROVIDER}context_window = { "decider-2b" = "8k" }\n`, "config-bad-type");
  assert.equal(cw.pos?.line, 7);
  assert.equal(cw.pos?.col, 35);
  assert.match(only(`[decisions]\ndeny_vendors = "acme"\n`, "config-bad-type").message, /array of strings/);
});

test("D-50: required keys are config-missing-key", () => {
  assert.match(only(`[providers.p]\nvendor = "v"\nmodels = ["m"]\n`, "config-missing-key").message, /\[providers\.p\] has no "kind"/);
  assert.match(only(`[providers.p]\nkind = "openai"\nmodels = ["m"]\n`, "config-missing-key").message, /no "vendor"/);
  assert.match(only(`[providers.p]\nkind = "openai"\nvendor = "v"\n`, "config-missing-key").message, /no "models"/);
  assert.match(only(`[providers.p]\nkind = "systemone"\nvendor = "v"\nmodels = ["m"]\n`, "config-missing-key").message, /no "base_url"/);
  assert.match(only(`[providers.p]\nkind = "command"\nvendor = "v"\nmodels = ["m"]\n`, "config-missing-key").message, /no "command"/);
  const agent = only(`\n[agents.a]\nenv = {}\n`, "config-missing-key");
  assert.match(agent.message, /\[agents\.a\] has no "command"/);
  assert.equal(agent.pos?.line, 2);
});

test("D-50: values outside what is accepted are config-bad-value, saying what is accepted", () => {
  const kind = only(`[providers.p]\nkind = "sytemone"\nvendor = "v"\nmodels = ["m"]\n`, "config-bad-value");
  assert.match(kind.message, /"sytemone" is not a provider kind \(did you mean "systemone"\?\)/);
  assert.match(kind.hint ?? "", /systemone, openai, command/);
  assert.match(only(`${PROVIDER}timeout = "30 seconds"\n`, "config-bad-value").hint ?? "", /"30s", "500ms"/);
  assert.match(only(`${PROVIDER}context_window = { "decider-2b" = 0 }\n`, "config-bad-value").message, /not a positive number of tokens/);
  assert.match(only(`${PROVIDER}max_retries = 99\n`, "config-bad-value").hint ?? "", /0 to 10/);
  assert.match(only(`[providers.p]\nkind = "openai"\nvendor = "v"\nmodels = []\n`, "config-bad-value").message, /models is empty/);
  assert.match(
    only(`[providers.p]\nkind = "openai"\nvendor = "v"\nbase_url = "localhost:8000"\nmodels = ["m"]\n`, "config-bad-value").message,
    /not an http\(s\) URL/,
  );
  assert.match(only(`[agents.a]\ncommand = []\n`, "config-bad-value").message, /agents\.a\.command is empty/);
});

test("D-21: a pasted key in api_key_env is rejected without ever echoing it", () => {
  const secret = "sk-live-abcdef0123456789";
  const d = only(`[providers.p]\nkind = "openai"\nvendor = "v"\nmodels = ["m"]\napi_key_env = "${secret}"\n`, "config-bad-value");
  assert.match(d.message, /must be the NAME of an environment variable, not the key itself/);
  assert.ok(!formatDiagnostic(d).includes(secret));
  assert.ok(!formatDiagnostic(d).includes("abcdef"));
});

test("D-21: keys a provider's kind never reads are config-key-not-for-kind", () => {
  assert.match(
    only(`${PROVIDER}command = ["x"]\n`, "config-key-not-for-kind").message,
    /providers\.local\.command does not apply to kind "systemone"/,
  );
  assert.match(only(`${PROVIDER}logprob_models = ["wald-4b"]\n`, "config-key-not-for-kind").hint ?? "", /"openai"/);
  assert.match(
    only(
      `[providers.c]\nkind = "command"\nvendor = "v"\nmodels = ["m"]\ncommand = ["x"]\nbase_url = "http://x"\n`,
      "config-key-not-for-kind",
    ).message,
    /base_url/,
  );
});

test('D-21: protocol is "once" or "lines", on a command provider only', () => {
  const COMMAND = `[providers.c]\nkind = "command"\nvendor = "v"\nmodels = ["m"]\ncommand = ["x"]\n`;
  assert.equal(loadMachineConfig(write(`${COMMAND}protocol = "lines"\n`), {}).providers.c!.protocol, "lines");
  assert.equal(loadMachineConfig(write(`${COMMAND}protocol = "once"\n`), {}).providers.c!.protocol, "once");
  assert.equal(loadMachineConfig(write(COMMAND), {}).providers.c!.protocol, undefined); // the provider runs it once per request
  const bad = only(`${COMMAND}protocol = "line"\n`, "config-bad-value");
  assert.equal(bad.message, 'providers.c.protocol "line" is not a protocol (did you mean "lines"?)');
  assert.match(bad.hint ?? "", /"once" .*"lines"/);
  assert.deepEqual([bad.pos?.line, bad.pos?.col], [6, 12]);
  assert.match(only(`${COMMAND}protocol = true\n`, "config-bad-type").message, /providers\.c\.protocol must be a string, not a boolean/);
  const other = only(`${PROVIDER}protocol = "lines"\n`, "config-key-not-for-kind");
  assert.match(other.message, /providers\.local\.protocol does not apply to kind "systemone"/);
  assert.match(other.hint ?? "", /read only by kind "command"/);
  assert.deepEqual([other.pos?.line, other.pos?.col], [7, 1]);
});

test("D-10: a bad mode is config-bad-mode, at the value, listing the forms", () => {
  const d = only(`[decisions]\ndefault = "shadow"\n`, "config-bad-mode");
  assert.match(d.message, /decisions\.default/);
  assert.match(d.hint ?? "", /`host`, `review`, `shadow:PROVIDER\/MODEL\[,PROVIDER\/MODEL…\]` or `PROVIDER\/MODEL`/);
  assert.deepEqual([d.pos?.line, d.pos?.col], [2, 11]);
  const t = only(`${PROVIDER}\n[decisions.types]\n"triage.gate.x" = "model:local/wald-4b"\n`, "config-bad-mode");
  assert.match(t.message, /unknown prefix "model:"/);
  assert.deepEqual([t.pos?.line, t.pos?.col], [9, 19]);
  assert.match(only(`[decisions]\ndefault = "shadow:host"\n`, "config-bad-mode").message, /shadow mode needs a model/);
  assert.match(only(`[decisions]\ndefault = "local"\n`, "config-bad-mode").message, /PROVIDER\/MODEL/);
  assert.match(only(`[decisions]\ndefault = "local/"\n`, "config-bad-mode").message, /empty/);
});

test("H-6: a shadow mode with two candidates loads; each candidate is checked on its own, at the value", () => {
  const file = write(`${PROVIDER}\n[decisions.types]\n"a.b.c" = "shadow:local/decider-2b,local/wald-4b"\n`);
  assert.deepEqual(loadMachineConfig(file, {}).decisions.types["a.b.c"], {
    kind: "shadow",
    models: [
      { provider: "local", model: "decider-2b" },
      { provider: "local", model: "wald-4b" },
    ],
  });
  const unknown = only(`${PROVIDER}\n[decisions.types]\n"a.b.c" = "shadow:local/wald-4b,locl/decider-2b"\n`, "config-unknown-provider");
  assert.match(unknown.message, /"shadow:local\/wald-4b,locl\/decider-2b": no provider "locl" is configured \(did you mean "local"\?\)/);
  assert.deepEqual([unknown.pos?.line, unknown.pos?.col], [9, 11]);
  const unlisted = only(`${PROVIDER}\n[decisions.types]\n"a.b.c" = "shadow:local/wald-4b,local/wald-5b"\n`, "config-unlisted-model");
  assert.match(unlisted.message, /model "wald-5b" is not in providers\.local\.models \(did you mean "wald-4b"\?\)/);
  // Both candidates wrong: both reported.
  assert.deepEqual(
    errorsOf(`${PROVIDER}\n[decisions.types]\n"a.b.c" = "shadow:locl/wald-4b,local/nope"\n`).map((d) => d.code),
    ["config-unknown-provider", "config-unlisted-model"],
  );
  const twice = only(`${PROVIDER}\n[decisions.types]\n"a.b.c" = "shadow:local/wald-4b,local/wald-4b"\n`, "config-bad-mode");
  assert.match(twice.message, /decisions\.types\.(")?a\.b\.c(")?: "shadow:local\/wald-4b,local\/wald-4b" names local\/wald-4b twice/);
  assert.match(only(`${PROVIDER}\n[decisions]\ndefault = "shadow:local/wald-4b,"\n`, "config-bad-mode").message, /empty entry/);
});

test("D-10: a mode naming no configured provider is config-unknown-provider with did-you-mean", () => {
  const d = only(`${PROVIDER}\n[decisions.types]\n"a.b.c" = "shadow:locl/wald-4b"\n`, "config-unknown-provider");
  assert.match(d.message, /no provider "locl" is configured \(did you mean "local"\?\)/);
  assert.match(d.hint ?? "", /configured providers: local/);
  assert.equal(d.pos?.line, 9);
  // A provider that is written but invalid is not reported a second time as missing.
  const list = errorsOf(`[providers.local]\nkind = "systemone"\nvendor = "v"\nmodels = ["m"]\n[decisions]\ndefault = "local/m"\n`);
  assert.deepEqual(
    list.map((x) => x.code),
    ["config-missing-key"],
  );
});

test("D-30: a model not in the provider's allowlist is config-unlisted-model (mode, logprob_models, context_window)", () => {
  const d = only(`${PROVIDER}\n[decisions]\ndefault = "local/wald-5b"\n`, "config-unlisted-model");
  assert.match(d.message, /model "wald-5b" is not in providers\.local\.models \(did you mean "wald-4b"\?\)/);
  assert.match(d.hint ?? "", /listed models: decider-2b, wald-4b/);
  const lp = only(`[providers.o]\nkind = "openai"\nvendor = "v"\nmodels = ["a"]\nlogprob_models = ["b"]\n`, "config-unlisted-model");
  assert.match(lp.message, /logprob_models names model "b"/);
  const cw = only(`${PROVIDER}context_window = { "decider-2b" = 100, "wald-5b" = 100 }\n`, "config-unlisted-model");
  assert.equal(cw.pos?.col, 40);
});

test("D-20: [decisions] host must be tty or an agent runner (config-unknown-agent)", () => {
  const d = only(`[agents.claude]\ncommand = ["claude"]\n[decisions]\nhost = "claud"\n`, "config-unknown-agent");
  assert.match(d.message, /"claud" is neither "tty" nor an \[agents\.NAME\] runner \(did you mean "claude"\?\)/);
  assert.deepEqual([d.pos?.line, d.pos?.col], [4, 8]);
});

test("D-50: every problem of a file is reported at once, in file order", () => {
  const list = errorsOf(`bogus = 1\n${PROVIDER}timeout = "x"\n[decisions]\ndefault = "nope/x"\nhost = "robot"\n`);
  assert.deepEqual(
    new Set(list.map((d) => d.code)),
    new Set(["config-unknown-key", "config-bad-value", "config-unknown-provider", "config-unknown-agent"]),
  );
  assert.ok(list.every((d) => d.pos && d.pos.line > 0));
});

test("durations accept ms, s, m, h and combinations", () => {
  assert.equal(parseDurationMs("500ms"), 500);
  assert.equal(parseDurationMs("30s"), 30_000);
  assert.equal(parseDurationMs("1m30s"), 90_000);
  assert.equal(parseDurationMs("1.5s"), 1500);
  assert.equal(parseDurationMs("0s"), undefined);
  assert.equal(parseDurationMs("30"), undefined);
});

test("D-50: every code the config, mode, router (its preflight) and config-check sources emit is in the catalog, once", async () => {
  const { readFileSync } = await import("node:fs");
  const files = ["src/decide/config.ts", "src/decide/mode.ts", "src/decide/routing/preflight.ts", "src/cli/config.ts"];
  const known = new Set(DECIDE_CODES.map((c) => c.code));
  assert.equal(known.size, DECIDE_CODES.length, "no code is catalogued twice");
  for (const f of files) {
    const text = readFileSync(f, "utf8");
    const emitted = [...text.matchAll(/"(config-[a-z-]+)"/g), ...text.matchAll(/DecisionFailure\([^;]*?"([a-z-]+)"\)/g)].map((m) => m[1]);
    assert.ok(emitted.length > 0, `${f} emits codes`);
    for (const code of emitted) assert.ok(known.has(code!), `${f} emits ${code}, which is not in src/decide/codes.ts`);
  }
  for (const c of DECIDE_CODES) assert.ok(c.explain.length > 40 && c.summary.length > 10, `${c.code} is explained`);
});

test("D-50: the complete example machine config of docs/decisions.md loads", async () => {
  const { readFileSync } = await import("node:fs");
  const doc = readFileSync("docs/decisions.md", "utf8");
  const example = /### A complete example\n\n```toml\n([\s\S]*?)```/.exec(doc);
  assert.ok(example, "docs/decisions.md has the example");
  const c = loadMachineConfig(write(example[1]!), {});
  assert.deepEqual(Object.keys(c.providers), ["typesafe", "oai", "local", "inhouse"]);
  assert.equal(c.decisions.host, "claude");
  assert.deepEqual(c.decisions.types["triage.judge.supported"], {
    kind: "model",
    provider: "local",
    model: "meta-llama/Llama-3.1-8B-Instruct",
  });
  assert.equal(c.providers.inhouse!.max_retries, 0);
});

test("D-50: ./ and ../ arguments of command arrays are relative to the config file, others are kept", () => {
  const sub = join(dir, "nested");
  mkdirSync(sub, { recursive: true });
  const file = join(sub, "relative.toml");
  writeFileSync(
    file,
    `[agents.a]\ncommand = ["node", "./agents/a.mjs", "--flag", "../up.mjs", "plain/x"]\n` +
      `[providers.p]\nkind = "command"\nvendor = "v"\nmodels = ["m"]\ncommand = ["./decide"]\n`,
  );
  const config = loadMachineConfig(file, {});
  assert.deepEqual(config.agents.a!.command, ["node", join(sub, "agents/a.mjs"), "--flag", join(dir, "up.mjs"), "plain/x"]);
  assert.deepEqual(config.providers.p!.command, [join(sub, "decide")]);
});
