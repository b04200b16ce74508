// The library API's error codes (docs/api.md), for `switchyard explain` and docs/errors.md.

import type { CodeEntry } from "../lang/diagnostic.js";

/** Every code the library API throws with, and what each means. */
export const API_CODES: CodeEntry[] = [
  {
    code: "api-option-invalid",
    summary: "an option given to the library API is out of range or names nothing",
    explain:
      "The message names the option and what it takes: `concurrency` and `decisionConcurrency` are whole numbers of at least 1, `maxDurationSeconds` and `budgetUsd` are numbers of at least 0, each `decisions` mode is `host`, `PROVIDER/MODEL` or `shadow:PROVIDER/MODEL`, a runner is a function and a provider an object with a `decide` method, and every agent task's runner is given in `runners` or the machine config's `[agents.NAME]` (docs/api.md). Nothing was admitted or run.",
    usage: true,
  },
];
