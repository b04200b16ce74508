// The walk of docs/lab.md on the example pack, as the commands a person
// types, in order — shadow → harvest → calibrate → turn on with an audit → drift check — and the
// example's turned-on `gate` route uses a calibration fitted from its own lab (the one committed
// in examples/cve-triage/lab/ is what `lab calibrate` fits from a fresh shadow run).
import { test } from "node:test";
import assert from "node:assert/strict";
import { cpSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { spawnSync } from "node:child_process";
import { applyMap, type CalibrationFile } from "../../src/decide/calibration-map.js";
import { auditSampled } from "../../src/decide/audit.js";
import type { ShadowPair } from "../../src/decide/pair.js";
import { runCliInProcess } from "../support/cli-in-process.js";

const BIN = resolve("bin/switchyard.js");
const TYPE = "triage.gate.depth";

interface Decision {
  label: string;
  mode: string;
  confidence: number;
  raw_confidence?: number;
  calibration?: string;
  audit?: { host_label: string };
}
interface Shown {
  run: string;
  status: string;
  tasks: Record<string, { instances?: Record<string, { status: string; output?: { depth?: Decision } | null }> }>;
}

/**
 * Logs "RUN TASK KEY" for each decision the host is asked (a D-20 prompt begins "You are answering
 * one decision for switchyard (run RUN, task TASK[KEY])"), then answers as the example agent does:
 * it runs it on the same stdin. In sh, so that a call starts one Node (the example agent's), not two.
 */
const COUNTING_AGENT = `#!/bin/sh
p=$COUNT_LOG.prompt.$$
cat >"$p"
prompt=$(cat "$p"; echo .)
prompt=\${prompt%.}
exec <"$p"
rm -f "$p"
# /^You are answering one decision for switchyard \\(run ([^,]+), task ([^[)]+)(?:\\[([^\\]]*)\\])?\\)/
case $prompt in "You are answering one decision for switchyard (run "*,*)
  rest=\${prompt#"You are answering one decision for switchyard (run "}
  run=\${rest%%,*}
  rest=\${rest#*,}
  case $rest in " task "*[[\\)]*)
    rest=\${rest#" task "}
    task=\${rest%%[[\\)]*}
    rest=\${rest#"$task"}
    key= found=
    case $rest in
    ")"*) found=1 ;;
    "["*"]"*)
      key=\${rest#?}
      key=\${key%%]*}
      case \${rest#*]} in ")"*) found=1 ;; esac
      ;;
    esac
    [ -n "$run" ] && [ -n "$task" ] && [ -n "$found" ] && printf '%s %s %s\\n' "$run" "$task" "$key" >>"$COUNT_LOG"
    ;;
  esac
  ;;
esac
exec node "\${0%/*}/example-agent.mjs"
`;

test(
  "docs/lab.md walk: shadow → harvest → calibrate → turn on with an audit → drift check, on the example pack",
  { timeout: 300_000 },
  async () => {
    const dir = mkdtempSync(join(tmpdir(), "sy-walk-"));
    try {
      const pack = join(dir, "cve-triage");
      cpSync(resolve("examples/cve-triage"), pack, { recursive: true });
      const state = join(dir, "state");
      const env: NodeJS.ProcessEnv = { ...process.env, XDG_CONFIG_HOME: join(dir, "xdg") };
      delete env.SWITCHYARD_HOME;
      delete env.SWITCHYARD_CONFIG;
      // The runs as a person starts them; the lab commands and `show`, which only read what the
      // runs left, in this process (test/support/cli-in-process.ts).
      const sy = (...args: string[]) => {
        const r = spawnSync(process.execPath, [BIN, ...args, "--state-dir", state], { encoding: "utf8", env, cwd: dir });
        return { code: r.status, stdout: r.stdout, stderr: r.stderr };
      };
      const here = (...args: string[]) => runCliInProcess([...args, "--state-dir", state], { env });
      const config = join(pack, "switchyard.toml");
      const labId = (await here("lab", "new", "--note", "gate.depth in shadow")).stdout.trim();

      // 1. Shadow: the host decides gate, the model answers beside it.
      const shadowRun = sy("run", pack, "--config", config, "--decide", `${TYPE}=shadow:example/decider`);
      assert.equal(shadowRun.code, 0, shadowRun.stderr);

      // 2. Harvest: the summary line for the type, and the line to paste.
      const h1 = JSON.parse((await here("lab", "harvest", "--json")).stdout) as {
        types: Array<{ type: string; pairs: number; calibration: unknown; config_line: string | null }>;
      };
      const gate1 = h1.types.find((t) => t.type === TYPE)!;
      assert.equal(gate1.pairs, 31, "one pair per ticket the match route let through");
      assert.equal(gate1.calibration, null);
      assert.match(
        gate1.config_line ?? "",
        /^"triage\.gate\.depth" = \{ mode = "example\/decider", min_confidence = 0\.\d\d, audit = 0\.1 \}$/,
      );

      // 3. Calibrate: fitted from this lab, and the same map as the one the example ships.
      const cal = await here("lab", "calibrate", "--type", TYPE);
      assert.equal(cal.code, 0, cal.stderr);
      assert.match(cal.stdout, /triage\.gate\.depth\s+31\s+platt\s+0\.160 → 0\.0\d\d/);
      const labFolder = join(state, "labs", labId);
      const fitted = JSON.parse(readFileSync(join(labFolder, "calibration.json"), "utf8")) as CalibrationFile;
      assert.equal(fitted.lab, labId);
      assert.equal(fitted.pairs_file, "pairs.jsonl", "the pairs beside the file are named relative to it");
      const shipped = JSON.parse(readFileSync(resolve("examples/cve-triage/lab/calibration.json"), "utf8")) as CalibrationFile;
      const { id: _a, pairs: pa, ...mine } = fitted.types[TYPE]!;
      const { id: _b, pairs: pb, ...theirs } = shipped.types[TYPE]!;
      assert.deepEqual(mine, theirs, "the example's calibration is what its own lab fits");
      assert.equal(pa.count, pb.count);
      // Harvest now knows the calibration: its threshold is on the calibrated scale, and the HTML has the after diagram.
      const html = join(dir, "lab.html");
      const h2 = JSON.parse((await here("lab", "harvest", "--json", "--html", html)).stdout) as {
        types: Array<{
          type: string;
          calibration: { status: string; id: string; recommended: { threshold: number } | null } | null;
          config_line: string;
        }>;
      };
      const gate2 = h2.types.find((t) => t.type === TYPE)!;
      assert.equal(gate2.calibration?.status, "fitted");
      assert.equal(gate2.calibration?.id, fitted.types[TYPE]!.id);
      assert.ok(gate2.config_line.includes(`calibration = ${JSON.stringify(join(labFolder, "calibration.json"))}`), gate2.config_line);
      assert.match(readFileSync(html, "utf8"), /<svg class="reliability after"/);

      // 4. Turn on with an audit: the example's own line, naming the map just fitted.
      const text = readFileSync(config, "utf8");
      assert.match(
        text,
        /"triage\.gate\.depth" = \{ mode = "example\/decider", calibration = "lab\/calibration\.json", min_confidence = 0\.9, audit = 0\.25 \}/,
      );
      // The host runner counts the decisions it is asked (D-20 prompts name the run, task and key).
      writeFileSync(join(pack, "agents", "counting-agent.sh"), COUNTING_AGENT);
      writeFileSync(
        config,
        text
          .replace('calibration = "lab/calibration.json"', `calibration = ${JSON.stringify(join(labFolder, "calibration.json"))}`)
          .replace('command = ["node", "./agents/example-agent.mjs"]', 'command = ["sh", "./agents/counting-agent.sh"]'),
      );
      const asked = join(dir, "asked.log");
      env.COUNT_LOG = asked;
      const onRun = sy("run", pack, "--config", config);
      assert.equal(onRun.code, 0, onRun.stderr);
      const shown = JSON.parse((await here("show", "latest", "--json")).stdout) as Shown;
      const map = fitted.types[TYPE]!.map;
      let moved = 0;
      const decided: string[] = [];
      for (const [key, inst] of Object.entries(shown.tasks.gate!.instances!)) {
        const d = inst.output?.depth;
        if (!d) continue;
        decided.push(key);
        assert.equal(d.mode, "model", key);
        assert.equal(d.calibration, fitted.types[TYPE]!.id, key);
        assert.ok(
          typeof d.raw_confidence === "number" && Math.abs(d.confidence - applyMap(map, d.raw_confidence)) < 1e-12,
          `${key}: calibrated confidence`,
        );
        assert.equal(
          d.label === "uncertain",
          d.confidence < 0.9,
          `${key}: the machine config's 0.9 is tested on the calibrated confidence`,
        );
        if (d.raw_confidence < 0.9 && d.confidence >= 0.9) moved++;
        assert.equal(d.audit !== undefined, auditSampled(0.25, shown.run, "gate", key, "depth"), `${key}: audited exactly when sampled`);
      }
      assert.equal(decided.length, 31);
      assert.ok(moved >= 10, `the map let through ${moved} decisions whose raw confidence is under 0.9`);
      const pairs = readFileSync(join(labFolder, "pairs.jsonl"), "utf8")
        .trim()
        .split("\n")
        .map((l) => JSON.parse(l) as ShadowPair);
      const audits = pairs.filter((p) => p.kind === "audit" && p.run === shown.run);
      assert.deepEqual(
        audits.map((p) => p.key).sort(),
        decided.filter((k) => auditSampled(0.25, shown.run, "gate", k, "depth")).sort(),
        "one audit pair per sampled decision",
      );
      assert.ok(audits.length > 0);
      const hostAsked = readFileSync(asked, "utf8")
        .trim()
        .split("\n")
        .filter((l) => l.startsWith(`${shown.run} gate `))
        .map((l) => l.split(" ")[2]!);
      assert.deepEqual(
        hostAsked.sort(),
        audits.map((p) => p.key).sort(),
        "the host was asked about the sampled gate decisions, once each, and no other",
      );

      // 5. Drift check: audit agreement against this lab's shadow agreement. Which decisions are
      // audited depends on the run id (D-34 samples by a hash of it), so whether this sample's
      // agreement falls beyond chance varies from run to run: the verdict is checked against a
      // Newcombe interval (Wilson score, 95 %) computed here from the counts, exit 1 exactly on drift.
      const check = await here("lab", "harvest", "--check", "--json", "--config", config);
      const h3 = JSON.parse(check.stdout) as {
        drift: string[];
        types: Array<{
          type: string;
          calibration: { status: string } | null;
          audit: {
            answered: number;
            agreement: { agree: number };
            baseline: { source: string; answered: number; agree: number } | null;
            drift: boolean;
          } | null;
        }>;
      };
      const gate3 = h3.types.find((t) => t.type === TYPE)!;
      assert.equal(gate3.calibration?.status, "applied", "the machine config applies it");
      const audit = gate3.audit!;
      assert.equal(audit.answered, audits.length);
      assert.equal(audit.baseline?.source, "shadow");
      const drifted = newcombeHigh(audit.agreement.agree, audit.answered, audit.baseline.agree, audit.baseline.answered) < 0;
      assert.equal(audit.drift, drifted);
      assert.deepEqual(h3.drift, drifted ? [TYPE] : []);
      assert.equal(check.code, drifted ? 1 : 0, check.stderr);
      const textReport = (await here("lab", "harvest", "--config", config)).stdout;
      assert.match(textReport, /audit: \d+ answered, agreement [\d.]+% .* vs shadow 90\.3%; difference /);
      assert.match(textReport, drifted ? / — DRIFT/ : /within chance/);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  },
);

/** The upper end of the 95 % Newcombe (hybrid Wilson score) interval of k1/n1 − k2/n2. */
function newcombeHigh(k1: number, n1: number, k2: number, n2: number): number {
  const z = 1.959963984540054;
  const wilson = (k: number, n: number): [number, number] => {
    const p = k / n;
    const centre = (p + (z * z) / (2 * n)) / (1 + (z * z) / n);
    const half = (z * Math.sqrt((p * (1 - p)) / n + (z * z) / (4 * n * n))) / (1 + (z * z) / n);
    return [centre - half, centre + half];
  };
  const [, u1] = wilson(k1, n1);
  const [l2] = wilson(k2, n2);
  const p1 = k1 / n1;
  const p2 = k2 / n2;
  return p1 - p2 + Math.sqrt((u1 - p1) ** 2 + (p2 - l2) ** 2);
}
