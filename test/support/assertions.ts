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
