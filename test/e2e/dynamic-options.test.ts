// Q-31, end to end through the CLI: per ticket, `match`'s options come from
// prepare.packages. A list of 65 entries, one label after dedupe, a non-identifier value,
// `uncertain` as a value, a malformed entry — each fails only its own element, before any request:
// the System One server counts requests per key and sees none for those keys, while the other
// elements are asked normally and go on down the playbook.

import { test } from "node:test";
import assert from "node:assert/strict";
import { startSystemOneServer } from "../support/systemone-server.js";
import { E2E, rows, systemOneCounts, tickets } from "./support/harness.js";

const BAD: Record<string, { options: unknown; error: RegExp }> = {
  many: {
    options: Array.from({ length: 65 }, (_, i) => `p${i}`),
    error: /prepare\.packages\["many"\] has 65 options, more than 64 \(Q-31\)/,
  },
  dedupe: {
    options: ["p1", { value: "p1", description: "again" }, "p1"],
    error: /prepare\.packages\["dedupe"\] has 1 distinct option\(s\); a choice needs at least 2 \(Q-31\)/,
  },
  ident: {
    options: [{ value: "golang.org/x/net", description: "not a label" }, "none"],
    error: /entry 0 of prepare\.packages\["ident"\] has the label "golang\.org\/x\/net", which is not an identifier/,
  },
  reserved: {
    options: ["p1", "uncertain"],
    error: /entry 1 of prepare\.packages\["reserved"\] is "uncertain", which is reserved \(Q-31\)/,
  },
  malformed: { options: ["p1", { value: 3, description: "a number" }], error: /entry 1 of prepare\.packages\["malformed"\] is malformed/ },
};

test(
  "Q-31: 65 entries, 1 after dedupe, a non-identifier, uncertain, a malformed entry — each fails only its element, before any request",
  { timeout: 60000 },
  async () => {
    // Good elements: the default answer (first label at 0.9) matches p1, then gates `settled`
    // (dropped), so they cost two decisions and no agent turn.
    const server = await startSystemOneServer();
    const packages: Record<string, unknown> = Object.fromEntries(Object.entries(BAD).map(([k, v]) => [k, v.options]));
    packages.good2 = [{ value: "a", description: "first" }, "b", "a"];
    const e = new E2E(tickets(["good1", ...Object.keys(BAD), "good2"], packages));
    try {
      const config = e.config(
        `[providers.s1]\nkind = "systemone"\nvendor = "typesafe"\nbase_url = "${server.url}"\nmodels = ["jev-1"]\nmax_retries = 0\n\n[decisions]\nhost = "default"\ndefault = "s1/jev-1"\n`,
      );
      const r = await e.sy(["run", e.pack, "--config", config]);
      assert.equal(r.code, 1, `the run fails (some match elements failed)\n${r.out}\n${r.err}`);
      const show = await e.show();

      const match = show.tasks.match!.instances!;
      for (const [key, { error }] of Object.entries(BAD)) {
        assert.equal(match[key]!.status, "failed", key);
        assert.match(match[key]!.error ?? "", error, key);
        assert.match(match[key]!.error ?? "", /^dynamic-options: /, key);
      }
      assert.deepEqual(rows(show, "match"), {
        good1: "passed",
        many: "failed",
        dedupe: "failed",
        ident: "failed",
        reserved: "failed",
        malformed: "failed",
        good2: "passed",
      });
      // The good elements went on; the failed ones block their branch (G-5) and nothing else.
      assert.deepEqual(rows(show, "gate"), {
        good1: "passed",
        many: "blocked",
        dedupe: "blocked",
        ident: "blocked",
        reserved: "blocked",
        malformed: "blocked",
        good2: "passed",
      });
      assert.deepEqual(rows(show, "quick"), {
        good1: "not_taken:settled",
        many: "blocked",
        dedupe: "blocked",
        ident: "blocked",
        reserved: "blocked",
        malformed: "blocked",
        good2: "not_taken:settled",
      });
      assert.deepEqual((match.good2!.output as { package: { label: string; options: unknown } }).package, {
        ...(match.good2!.output as { package: object }).package,
        label: "a",
        options: [
          { value: "a", description: "first" },
          { value: "b", description: "" },
        ],
      });

      // Before any request: no `package` request for the bad keys, one for each good key. (`judge`
      // has a settled join, so per G-6 it still runs — and asks — for the bad keys, whose quick and
      // deep are blocked rather than not taken.)
      const counts = systemOneCounts(server.requests);
      const asked = (q: string) => Object.fromEntries(Object.entries(counts).filter(([k]) => k.startsWith(`${q}:`)));
      assert.deepEqual(asked("package"), { "package:good1": 1, "package:good2": 1 });
      assert.deepEqual(asked("depth"), { "depth:good1": 1, "depth:good2": 1 });
      assert.deepEqual(asked("supported"), Object.fromEntries(Object.keys(BAD).map((k) => [`supported:${k}`, 1])));
      assert.deepEqual(rows(show, "judge"), {
        good1: "not_taken:settled",
        many: "passed",
        dedupe: "passed",
        ident: "passed",
        reserved: "passed",
        malformed: "passed",
        good2: "not_taken:settled",
      });
      assert.deepEqual(e.hostCalls(), []);
    } finally {
      await server.close();
      e.cleanup();
    }
  },
);
