// The catalog of every diagnostic code src/plan emits (the playbook rules of docs/reference/).
// `switchyard explain CODE` and docs/playbooks.md read it; a code emitted here and missing from
// this list is a bug (a test walks the emitting sources and checks).

import type { CodeEntry } from "../lang/diagnostic.js";
export type { CodeEntry };

/** Every code the plan layer emits (packs, playbook built-ins, graph rules, plans), with its rule and explanation. */
export const PLAN_CODES: readonly CodeEntry[] = [
  // --- packs and loading (L-1 … L-5, C-1) ---
  {
    code: "pack-not-found",
    usage: true,
    rule: "L-2",
    summary: "the path given is not a pack folder, .star file or plan .toml",
    explain:
      "`switchyard check/compile/run` accept a pack folder (with `*.star` playbooks at its root), a single `.star` playbook, or a compiled plan `.toml`. Check the path for typos.",
  },
  {
    code: "no-playbook",
    usage: true,
    rule: "L-1",
    summary: "the pack has no playbook",
    explain:
      "A pack's playbooks are the `*.star` files at the root of its folder (files under `lib/` are modules). Add a playbook file such as `main.star` at the pack root.",
  },
  {
    code: "ambiguous-playbook",
    usage: true,
    rule: "L-2",
    summary: "the pack has several playbooks and none was chosen",
    explain:
      "When a pack folder holds more than one `*.star` playbook at its root, name the one to use with `--playbook NAME` (the file stem).",
  },
  {
    code: "unknown-playbook",
    usage: true,
    rule: "L-2",
    summary: "--playbook names no playbook of the pack",
    explain: "`--playbook NAME` must be the stem of a `*.star` file at the pack root. The message lists the pack's playbooks.",
  },
  {
    code: "pack-toml",
    rule: "L-1",
    summary: "pack.toml is malformed",
    explain:
      "The optional `pack.toml` holds a `[pack]` table with string fields `name`, `version` and `description`. Fix the TOML syntax or the field types the message names.",
  },
  {
    code: "load-outside-pack",
    rule: "L-3",
    summary: "a load path leaves the pack",
    explain:
      '`load("lib/util.star", ...)` paths are relative to the pack root and must stay inside it: no absolute paths and no `..` that climbs out. Move the module into the pack\'s `lib/` folder.',
  },
  {
    code: "load-not-found",
    rule: "L-3",
    summary: "a loaded module does not exist",
    explain:
      "The module named by `load` was not found relative to the pack root. Paths are written from the pack root (`lib/x.star`), not from the loading file, and must end in `.star`.",
  },
  {
    code: "load-cycle",
    rule: "L-3",
    summary: "modules load each other in a cycle",
    explain:
      "A module (directly or through others) loads itself. Each module is evaluated once; move the shared definitions into a third module that both load.",
  },
  {
    code: "check-stopped",
    rule: "L-3",
    summary: "warning: checking stopped at a use of a name from a module with errors",
    explain:
      "A warning, not an error. When a loaded module has errors (reported at their place in the module) or cannot be loaded, the playbook is still checked: the names it loads from that module stand for unknown values, and arguments built from them are not checked. Some uses of an unknown value cannot go on — adding it to a string, iterating over it — and there checking of that file stops; this warning marks the line. Fix the module and check again to see any problems below it.",
  },
  {
    code: "module-declares-task",
    rule: "L-4",
    summary: "a module declares a task at its top level",
    explain:
      "Tasks are declared only while a playbook is evaluated, directly or through a helper function it calls. A `lib/` module may define helper functions that declare tasks, but must not call `command`, `agent`, `route`, `evaluate`, `revise` or `playbook` at its own top level.",
  },
  {
    code: "playbook-repeated",
    rule: "L-5",
    summary: "playbook() is called more than once",
    explain: "`playbook(...)` sets run-wide settings and may be called at most once per playbook. Merge the calls into one.",
  },
  {
    code: "playbook-after-task",
    rule: "L-5",
    summary: "playbook() is called after a task was declared",
    explain: "Call `playbook(...)` before declaring any task, usually as the first statement of the file.",
  },
  {
    code: "empty-playbook",
    rule: "L-1",
    summary: "the playbook declares no task",
    explain: "A playbook must declare at least one task (`command`, `agent`, `route`, `evaluate` or `revise`).",
  },
  // --- arguments (C-2) ---
  {
    code: "wrong-type",
    rule: "C-2",
    summary: "an argument has the wrong type",
    explain:
      "A built-in received a value of a type it does not accept for that argument. The message names the argument, what it accepts and what it got.",
  },
  {
    code: "invalid-value",
    rule: "C-2",
    summary: "an argument's value is not allowed",
    explain:
      'The argument has the right type but a value outside what it accepts (for example `effort = "max"` or `join = "any"`). The message lists the accepted values.',
  },
  {
    code: "invalid-name",
    rule: "C-2",
    summary: "a task name, field name or question name is not an identifier",
    explain:
      "Task names, emitted field names and question names must match `[A-Za-z_][A-Za-z0-9_]*`, so they can be written as `task.field` and used in instance names.",
  },
  {
    code: "duplicate-task",
    rule: "C-2",
    summary: "two tasks have the same name",
    explain: "Task names are unique in a playbook. Rename one of them; the message points at both declarations.",
  },
  {
    code: "invalid-duration",
    rule: "C-2",
    summary: "a duration string is malformed",
    explain:
      'Durations are written as a number (a decimal fraction is allowed) and a unit, `ms`, `s`, `m` or `h`, optionally combined: `"90s"`, `"1.5s"`, `"500ms"`, `"10m"`, `"2h"`, `"1h30m"`, the same grammar as the machine config and `--max-duration`. They must be greater than zero.',
  },
  {
    code: "invalid-field-type",
    rule: "C-2",
    summary: "an `emits` entry names an unknown type",
    explain: '`emits` maps each output field to one of `"string"`, `"number"`, `"bool"`, `"list"`, `"object"`, `"any"`.',
  },
  {
    code: "invalid-file-path",
    rule: "T-2",
    summary: "a `files` entry is not a relative path inside the workspace",
    explain: "`files` entries are relative paths (no leading `/`, no `..`) of files the agent leaves in its workspace.",
  },
  // --- graph and references (C-3, T-11) ---
  {
    code: "dependency-cycle",
    rule: "C-3",
    summary: "tasks depend on each other in a cycle",
    explain: "The task graph must be acyclic. Remove one of the edges named in the message.",
  },
  {
    code: "not-upstream",
    rule: "T-11",
    summary: "a field reference names a task that is not upstream",
    explain:
      "`producer.field` may only name a task the referring task depends on, directly or through other dependencies. Add the producer to `depends_on`.",
  },
  {
    code: "not-direct-dependency",
    rule: "T-11",
    summary: "keyed, dynamic options, source or when names a task that is not a direct dependency",
    explain:
      "`keyed`, a dynamic choice's `options`, a route's `source` and `when` must name a task listed in this task's own `depends_on`, because they read that dependency's output for this instance. Add it to `depends_on`.",
  },
  {
    code: "inline-task-referenced",
    rule: "T-5",
    summary: "a revise body or reviewer is also used elsewhere",
    explain:
      "The `body` and `reviewer` of `revise` are declared inline: they run only inside the loop, so no other task may depend on them or reference their fields, and they may serve one loop only.",
  },
  // --- fields (C-4, T-10, M-3, Q-30) ---
  {
    code: "undeclared-field",
    rule: "T-10",
    summary: "a field reference names a field the producer does not emit",
    explain:
      "`producer.field` must name a field declared in the producer's `emits` (for a route: one of its question names). The message lists the declared fields. Declare the field in `emits` or fix the name.",
  },
  {
    code: "over-not-list",
    rule: "C-4",
    summary: "`over` names a field not declared `list`",
    explain: 'A mapped task iterates the list named by `over`; the producer must declare that field as `"list"` in its `emits`.',
  },
  {
    code: "over-from-mapped",
    rule: "M-1",
    summary: "`over` names a field of a mapped task",
    explain:
      "`over` reads a list from one output; a mapped producer has one output per element (its dependents read a fold), so `over` must name a field of an unmapped task.",
  },
  {
    code: "keyed-not-object",
    rule: "M-3",
    summary: "`keyed` names a field not declared `object`",
    explain: '`keyed` narrows an object keyed by element to the instance\'s own entry; the producer must declare the field as `"object"`.',
  },
  {
    code: "keyed-from-mapped",
    rule: "M-3",
    summary: "`keyed` names a field of a mapped task",
    explain:
      "`keyed` reads an object keyed by element from an unmapped dependency. A mapped producer's per-element output reaches an aligned dependent directly (M-2) and needs no `keyed`.",
  },
  {
    code: "unkeyed-object-read",
    rule: "M-3",
    summary: "warning: a mapped agent's prompt renders a producer's object field whole",
    explain:
      "A warning, not an error. The prompt of a mapped agent (or of a mapped revise loop's agent) renders an `object` field of the producer it maps over whole — `{{inputs.prep.facts}}`, or `{{inputs.prep}}` — so every element's prompt carries the whole object: 10,000 elements reading a 10,000-entry object is 10,000 copies sent to agents. If the field is keyed by element, add `keyed = [prep.facts]`: the same placeholder then renders only the instance's own entry.",
  },
  {
    code: "route-state-large",
    rule: "R-22",
    summary: "warning: a route's state per element is estimated above the size limit",
    explain:
      "A warning, not an error. Every decision of a model-decided route sends its state: the element's key, each dependency's output (whole for an unmapped dependency, the fold of every instance for a mapped one that is not aligned) and its `files`. `check` estimates that state from the declared `emits` types (a list or object holding one entry per element is as long as the fan-out) and warns above 2,000 tokens (`--state-warn-tokens N` changes the limit). The message names the largest parts. Narrow them: `keyed = [prep.owners]` gives each element only its own entry of an object keyed by element; map a dependency over the same list as the route so each element reads only its own instance; or depend on a task that emits only what the questions need. docs/reference/runs.md (R-22) gives the estimate's rules.",
  },
  {
    code: "keyed-unmapped",
    rule: "M-3",
    summary: "`keyed` on a task that is not mapped",
    explain: "`keyed` narrows a field to the instance's element, so it needs `over`. Remove `keyed` or map the task.",
  },
  {
    code: "options-wrong-type",
    rule: "Q-30",
    summary: "dynamic options name a field of the wrong declared type",
    explain:
      'For an unmapped route a dynamic choice\'s `options` field is the option list itself (declared `"list"`); for a mapped route it is an object keyed by element whose entry is the list (declared `"object"`).',
  },
  {
    code: "options-from-mapped",
    rule: "Q-30",
    summary: "dynamic options name a field of a mapped task",
    explain: "A dynamic choice reads its options the way `keyed` reads a field: from an unmapped direct dependency.",
  },
  {
    code: "source-wrong-type",
    rule: "T-3",
    summary: "`source` names a field not declared `object`",
    explain:
      'With `decide = "output"`, `source` names an object holding, per question name, a precomputed label (keyed by element for a mapped route). Declare the field `"object"`.',
  },
  {
    code: "source-from-mapped",
    rule: "T-3",
    summary: "`source` names a field of a mapped task",
    explain: "`source` is read like `keyed`: from an unmapped direct dependency, keyed by element when the route is mapped.",
  },
  // --- mapping (C-5) ---
  {
    code: "missing-max-fanout",
    rule: "C-5",
    summary: "`over` without `max_fanout`",
    explain:
      "Every mapped task states the most elements it may expand to, so a run cannot fan out unboundedly. Add `max_fanout = N` (1 … 10000).",
  },
  {
    code: "max-fanout-range",
    rule: "C-5",
    summary: "`max_fanout` outside 1 … 10000",
    explain: "`max_fanout` must be an integer from 1 to 10000.",
  },
  {
    code: "max-fanout-without-over",
    rule: "C-5",
    summary: "`max_fanout` on a task that is not mapped",
    explain: "`max_fanout` bounds a mapped task's elements; without `over` it has no meaning. Remove it or add `over`.",
  },
  // --- gating (C-6, G-1, G-2, G-2a, Q-33) ---
  {
    code: "when-not-route",
    rule: "G-1",
    summary: "`when` names a field of a task that is not a route",
    explain:
      "`when = route.question` gates on a route's answer. The task named is not a route; gate on a route's question, or read the field in the task instead.",
  },
  {
    code: "when-not-aligned",
    rule: "G-2",
    summary: "`when` on a mapped route from a task not aligned with it",
    explain:
      "A mapped route answers once per element, so a task gated on it must map over the same producer field (`over = ...` identical to the route's) and be evaluated per element. Map the task over the route's list.",
  },
  {
    code: "gate-answers-and-otherwise",
    rule: "G-1",
    summary: "both `answers` and `otherwise`",
    explain:
      "A task with `when` has exactly one of `answers` (the labels it takes) and `otherwise = True` (every label no other task takes). Remove one.",
  },
  {
    code: "gate-missing-answers",
    rule: "G-1",
    summary: "`when` without `answers` or `otherwise`",
    explain: 'A task with `when` must say which labels open it: `answers = "label"` / `answers = ["a", "b"]`, or `otherwise = True`.',
  },
  {
    code: "answers-without-when",
    rule: "G-1",
    summary: "`answers` or `otherwise` without `when`",
    explain: "`answers` and `otherwise` only make sense together with `when = route.question`.",
  },
  {
    code: "unknown-label",
    rule: "G-8",
    summary: "a label the question does not declare",
    explain:
      "`answers` and `drop` may only list the question's declared labels (choice options, `yes`/`no`, score levels) and `uncertain` (model-decided routes only). The message lists the labels.",
  },
  {
    code: "empty-otherwise",
    rule: "G-2a",
    summary: "an `otherwise` task is left with no label",
    explain:
      "`otherwise = True` takes every label of the question that no other task lists in `answers` and that the question does not `drop`. Here every label is already taken, so the task could never run: remove it, or take a label away from the other tasks.",
  },
  {
    code: "dynamic-answers",
    rule: "Q-33",
    summary: "`answers` on a dynamic choice lists an option",
    explain:
      "A dynamic choice's options are only known at run time, so `answers` may list only `uncertain`; use `otherwise = True` for the options and read which option was picked from the route's output.",
  },
  // --- coverage (C-7, G-8) ---
  {
    code: "uncovered-label",
    rule: "G-8",
    summary: "a label of a model-decided route leads nowhere",
    explain:
      "Every label of every question of a model-decided route — each declared option and `uncertain` — must lead somewhere: a gated task's `answers`, a task with `otherwise = True`, or the question's `drop` (\"needs no further work\"). Add a task gated on it or drop it.",
  },
  // --- questions (C-8, Q-1 … … Q-33) ---
  {
    code: "invalid-label",
    rule: "Q-4",
    summary: "a label is not an identifier",
    explain: "Labels are identifiers (`[A-Za-z_][A-Za-z0-9_]*`, at most 64 characters).",
  },
  {
    code: "reserved-label",
    rule: "Q-4",
    summary: "a question declares the reserved label `uncertain`",
    explain:
      "`uncertain` is the implicit answer of every model-decided question when the model is not confident enough; no question may declare it.",
  },
  {
    code: "option-count",
    rule: "Q-4",
    summary: "a choice has fewer than 2 or more than 64 options",
    explain:
      "A declared choice has 2 to 64 options (Q-4). A question with one possible answer needs no decision; one with more than 64 should be split or narrowed first.",
  },
  {
    code: "level-count",
    rule: "Q-3",
    summary: "a score has fewer than 2 or more than 10 levels",
    explain: "A score's `levels` dict has 2 to 10 levels, lowest first.",
  },
  {
    code: "no-questions",
    rule: "T-3",
    summary: "a route asks no questions",
    explain: "`questions` is a non-empty dict of question name → `choice(...)`, `noul(...)` or `score(...)`.",
  },
  {
    code: "dynamic-drop",
    rule: "Q-33",
    summary: "`drop` on a dynamic choice lists an option",
    explain: "A dynamic choice's options are unknown at compile time; its `drop` may list only `uncertain`.",
  },
  {
    code: "dynamic-choice-output-route",
    rule: "Q-33",
    summary: "an output-decided route asks a dynamic choice",
    explain: "Only a model-decided route may ask a dynamic choice; an output-decided route reads a label its source already computed.",
  },
  {
    code: "output-route-without-source",
    rule: "T-3",
    summary: '`decide = "output"` without `source`',
    explain: "An output-decided route asks nothing: `source = producer.field` names the object holding the labels. Add it.",
  },
  {
    code: "source-without-output",
    rule: "T-3",
    summary: "`source` on a model-decided route",
    explain: '`source` is only read with `decide = "output"`. Remove it or set `decide = "output"`.',
  },
  {
    code: "uncertain-on-output-route",
    rule: "T-3",
    summary: "`uncertain` named for an output-decided route",
    explain:
      "An output-decided route never answers `uncertain` (no model is asked), so gating on or dropping `uncertain` has no effect and is rejected.",
  },
  {
    code: "confidence-range",
    rule: "Q-11",
    summary: "`min_confidence` outside 0 … 1",
    explain: "`min_confidence` is a probability: a number from 0 to 1.",
  },
  // --- files, templates, evaluate, revise (C-9) ---
  {
    code: "undeclared-file",
    rule: "C-9",
    summary: "a route reads a file no dependency declares",
    explain:
      "A route's `files` must each be declared in the `files` of one of its direct dependencies (an agent that leaves it in its workspace).",
  },
  {
    code: "route-file-not-json",
    rule: "T-3",
    summary: "a route's `files` entry is not a JSON file",
    explain: "A route's `files` join its decision state as JSON, so each must end in `.json`.",
  },
  {
    code: "unknown-placeholder",
    rule: "T-2",
    summary: "a prompt placeholder names an undeclared dependency or field",
    explain:
      "Prompt placeholders are `{{key}}` (mapped tasks only), `{{inputs.DEP}}` and `{{inputs.DEP.FIELD}}`, where DEP is a direct dependency and FIELD a field it declares in `emits`. Inside a revise body, `{{feedback}}` and `{{round}}` are also available.",
  },
  {
    code: "evaluate-not-top-level",
    rule: "T-4",
    summary: "`evaluate` names a lambda, nested function or closure",
    explain:
      "The plan refers to an evaluate function by module and name, so `fn` must be a function defined with `def` at the top level of the playbook or of a loaded module.",
  },
  {
    code: "revise-body-mapped",
    rule: "T-5",
    summary: "a revise body or reviewer has `over`",
    explain:
      "The loop runs its body and reviewer once per round for the loop's own instance; they cannot be mapped. Map the `revise` task itself instead.",
  },
  {
    code: "revise-body-kind",
    rule: "T-5",
    summary: "a revise body is not an agent or command",
    explain: "`body` must be an `agent(...)` or `command(...)` declared inline.",
  },
  {
    code: "revise-reviewer-kind",
    rule: "T-5",
    summary: "a revise reviewer is not an agent, command or evaluate",
    explain: "`reviewer` must be an `agent(...)`, `command(...)` or `evaluate(...)` declared inline.",
  },
  {
    code: "revise-inline-gated",
    rule: "T-5",
    summary: "a revise body or reviewer has its own gating or mapping settings",
    explain:
      "Inline tasks take their place in the graph from the loop: `when`, `answers`, `otherwise`, `keyed`, `max_fanout` and `join` belong on the `revise` task itself.",
  },
  {
    code: "revise-verdict",
    rule: "T-5",
    summary: "the reviewer does not emit `verdict` (or emits it with a wrong type)",
    explain:
      'A reviewer must declare `emits = {"verdict": "string", ...}` (its value is `"accept"` or `"revise"`), and may declare `feedback` (a string).',
  },
  {
    code: "revise-max-rounds",
    rule: "T-5",
    summary: "`max_rounds` outside 1 … 100",
    explain: "`max_rounds` is the number of body/reviewer rounds before the loop fails: an integer from 1 to 100.",
  },
  {
    code: "revise-emits",
    rule: "T-5",
    summary: "`emits` given on a revise task",
    explain:
      "A revise task's output is its body's last output plus `rounds`, so its fields are the body's `emits` and `rounds`; declare them on the body.",
  },
  // --- plan files (C-20) ---
  {
    code: "malformed-plan",
    rule: "C-20",
    summary: "a compiled plan file is malformed",
    explain:
      "A plan `.toml` is written by `switchyard compile`. This one does not parse as TOML or does not have the plan's shape; the message names the table and field. Recompile it from the pack.",
  },
  {
    code: "evaluator",
    rule: "T-4",
    summary: "an evaluate function could not be loaded or returned a bad value",
    explain:
      "At run time an `evaluate` task re-executes its defining module and calls the function with the instance's input dict. It must return a dict of JSON values.",
  },
];

const BY_CODE = new Map(PLAN_CODES.map((e) => [e.code, e]));

/** The catalog entry of a plan-layer code, for `switchyard explain`. */
export function planCode(code: string): CodeEntry | undefined {
  return BY_CODE.get(code);
}
