// Assertions shared by test files.

import assert from "node:assert/strict";

/** The error `promise` rejects with; the test fails if it resolves. */
export async function failure(promise: Promise<unknown>): Promise<Error> {
  try {
    await promise;
  } catch (e) {
    return e as Error;
  }
  assert.fail("expected a failure");
}

/** Waits (polling) until `cond` holds; fails the test after `ms`. `cond` may be asynchronous (a command run in this process). */
export async function until(what: string, cond: () => boolean | Promise<boolean>, ms = 60000): Promise<void> {
  const t0 = Date.now();
  while (!(await cond())) {
    if (Date.now() - t0 > ms) assert.fail(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 25));
  }
}
