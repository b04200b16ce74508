// The files `switchyard init` writes. `{{name}}` becomes the pack's name. The playbook runs with
// no machine config: its route is decided from a producer's output, and the comments show how to
// hand the decision to a model and put agent turns behind it. Its empty cassette is what
// `switchyard test` replays, so a change is tested offline from the start.

import { CASSETTE_FORMAT, CASSETTE_VERSION, cassetteText } from "../run/cassette/index.js";

const PLAYBOOK = `# {{name}}: a switchyard playbook. Check it with \`switchyard check .\`, run it with
# \`switchyard run .\`, and read the reference in docs/playbooks.md of switchyard's repository.
#
# Test a change offline with \`switchyard test . --cassette cassette.jsonl\`: agent turns and model
# decisions are answered from the cassette, and a turn or decision it does not hold is named. This
# pack has none yet, so its cassette is empty; once you add them, record a real run once and write
# its cassette (\`switchyard run .\`, then \`switchyard cassette latest -o cassette.jsonl\`), or
# record just what is missing (\`switchyard test . --cassette cassette.jsonl --allow-live --update\`).

load("lib/helpers.star", "count_by")

playbook(description = "Sort incoming items and look closer only where it is worth it", concurrency = 4)

# A command writes its output object as JSON to $SWITCHYARD_OUTPUT; \`emits\` declares its fields.
items = command(
    name = "items",
    run = "node $SWITCHYARD_PACK/stage.mjs",
    emits = {"keys": "list", "labels": "object"},
)

# A route asks a question once per element (over = ...). Here the labels were computed by the
# producer (decide = "output"); to ask a decision model instead, drop \`decide\` and \`source\` and
# route the judgement type "{{name}}.triage.size" in your machine config (docs/decisions.md).
# The type is named after this pack, so it stays the same if the playbook file is renamed and
# does not collide with another pack's "triage.size".
triage = route(
    name = "triage", depends_on = [items],
    over = items.keys, max_fanout = 100,
    decide = "output", source = items.labels,
    questions = {"size": choice(
        type = "{{name}}.triage.size",
        ask = "How much work does this item need?",
        options = {"small": "Done in one step", "large": "Needs a closer look", "skip": "Nothing to do"},
        drop = ["skip"],
    )},
)

# Gated per element: runs only for items answered "small"; the rest show as not_taken.
small = command(
    name = "small", depends_on = [triage],
    over = items.keys, max_fanout = 100,
    when = triage.size, answers = "small",
    run = "echo '{\\"done\\": true}' > \\"$SWITCHYARD_OUTPUT\\"",
    emits = {"done": "bool"},
)

# \`otherwise = True\` takes every label no other task lists and the question does not drop:
# here "large" (and "uncertain", which a model-decided route can answer). In a real pack this is
# where an agent turn goes:
#     agent(name = "large", prompt = "Look closely at {{key}}", files = ["RESULT.json"], ...)
large = command(
    name = "large", depends_on = [triage],
    over = items.keys, max_fanout = 100,
    when = triage.size, otherwise = True,
    run = "node $SWITCHYARD_PACK/stage.mjs look",
    emits = {"looked_at": "string"},
)

# A settled join runs once its dependencies are terminal, whatever their statuses.
report = evaluate(
    name = "report", depends_on = [small, large], join = "settled",
    fn = count_by,
)
`;

const HELPERS = `# Helpers for the playbook. Plain Starlark: test them with \`switchyard eval lib/helpers_test.star\`.

def count_by(input):
    """Counts, per dependency, how many of its elements ran and how many were not taken."""
    out = {}
    for name, fold in input["inputs"].items():
        out[name] = {"ran": fold["summary"]["passed"], "not_taken": fold["summary"]["not_taken"]}
    return out
`;

const HELPERS_TEST = `load("helpers.star", "count_by")

got = count_by({"inputs": {"small": {"summary": {"passed": 2, "not_taken": 1}}}})
if got != {"small": {"ran": 2, "not_taken": 1}}:
    fail("count_by:", got)
print("ok")
`;

const STAGE = `// Stages the items to sort (a real pack would read tickets, files or findings here), and with
// the argument "look" stands in for the closer look at one item.
import { writeFileSync } from "node:fs";

if (process.argv[2] === "look") {
  writeFileSync(process.env.SWITCHYARD_OUTPUT, JSON.stringify({ looked_at: process.env.SWITCHYARD_KEY }));
  process.exit(0);
}
const keys = ["alpha", "beta", "gamma", "delta"];
const labels = { alpha: { size: "small" }, beta: { size: "large" }, gamma: { size: "skip" }, delta: { size: "small" } };
writeFileSync(process.env.SWITCHYARD_OUTPUT, JSON.stringify({ keys, labels }));
`;

const PACK_TOML = `[pack]
name = "{{name}}"
version = "0.1.0"
description = "A new switchyard pack"
`;

/**
 * An empty cassette (docs/testing-playbooks.md): the scaffolded pack has no agent turn or model
 * decision, so `switchyard test` passes on it as it is; one added later is a miss until recorded.
 */
const CASSETTE = cassetteText({
  header: { format: CASSETTE_FORMAT, version: CASSETTE_VERSION, run: "", playbook: "main", written: "" },
  entries: [],
});

/** The files `switchyard init` writes, by pack-relative path. */
export const PACK_FILES: Record<string, string> = {
  "main.star": PLAYBOOK,
  "lib/helpers.star": HELPERS,
  "lib/helpers_test.star": HELPERS_TEST,
  "stage.mjs": STAGE,
  "pack.toml": PACK_TOML,
  "cassette.jsonl": CASSETTE,
};
