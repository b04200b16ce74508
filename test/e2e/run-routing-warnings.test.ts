// D-50: `run` warns at its start, as `config check PACK` does (one implementation), about a
// config entry no question of the playbook asks and about a question whose type has no entry
// while the config routes other types. Known answers: the appendix playbook asks
// triage.match.package, triage.gate.depth and triage.judge.supported; the config routes only a
// misspelt "triage.match.pakage".

import { test } from "node:test";
import assert from "node:assert/strict";
import { E2E, tickets } from "./support/harness.js";

test("D-50: run warns at start on a routed type no question asks and on the asked type it was meant for", { timeout: 60000 }, async () => {
  const e = new E2E(tickets(["T1"]));
  e.host({ gate: { T1: "settled" } });
  try {
    const config = e.config(`[decisions]\nhost = "default"\n\n[decisions.types]\n"triage.match.pakage" = "host"\n`);
    const r = await e.sy(["run", e.pack, "--config", config, "-q"]);
    assert.equal(r.code, 0, r.out + r.err);
    const warnings = r.err.split("\n").filter((l) => /warning\[config-/.test(l));
    assert.deepEqual(
      warnings.map((l) => /warning\[(config-[a-z-]+)\]: judgement type "([^"]+)"/.exec(l)?.slice(1, 3)),
      [
        // Those without a place in the file first, then those at a line of it. gate.depth and
        // judge.supported are left to the default with no entry looking meant for them: no warning.
        ["config-unrouted-type", "triage.match.package"],
        ["config-undeclared-type", "triage.match.pakage"],
      ],
    );
    assert.match(
      r.err,
      /config\.toml:\d+:1: warning\[config-undeclared-type\]: judgement type "triage\.match\.pakage" is routed by \[decisions\.types\] but no question of playbook triage asks it \(likely a typo; did you mean "triage\.match\.package"\?\)/,
    );
    assert.match(
      r.err,
      /"triage\.match\.package" \(asked by triage\) has no entry in \[decisions\.types\]: its decisions go to the default, host; the entry "triage\.match\.pakage" looks like it was meant for it\nhelp: correct "triage\.match\.pakage" to "triage\.match\.package"/,
    );
    // A config that routes nothing (every type to the default) warns about nothing.
    const plain = await e.sy(["run", e.pack, "--config", e.config(`[decisions]\nhost = "default"\n`), "-q"]);
    assert.equal(plain.code, 0, plain.err);
    assert.doesNotMatch(plain.err, /warning\[config-/);
  } finally {
    e.cleanup();
  }
});
