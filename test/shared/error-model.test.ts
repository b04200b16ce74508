// One error base (code, message, hint, pos, cause) that every layer's errors
// subclass with one constructor shape; messages that never repeat their code (the renderer adds
// it, once); exit codes decided by class in one table, not by testing strings.
import { test } from "node:test";
import assert from "node:assert/strict";
import { readdirSync, readFileSync, statSync } from "node:fs";
import { join } from "node:path";
import { CodedError, codedText } from "../../src/shared/coded-error.js";
import { CommandFailed, UsageError, renderError } from "../../src/cli/common.js";
import { EXIT_FAILED, EXIT_USAGE, exitForDiagnostics, exitStatus } from "../../src/cli/exit-codes.js";
import { StateFolderError } from "../../src/cli/state-discovery.js";
import { DiagnosticError, errorAt } from "../../src/lang/diagnostic.js";
import { StarError } from "../../src/lang/values.js";
import { LabError } from "../../src/lab/store.js";
import { PairsFileError } from "../../src/lab/pairs-reader.js";
import { ProviderError } from "../../src/decide/provider.js";
import { TransportError } from "../../src/decide/http.js";
import { DecisionLayerRefused, RunNotFound, RunRefused } from "../../src/run/store/run-refused.js";
import { RerunError } from "../../src/run/engine/rerun.js";
import { KeyError } from "../../src/run/engine/keys.js";
import { InputError } from "../../src/run/engine/instance-input.js";
import { OptionsError } from "../../src/run/kinds/dynamic-options.js";
import { RouteError } from "../../src/run/kinds/route.js";
import { UntrustedFileError } from "../../src/run/process/untrusted-file.js";
import { SnapshotError } from "../../src/run/engine/snapshot.js";
import { StorageFault } from "../../src/run/store/storage-fault.js";
import { DecisionFailure } from "../../src/run/kinds/judge.js";

const pos = { file: "p.star", line: 3, col: 7 };
const cause = new Error("underneath");

test("every layer's error is a CodedError built as (code, message, {hint, pos, cause})", () => {
  const made: CodedError[] = [
    new StarError("key-error", "key 1 not in dict", { hint: "h", pos, cause }),
    new LabError("lab-none", "no labs", { hint: "h", pos, cause }),
    new PairsFileError("lab-invalid-pair", "line 2 is bad", { file: "pairs.jsonl", line: 2, hint: "h", pos, cause }),
    new ProviderError("decision-failed", "the server said no", { retryable: true, hint: "h", pos, cause }),
    new TransportError("ETIMEDOUT", "no response", { hint: "h", pos, cause }),
    new RunRefused("run-busy", "run r is being executed", { hint: "h", pos, cause }),
    new RunNotFound("unknown-run", "no run r", { hint: "h", pos, cause }),
    new DecisionLayerRefused("preflight", "refused", { hint: "h", pos, cause }),
    new RerunError("usage", "no task t", { hint: "h", pos, cause }),
    new KeyError("bad-element", "element 1 is an object", { hint: "h", pos, cause }),
    new InputError("keyed-missing", "no entry", { hint: "h", pos, cause }),
    new OptionsError("dynamic-options", "not a list", { hint: "h", pos, cause }),
    new RouteError("route-source-missing", "no label", { hint: "h", pos, cause }),
    new UntrustedFileError("file-rejected", "a FIFO", { hint: "h", pos, cause }),
    new SnapshotError("pack-too-large", "51 MB", { hint: "h", pos, cause }),
    new StorageFault("state-corrupt", "cannot be read", { systemCode: "SQLITE_CORRUPT", hint: "h", pos, cause }),
    new DecisionFailure("host-failed", "the host did not answer", { hint: "h", pos, cause }),
    new UsageError("usage", "--limit must be a number", { hint: "h", pos, cause }),
    new CommandFailed("failed", "the check failed", { hint: "h", pos, cause }),
    new StateFolderError("state-folder", "cannot be made", { hint: "h", pos, cause }),
  ];
  for (const e of made) {
    assert.ok(e instanceof CodedError && e instanceof Error, e.constructor.name);
    assert.deepEqual([e.hint, e.pos, e.cause], ["h", pos, cause], e.constructor.name);
    assert.ok(!e.message.startsWith(`${e.code}:`), `${e.constructor.name}: ${e.message}`);
  }
  assert.equal(new ProviderError("decision-failed", "x").retryable, false);
  // A list of diagnostics is one error too: its code, hint and position are the first one's.
  const d = new DiagnosticError([errorAt("config-bad-value", "bad", pos, "fix it"), errorAt("config-syntax", "worse")]);
  assert.deepEqual([d instanceof CodedError, d.code, d.hint, d.pos], [true, "config-bad-value", "fix it", pos]);
  assert.equal(codedText(new KeyError("duplicate-key", "element 2 repeats a")), "duplicate-key: element 2 repeats a");
});

test("the exit status is decided by the error's class, a subclass before its base", () => {
  assert.equal(exitStatus(new UsageError("usage", "x")), EXIT_USAGE);
  assert.equal(exitStatus(new StateFolderError("state-folder", "x")), EXIT_USAGE);
  assert.equal(exitStatus(new RerunError("usage", "x")), EXIT_USAGE);
  assert.equal(exitStatus(new LabError("lab-unknown", "x")), EXIT_USAGE);
  assert.equal(exitStatus(new RunNotFound("unknown-run", "x")), EXIT_USAGE);
  assert.equal(exitStatus(new DecisionLayerRefused("no-judge", "x")), EXIT_USAGE);
  assert.equal(exitStatus(new RunRefused("run-busy", "x")), EXIT_FAILED);
  assert.equal(exitStatus(new SnapshotError("pack-too-large", "x")), EXIT_FAILED);
  assert.equal(exitStatus(new StorageFault("state-unwritable", "x", { systemCode: "SQLITE_FULL" })), EXIT_FAILED);
  assert.equal(exitStatus(new CommandFailed("failed", "x")), EXIT_FAILED);
  // Diagnostics: usage when a code's catalog entry says so (a wrong path, any machine-config code).
  assert.equal(exitStatus(new DiagnosticError(errorAt("config-syntax", "x"))), EXIT_USAGE);
  assert.equal(exitStatus(new DiagnosticError(errorAt("key-error", "x"))), EXIT_FAILED);
  assert.equal(exitForDiagnostics([errorAt("unknown-playbook", "x"), errorAt("dependency-cycle", "y")]), EXIT_USAGE);
  assert.equal(exitForDiagnostics([errorAt("dependency-cycle", "y")]), EXIT_FAILED);
  // An error of no class in the table is a bug (the CLI prints its stack and exits 70).
  assert.equal(exitStatus(new Error("x")), undefined);
  assert.equal(exitStatus(new StarError("key-error", "x")), undefined);
});

test("the renderer adds the code once; generic codes are not shown", () => {
  assert.equal(
    renderError(new RunRefused("run-busy", "run r is being executed by process 7", { hint: "wait" })),
    "switchyard: error[run-busy]: run r is being executed by process 7\nhelp: wait\n",
  );
  assert.equal(renderError(new UsageError("usage", "--limit must be a number")), "switchyard: error: --limit must be a number\n");
  assert.equal(renderError(new CommandFailed("failed", "drift: agreement dropped")), "switchyard: drift: agreement dropped\n");
  assert.equal(
    renderError(new PairsFileError("lab-invalid-pair", "line 2 is bad", { file: "p.jsonl", line: 2 })),
    "switchyard: p.jsonl:2: error[lab-invalid-pair]: line 2 is bad\n",
  );
});

function sources(dir: string, out: string[] = []): string[] {
  for (const name of readdirSync(dir).sort()) {
    const p = join(dir, name);
    if (statSync(p).isDirectory()) sources(p, out);
    else if (name.endsWith(".ts")) out.push(p);
  }
  return out;
}

test("no message repeats its code, and no exit status is chosen by testing a code's text", () => {
  const repeats: string[] = [];
  const prefixTests: string[] = [];
  // new SomeError("code", `code: …`) and failedOutcome("code", `code: …`): the code twice.
  const REPEAT = /\b(?:new \w+|failedOutcome)\(\s*"([a-z]+(?:-[a-z]+)*)",\s*[`"]\1: /g;
  for (const file of sources("src")) {
    const text = readFileSync(file, "utf8");
    for (const m of text.matchAll(REPEAT)) repeats.push(`${file}: ${m[0]}`);
    if (file.startsWith(join("src", "cli")) && /\.code\.startsWith\(/.test(text)) prefixTests.push(file);
  }
  assert.deepEqual(repeats, []);
  assert.deepEqual(prefixTests, [], "decide exit codes in src/cli/exit-codes.ts, by class");
});
