// Key positions in TOML text, for FILE:LINE:COL in machine config errors (D-50).

import { test } from "node:test";
import assert from "node:assert/strict";
import { locateKeys } from "../../src/decide/toml-positions.js";

const at = (p: { line: number; col: number } | undefined) => (p ? [p.line, p.col] : undefined);

test("D-50: headers, dotted and quoted keys, inline tables and multi-line values are located", () => {
  const text = [
    `# a comment with = and [brackets]`, // 1
    `top = "x" # trailing`, // 2
    `[providers.local]`, // 3
    `models = [`, // 4
    `  "a", # a comment inside`, // 5
    `  "b",`, // 6
    `]`, // 7
    `note = """`, // 8
    `not_a_key = 1`, // 9
    `"""`, // 10
    `context_window = { "a" = 1, b = { c = 2 } }`, // 11
    `[decisions.types]`, // 12
    `"triage.gate.x" = 'shadow:local/a'`, // 13
    `  dotted . key = 3`, // 14
    `[[list]]`, // 15
    `item = 1`, // 16
  ].join("\n");
  const w = locateKeys(text, "c.toml");
  assert.deepEqual(at(w.key(["top"])), [2, 1]);
  assert.deepEqual(at(w.value(["top"])), [2, 7]);
  assert.deepEqual(at(w.key(["providers", "local"])), [3, 12]);
  assert.deepEqual(at(w.key(["providers", "local", "models"])), [4, 1]);
  assert.deepEqual(at(w.value(["providers", "local", "models", "1"])), [6, 3]);
  assert.equal(w.key(["providers", "local", "not_a_key"]), undefined, "text inside a multi-line string is not a key");
  assert.deepEqual(at(w.key(["providers", "local", "context_window", "a"])), [11, 20]);
  assert.deepEqual(at(w.key(["providers", "local", "context_window", "b", "c"])), [11, 35]);
  assert.deepEqual(at(w.key(["decisions", "types", "triage.gate.x"])), [13, 1]);
  assert.deepEqual(at(w.value(["decisions", "types", "triage.gate.x"])), [13, 19]);
  assert.deepEqual(at(w.key(["decisions", "types", "dotted", "key"])), [14, 12]);
  assert.deepEqual(at(w.key(["list", "item"])), [16, 1]);
  assert.equal(w.key(["nope"]), undefined);
});

test("D-50: the scanner never throws on text it cannot follow", () => {
  const w = locateKeys(`a = 1\n= broken\nb = 2\n`, "c.toml");
  assert.deepEqual(at(w.key(["a"])), [1, 1]);
  assert.equal(w.key(["b"]), undefined);
});
