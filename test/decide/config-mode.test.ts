// Judgement modes (D-10) as written in the config and in --decide flags, and their precedence.

import { test } from "node:test";
import assert from "node:assert/strict";
import { parseMode, formatMode, parseModeOverride, parseModeOverrides, modeFor } from "../../src/decide/mode.js";
import { DiagnosticError } from "../../src/lang/diagnostic.js";

test("D-10: the three modes parse, and a model may contain slashes", () => {
  assert.deepEqual(parseMode("host"), { kind: "host" });
  assert.deepEqual(parseMode("shadow:local/decider-2b"), { kind: "shadow", models: [{ provider: "local", model: "decider-2b" }] });
  assert.deepEqual(parseMode("vllm/meta-llama/Llama-3.1-8B"), { kind: "model", provider: "vllm", model: "meta-llama/Llama-3.1-8B" });
  for (const text of ["host", "shadow:a/b", "a/b/c"]) {
    const m = parseMode(text);
    assert.ok(!("error" in m));
    assert.equal(formatMode(m), text);
  }
  for (const bad of ["", "shadow", "shadow:host", "local", "local/", "/m", "on:local/m", "a b/c", "local/m x"]) {
    assert.ok("error" in parseMode(bad), `"${bad}" is rejected`);
  }
});

test("D-10: --decide TYPE=MODE flags parse; later flags win; mistakes are config-bad-override / config-bad-mode", () => {
  assert.deepEqual(parseModeOverride("triage.gate.exploitable=shadow:local/m1"), {
    type: "triage.gate.exploitable",
    mode: { kind: "shadow", models: [{ provider: "local", model: "m1" }] },
  });
  assert.deepEqual(parseModeOverrides(["a.b=host", "c=local/m", "a.b=local/n"]), {
    "a.b": { kind: "model", provider: "local", model: "n" },
    c: { kind: "model", provider: "local", model: "m" },
  });
  assert.throws(
    () => parseModeOverride("triage.gate.exploitable"),
    (e: unknown) => e instanceof DiagnosticError && e.diagnostics[0]!.code === "config-bad-override",
  );
  assert.throws(
    () => parseModeOverride("=host"),
    (e: unknown) => e instanceof DiagnosticError && e.diagnostics[0]!.code === "config-bad-override",
  );
  assert.throws(
    () => parseModeOverride("a.b=shadow"),
    (e: unknown) => {
      assert.ok(e instanceof DiagnosticError);
      assert.equal(e.diagnostics[0]!.code, "config-bad-mode");
      assert.match(e.diagnostics[0]!.message, /--decide a\.b: "shadow" is not a mode/);
      return true;
    },
  );
  // Every bad flag is reported, not just the first.
  assert.throws(
    () => parseModeOverrides(["x", "a=nope"]),
    (e: unknown) => e instanceof DiagnosticError && e.diagnostics.length === 2,
  );
});

test("D-10: precedence is --decide, then [decisions.types], then [decisions] default", () => {
  const decisions = {
    default: { kind: "host" as const },
    types: { a: { kind: "model" as const, provider: "p", model: "m" }, b: { kind: "model" as const, provider: "p", model: "m" } },
  };
  const overrides = { b: { kind: "shadow" as const, models: [{ provider: "p", model: "m" }] } };
  assert.deepEqual(modeFor("a", decisions, overrides), { kind: "model", provider: "p", model: "m" });
  assert.deepEqual(modeFor("b", decisions, overrides), { kind: "shadow", models: [{ provider: "p", model: "m" }] });
  assert.deepEqual(modeFor("c", decisions, overrides), { kind: "host" });
  assert.deepEqual(modeFor("toString", decisions), { kind: "host" }, "no inherited property counts as a configured type");
});

test("H-6: a shadow mode lists one or more distinct candidates, comma-separated; each is checked for syntax", () => {
  assert.deepEqual(parseMode("shadow:a/m1,b/m2"), {
    kind: "shadow",
    models: [
      { provider: "a", model: "m1" },
      { provider: "b", model: "m2" },
    ],
  });
  // Spaces around the commas are allowed, three candidates too; the written form is canonical.
  const three = parseMode(" shadow:a/m1 , b/m2,vllm/meta-llama/Llama-3.1-8B ");
  assert.ok(!("error" in three));
  assert.equal(formatMode(three), "shadow:a/m1,b/m2,vllm/meta-llama/Llama-3.1-8B");
  const bad: Array<[string, RegExp]> = [
    ["shadow:a/m1,a/m1", /names a\/m1 twice/],
    ["shadow:a/m1, a/m1 ", /names a\/m1 twice/],
    ["shadow:a/m1,", /empty entry/],
    ["shadow:,a/m1", /empty entry/],
    ["shadow:a/m1,,b/m2", /empty entry/],
    ["shadow:a/m1,b", /"b" is not PROVIDER\/MODEL/],
    ["shadow:a/m1,b c/m", /"b c" is not a provider name/],
    ["shadow:a/m1,b/", /the model after "b\/" is empty/],
    ["a/m1,b/m2", /a turned-on mode has one; only a shadow mode lists candidates/],
  ];
  for (const [text, message] of bad) {
    const m = parseMode(text);
    assert.ok("error" in m, `"${text}" is rejected`);
    assert.match(m.error, message, text);
  }
  // Two candidates of one provider are two models; the same model name at two providers too.
  assert.ok(!("error" in parseMode("shadow:a/m1,a/m2")));
  assert.ok(!("error" in parseMode("shadow:a/m1,b/m1")));
});

test("H-6: --decide takes the same list; a mistake in it is config-bad-mode naming the flag", () => {
  assert.deepEqual(parseModeOverride("t.x=shadow:a/m1,b/m2").mode, {
    kind: "shadow",
    models: [
      { provider: "a", model: "m1" },
      { provider: "b", model: "m2" },
    ],
  });
  assert.throws(
    () => parseModeOverride("t.x=shadow:a/m1,a/m1"),
    (e: unknown) => {
      assert.ok(e instanceof DiagnosticError);
      assert.equal(e.diagnostics[0]!.code, "config-bad-mode");
      assert.match(e.diagnostics[0]!.message, /^--decide t\.x: "shadow:a\/m1,a\/m1" names a\/m1 twice/);
      return true;
    },
  );
});
