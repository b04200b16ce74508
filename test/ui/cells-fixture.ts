// A run made for the cell-page tests, with every answer known in advance: a route `triage` asking
// two questions (action, owner) of keys a and b, a calibrated and audited route `sev`, a revise
// loop `fix` (a accepted in round 2, b refused twice: revise-failed) and a command `broken` that
// fails every key (command-failed), and a route `lang` in shadow (the host decides, the model
// answers beside it). The decision model is a script answering from a fixed table; the host
// answers `go` to lang and `low` to the audit of sev. A lab is made first, so the pairs go to it:
// lang disagrees on a (host go, model rust) only. The plan is four tasks deep (prep, sev, urgent,
// notify): its graph is wider than a 1000 px window. A route `fate` goes to people: the run
// detaches waiting, alice answers a (with a note), bob b, and the run is resumed to its end.

import { spawnSync } from "node:child_process";
import { mkdirSync, mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { BIN } from "./support.js";

/** The decision model's probabilities, per key and question. */
export const TABLE = {
  a: {
    action: { autofix: 0.9, manual: 0.07, ignore: 0.03 },
    owner: { web: 0.45, infra: 0.55 },
    level: { low: 0.2, high: 0.8 },
    lang: { go: 0.3, rust: 0.7 },
  },
  b: {
    action: { autofix: 0.2, manual: 0.7, ignore: 0.1 },
    owner: { web: 0.8, infra: 0.2 },
    level: { low: 0.6, high: 0.4 },
    lang: { go: 0.9, rust: 0.1 },
  },
} as const;

/** The calibration map of playbook.sev.level: platt with a = 1, b = -1, i.e. σ(logit(c) − 1). */
export const CALIBRATION_ID = "cal-0123456789ab";

const PLAYBOOK = `
prep = command(name = "prep", run = "echo '{\\"ids\\": [\\"a\\", \\"b\\"]}' > $SWITCHYARD_OUTPUT", emits = {"ids": "list"})
triage = route(name = "triage", depends_on = [prep], over = prep.ids, max_fanout = 5, min_confidence = 0.6,
    questions = {
        "action": choice(ask = "What should happen to this finding?", options = {"autofix": "fix it by machine", "manual": "a person fixes it", "ignore": "leave it"}, drop = ["manual", "ignore", "uncertain"]),
        "owner": choice(ask = "Which team owns it?", options = {"web": "the web team", "infra": "the infrastructure team"}),
    })
sev = route(name = "sev", depends_on = [prep], over = prep.ids, max_fanout = 5,
    questions = {"level": choice(ask = "How severe is it?", options = {"low": "can wait", "high": "fix now"}, drop = ["low", "uncertain"])})

def check(input):
    done = input["key"] == "a" and input["round"] >= 2
    return {"verdict": "accept" if done else "revise", "feedback": "round " + str(input["round"]) + ": name the owner"}

fix = revise(name = "fix", depends_on = [prep], over = prep.ids, max_fanout = 5, max_rounds = 2,
    body = agent(name = "draft", runner = "writer", prompt = "Draft a fix for {{key}}. Feedback: {{feedback}}", emits = {"text": "string"}),
    reviewer = evaluate(name = "review", fn = check, emits = {"verdict": "string", "feedback": "string"}))
broken = command(name = "broken", depends_on = [prep], over = prep.ids, max_fanout = 5, run = "echo broken >&2; exit 3")
autofix = command(name = "autofix", depends_on = [triage], over = prep.ids, max_fanout = 5, when = triage.action, answers = "autofix", run = "true")
to_web = command(name = "to_web", depends_on = [triage], over = prep.ids, max_fanout = 5, when = triage.owner, answers = "web", run = "true")
to_other = command(name = "to_other", depends_on = [triage], over = prep.ids, max_fanout = 5, when = triage.owner, otherwise = True, run = "true")
lang = route(name = "lang", depends_on = [prep], over = prep.ids, max_fanout = 5,
    questions = {"lang": choice(ask = "Which language?", options = {"go": "Go", "rust": "Rust"}, drop = ["go", "rust", "uncertain"])})
urgent = command(name = "urgent", depends_on = [sev], over = prep.ids, max_fanout = 5, when = sev.level, answers = "high", run = "true")
notify = command(name = "notify", depends_on = [urgent], run = "true")
fate = route(name = "fate", depends_on = [prep], over = prep.ids, max_fanout = 5,
    questions = {"ok": noul(ask = "Is the fix right?", drop = ["yes", "no", "uncertain"])})
`;

const DECIDER = `import { readFileSync } from "node:fs";
const req = JSON.parse(readFileSync(0, "utf8"));
const state = typeof req.state === "string" ? JSON.parse(req.state) : req.state;
const table = ${JSON.stringify(TABLE)};
const answers = {};
for (const id of Object.keys(req.questions)) answers[id] = { type: "choice", probabilities: table[state.key][id] };
process.stdout.write(JSON.stringify({ model: "m", answers, usage: { input_tokens: 10, output_tokens: 1 } }));
`;

const CALIBRATION = {
  version: 1,
  created: "2026-12-01T00:00:00.000Z",
  lab: "lab-test",
  pairs_file: "pairs.jsonl",
  deduplicated: true,
  types: {
    "playbook.sev.level": {
      id: CALIBRATION_ID,
      type: "playbook.sev.level",
      model: "dec/m",
      method: "platt",
      pairs: { count: 100, digest: "sha256:0" },
      baseline: { answered: 100, agree: 90 },
      cv: { folds: 5, ece_before: 0.1, ece_after: 0.05, brier_before: 0.2, brier_after: 0.1 },
      map: { kind: "platt", a: 1, b: -1 },
    },
  },
};

const CONFIG = `[agents.default]
command = ["node", "./host.mjs"]
[agents.writer]
command = ["node", "./writer.mjs"]
[providers.dec]
kind = "command"
vendor = "v"
command = ["node", "./decider.mjs"]
models = ["m"]
[decisions]
default = "host"
host = "default"
[decisions.types]
"playbook.triage.action" = "dec/m"
"playbook.triage.owner" = "dec/m"
"playbook.lang.lang" = "shadow:dec/m"
"playbook.fate.ok" = { mode = "review" }
"playbook.sev.level" = { mode = "dec/m", calibration = "cal.json", min_confidence = 0.5, audit = 1.0 }
`;

/** The fixture's folder, state folder, run id and lab id. */
export interface CellsRun {
  dir: string;
  state: string;
  run: string;
  lab: string;
}

/** Writes the pack and config, makes a lab, runs the pack (it fails, as it should) and returns its ids. */
export function runCells(): CellsRun {
  const dir = mkdtempSync(join(tmpdir(), "sy-ui-cells-"));
  mkdirSync(join(dir, "pack"));
  writeFileSync(join(dir, "pack", "playbook.star"), PLAYBOOK);
  writeFileSync(join(dir, "decider.mjs"), DECIDER);
  writeFileSync(
    join(dir, "host.mjs"),
    `import { readFileSync } from "node:fs";\nprocess.stdout.write(readFileSync(0, "utf8").includes("rust") ? "go\\n" : "low\\n");\n`,
  );
  writeFileSync(
    join(dir, "writer.mjs"),
    `import { readFileSync, writeFileSync } from "node:fs";\nconst prompt = readFileSync(0, "utf8");\n` +
      `writeFileSync(process.env.SWITCHYARD_OUTPUT, JSON.stringify({ text: "draft after: " + prompt.split("Feedback: ")[1].trim() }));\n`,
  );
  writeFileSync(join(dir, "cal.json"), JSON.stringify(CALIBRATION));
  writeFileSync(join(dir, "config.toml"), CONFIG);
  const state = join(dir, "state");
  const sy = (...args: string[]) => spawnSync(process.execPath, [BIN, ...args, "--state-dir", state], { encoding: "utf8" });
  const lab = sy("lab", "new");
  if (lab.status !== 0) throw new Error(`lab new failed: ${lab.stderr}`);
  const config = join(dir, "config.toml");
  const r = sy("run", join(dir, "pack"), "--config", config, "-q", "--detach-reviews");
  const run = /run (\S+): waiting/.exec(r.stdout)?.[1];
  if (r.status !== 1 || !run) throw new Error(`the fixture run did not wait as planned: ${r.stdout}${r.stderr}`);
  for (const answer of [
    ["--key", "a", "--answer", "ok=yes", "--as", "alice", "--note", "looks right"],
    ["--key", "b", "--answer", "ok=no", "--as", "bob"],
  ]) {
    const a = sy("review", run, ...answer);
    if (a.status !== 0) throw new Error(`review ${answer.join(" ")} failed: ${a.stdout}${a.stderr}`);
  }
  const resumed = sy("resume", run, "--config", config, "-q");
  if (resumed.status !== 1 || !resumed.stdout.endsWith(`run ${run}: failed\n`))
    throw new Error(`the resumed run did not fail as planned: ${resumed.stdout}${resumed.stderr}`);
  const labId = /lab-[\w-]+/.exec(lab.stdout + lab.stderr)?.[0];
  if (!labId) throw new Error(`lab new printed no id: ${lab.stdout}`);
  return { dir, state, run, lab: labId };
}
