// the end-of-run summary is honest. A judgement type turned on for a model
// whose every decision fell back to the host passes, but the summary counts the fallbacks with
// their reasons, points at `show --receipts`, and says loudly that the model answered none.

import { test } from "node:test";
import assert from "node:assert/strict";
import { startSystemOneServer, systemOneProviderToml } from "../support/systemone-server.js";
import { E2E, tickets } from "./support/harness.js";

test(
  "summary: counts decisions per mode and fallbacks with reasons; says when every decision of a turned-on type fell back",
  { timeout: 60000 },
  async () => {
    // match is turned on for s1/jev-1, which answers 500 to every package question; gate and judge stay with the host.
    const server = await startSystemOneServer({
      answer: (req) => (req.questions.package ? { status: 500, json: { detail: "model server exploded" } } : undefined),
    });
    const e = new E2E(tickets(["T1", "T2", "T3"]));
    e.host({ gate: { T1: "settled", T2: "settled", T3: "quick" } });
    try {
      const provider = systemOneProviderToml(server.url, "E2E_SUMMARY_KEY", `models = ["jev-1"]\nmax_retries = 0\ntimeout = "5s"\n`);
      const config = e.config(`${provider}\n[decisions]\nhost = "default"\n\n[decisions.types]\n"triage.match.package" = "s1/jev-1"\n`);
      const r = await e.sy(["run", e.pack, "--config", config], { E2E_SUMMARY_KEY: "sk-summary" });
      assert.equal(r.code, 0, r.out + r.err);
      const id = /run (\S+): passed/.exec(r.out)![1]!;
      // 3 match decisions (the model's type, all answered by the host), 3 gate by the host, 1 judge by the host.
      assert.match(r.out, /\ndecisions: 7 \(3 by a turned-on model, 4 by the host\)\n/);
      assert.match(r.out, new RegExp(`\\nfallbacks to the host: 3 — see \`switchyard show ${id} --receipts\`\\n  3× s1/jev-1: .*500`));
      assert.match(
        r.out,
        /\nWARNING: every decision of triage\.match\.package \(3\) fell back to the host: the model it is turned on for answered none of them\n/,
      );
      assert.match(r.out, /\nslowest: \S+ (\d+ms|[\d.]+s)/);
      assert.ok(r.out.indexOf("WARNING") < r.out.indexOf(`run ${id}: passed`), "the warning comes before the last line");

      const json = await e.sy(["resume", id, "--json"], { E2E_SUMMARY_KEY: "sk-summary" });
      assert.equal(json.code, 0, json.err);
      const summary = JSON.parse(json.out.trim().split("\n").at(-1)!);
      assert.equal(summary.type, "summary");
      assert.deepEqual(summary.fallbacks.all_fell_back, [], "a resume that asked nothing has nothing to warn about");
      assert.equal(summary.retries, 0);
    } finally {
      await server.close();
      e.cleanup();
    }
  },
);
