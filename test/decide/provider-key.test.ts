// D-21: a provider's key is read from its environment variable at call time, trimmed, and
// blanked out of any text; known answers at the edges (unset, blank, a key of 5 and of 6 characters).

import { test } from "node:test";
import assert from "node:assert/strict";
import { authorize, readApiKey, redact } from "../../src/decide/provider-key.js";
import { ProviderError } from "../../src/decide/provider.js";
import type { ProviderConfig } from "../../src/decide/config-types.js";

const VAR = "SWITCHYARD_TEST_PROVIDER_KEY_D21";
const config = (api_key_env?: string) => ({ name: "acme", ...(api_key_env ? { api_key_env } : {}) }) as ProviderConfig;

function withEnv(value: string | undefined, body: () => void): void {
  const before = process.env[VAR];
  if (value === undefined) delete process.env[VAR];
  else process.env[VAR] = value;
  try {
    body();
  } finally {
    if (before === undefined) delete process.env[VAR];
    else process.env[VAR] = before;
  }
}

test("D-21: readApiKey is undefined without api_key_env, and the trimmed value of the variable it names", () => {
  withEnv("sk-live-123456", () => assert.equal(readApiKey(config()), undefined));
  withEnv("  sk-live-123456\n", () => assert.equal(readApiKey(config(VAR)), "sk-live-123456"));
  withEnv("k", () => assert.equal(readApiKey(config(VAR)), "k"));
});

test("D-21: readApiKey fails, naming the provider and the variable, when the variable is unset, empty or blank", () => {
  for (const value of [undefined, "", "   "]) {
    withEnv(value, () => {
      assert.throws(
        () => readApiKey(config(VAR)),
        (err: unknown) => {
          assert.ok(err instanceof ProviderError);
          assert.equal(err.code, "decision-failed");
          assert.equal(err.retryable, false);
          assert.match(err.message, new RegExp(`^provider 'acme': the environment variable ${VAR} \\(its api_key_env\\) is not set; `));
          assert.match(err.message, /export it, or remove api_key_env for a server that needs no key$/);
          return true;
        },
      );
    });
  }
});

test("D-21: redact blanks every occurrence of a key of 6 characters or more, and leaves shorter keys alone", () => {
  assert.equal(redact("a abcdef b abcdef c", "abcdef"), "a *** b *** c");
  assert.equal(redact("abcdefabcdef", "abcdef"), "******");
  assert.equal(redact("x abcde y", "abcde"), "x abcde y");
  assert.equal(redact("nothing here", "abcdef"), "nothing here");
  assert.equal(redact("text", undefined), "text");
  assert.equal(redact("text", ""), "text");
});

test("D-21: authorize sets Bearer with the trimmed key at call time, and removes the header without one", () => {
  withEnv(" sk-abc \t", () => {
    assert.deepEqual(authorize(config(VAR), { accept: "json" }), { accept: "json", authorization: "Bearer sk-abc" });
    // Without api_key_env the variable is not read, and a placeholder header is dropped.
    assert.deepEqual(authorize(config(), { authorization: "Bearer placeholder", accept: "json" }), { accept: "json" });
  });
  for (const value of [undefined, "", "  "]) {
    withEnv(value, () => {
      const headers = { authorization: "Bearer placeholder" };
      const out = authorize(config(VAR), headers);
      assert.equal(out, headers, "the same object is returned");
      assert.deepEqual(out, {});
    });
  }
});
