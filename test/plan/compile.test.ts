// The playbook built-ins and the checks of SPEC §8, by rule, on small playbooks.
import { test } from "node:test";
import assert from "node:assert/strict";
import { rmSync } from "node:fs";
import { join } from "node:path";
import { compilePath, readPlanToml, writePlanToml } from "../../src/plan/index.js";
import { codes, compileSource, PREP, writePack } from "./helpers.js";

const ROUTE =
  PREP +
  `gate = route(name = "gate", depends_on = [prep], over = prep.members, max_fanout = 10,
    questions = {"depth": choice(ask = "How deep?", options = {"settled": "s", "quick": "q", "deep": "d"}, drop = ["settled"])})
`;

function task(r: ReturnType<typeof compileSource>, name: string) {
  assert.ok(r.plan, r.diagnostics.map((d) => `${d.pos?.line}: ${d.code}: ${d.message}`).join("\n"));
  const t = r.plan.tasks.find((x) => x.name === name);
  assert.ok(t, `no task ${name}`);
  return t;
}

test("C-20: the SPEC appendix playbook compiles clean with every resolved field", () => {
  const r = compilePath("test/fixtures/packs/triage");
  assert.deepEqual(r.diagnostics, []);
  const plan = r.plan!;
  assert.equal(plan.playbook, "triage");
  assert.equal(plan.source_file, "triage.star");
  assert.equal(plan.settings.description, "Triage CVE tickets against the shipped image");
  assert.equal(plan.settings.max_duration_seconds, 7200);
  assert.deepEqual(
    plan.tasks.map((t) => t.name),
    ["prepare", "match", "review", "gate", "quick", "deep", "judge", "recheck", "report"],
  );
  const match = task(r, "match");
  assert.deepEqual(match.route!.questions[0]!.dynamic, { task: "prepare", field: "packages" });
  assert.equal(match.route!.questions[0]!.type, "triage.match.package");
  assert.deepEqual(match.keyed, [{ task: "prepare", field: "facts" }]);
  assert.deepEqual(task(r, "review").when, {
    route: "match",
    question: "package",
    answers: ["uncertain"],
    otherwise: false,
    labels: ["uncertain"],
    any_option: false,
  });
  assert.deepEqual(task(r, "gate").when, { route: "match", question: "package", otherwise: true, labels: [], any_option: true });
  assert.deepEqual(task(r, "gate").aligned_with, ["match"]);
  assert.deepEqual(task(r, "deep").when!.labels, ["deep", "uncertain"]);
  assert.deepEqual(task(r, "quick").when!.labels, ["quick"]);
  assert.deepEqual(task(r, "judge").aligned_with, ["quick", "deep"]);
  assert.deepEqual(task(r, "judge").route!.files, ["RESULT.json"]);
  assert.deepEqual(task(r, "recheck").when!.labels, ["no", "uncertain"]);
  assert.deepEqual(task(r, "report").evaluate, { module: "triage.star", function: "summarize" });
  assert.deepEqual(task(r, "report").aligned_with, []);
  assert.equal(task(r, "quick").emits.files, "object");
  assert.match(plan.pack_digest, /^[0-9a-f]{64}$/);
});

test("C-20: compiling twice gives byte-identical TOML that round-trips into the same Plan", () => {
  const a = writePlanToml(compilePath("test/fixtures/packs/triage").plan!);
  const b = writePlanToml(compilePath("test/fixtures/packs/triage/triage.star").plan!);
  assert.equal(a, b);
  assert.equal(writePlanToml(readPlanToml(a)), a);
  assert.deepStrictEqual(readPlanToml(a), compilePath("test/fixtures/packs/triage").plan);
});

test("L-2: a compiled plan .toml is accepted as a path and read back", () => {
  const text = writePlanToml(compilePath("test/fixtures/packs/triage").plan!);
  const dir = writePack({ "plan.toml": text });
  try {
    const r = compilePath(join(dir, "plan.toml"));
    assert.deepEqual(r.diagnostics, []);
    assert.equal(writePlanToml(r.plan!), text);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

test("C-20: the pack digest covers playbooks, lib modules and pack.toml, not other files", () => {
  const files = { "main.star": PREP, "lib/u.star": "x = 1\n", "pack.toml": '[pack]\nname = "p"\n', "data.json": "{}" };
  const dir = writePack(files);
  try {
    const d1 = compilePath(dir).plan!.pack_digest;
    const dir2 = writePack({ ...files, "data.json": "[1]" });
    const dir3 = writePack({ ...files, "lib/u.star": "x = 2\n" });
    try {
      assert.equal(compilePath(dir2).plan!.pack_digest, d1);
      assert.notEqual(compilePath(dir3).plan!.pack_digest, d1);
    } finally {
      rmSync(dir2, { recursive: true, force: true });
      rmSync(dir3, { recursive: true, force: true });
    }
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

test("L-1/L-2: a pack with several playbooks needs --playbook; a wrong name gets a suggestion", () => {
  const dir = writePack({ "alpha.star": PREP, "beta.star": PREP });
  try {
    assert.deepEqual(codes(compilePath(dir)), ["ambiguous-playbook"]);
    assert.equal(compilePath(dir, { playbook: "beta" }).plan!.playbook, "beta");
    const r = compilePath(dir, { playbook: "alpa" });
    assert.deepEqual(codes(r), ["unknown-playbook"]);
    assert.match(r.diagnostics[0]!.hint!, /did you mean --playbook alpha/);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
  assert.deepEqual(codes(compilePath("/nonexistent/pack")), ["pack-not-found"]);
});

test("L-3: each module is evaluated once per compilation, and its globals are frozen", () => {
  const lib = {
    "lib/c.star": "def helper():\n    return 1\nxs = []\n",
    "lib/a.star": 'load("lib/c.star", "helper")\nha = helper\n',
    "lib/b.star": 'load("lib/c.star", "helper")\nhb = helper\n',
  };
  const ok = compileSource('load("lib/a.star", "ha")\nload("lib/b.star", "hb")\nif ha != hb:\n    fail("evaluated twice")\n' + PREP, lib);
  assert.deepEqual(codes(ok), []);
  const frozen = compileSource('load("lib/c.star", "xs")\nxs.append(1)\n' + PREP, lib);
  assert.deepEqual(codes(frozen), ["frozen-value"]);
});

test("L-3: load aliases work and a module may use the built-ins inside helper functions (L-4)", () => {
  const r = compileSource('load("lib/h.star", mk = "make")\n' + PREP + 'mk(prep, "a")\nmk(prep, "b")\n', {
    "lib/h.star": 'def make(dep, n):\n    return agent(name = n, depends_on = [dep], prompt = "{{inputs.prep.facts}}")\n',
  });
  assert.deepEqual(
    r.plan!.tasks.map((t) => [t.name, t.declared_at.file]),
    [
      ["prep", "main.star"],
      ["a", "lib/h.star"],
      ["b", "lib/h.star"],
    ],
  );
});

test("C-2: an unknown argument names it, suggests the near one and lists what is accepted", () => {
  const r = compileSource(PREP + 'a = command(name = "a", run = "x", emit = {})\n');
  assert.deepEqual(codes(r), ["unknown-argument"]);
  assert.match(r.diagnostics[0]!.message, /'emit' \(did you mean 'emits'\?\); it accepts: name, run/);
  assert.equal(r.diagnostics[0]!.pos!.line, 2);
});

test("C-2: a mistyped argument says what it accepts and what it got", () => {
  const r = compileSource(PREP + 'a = agent(name = "a", prompt = "p", depends_on = prep)\n');
  assert.deepEqual(codes(r), ["wrong-type"]);
  assert.match(r.diagnostics[0]!.message, /agent\(\) argument 'depends_on' must be a list of tasks, got task 'prep'/);
  const r2 = compileSource(PREP + 'a = agent(name = "a", prompt = "p", depends_on = [prep.facts])\n');
  assert.match(r2.diagnostics[0]!.hint!, /write prep, not prep.facts/);
});

test("T-10: an undeclared field lists the declared ones and suggests the near one", () => {
  const r = compileSource(PREP + 'a = agent(name = "a", depends_on = [prep], over = prep.member, max_fanout = 3, prompt = "p")\n');
  assert.deepEqual(codes(r), ["undeclared-field"]);
  assert.match(r.diagnostics[0]!.message, /declared: members, facts, opts, per, n/);
  assert.equal(r.diagnostics[0]!.hint, "did you mean prep.members?");
});

test("T-11: over may name a task upstream through others; keyed must name a direct dependency", () => {
  const ok = compileSource(
    PREP +
      'mid = command(name = "mid", depends_on = [prep], run = "x")\nb = agent(name = "b", depends_on = [mid], over = prep.members, max_fanout = 4, prompt = "{{key}}")\n',
  );
  assert.deepEqual(codes(ok), []);
  assert.deepEqual(task(ok, "b").aligned_with, []);
});

test("M-2: aligned_with lists the direct dependencies mapped over the same producer field", () => {
  const r = compileSource(
    PREP +
      `a = command(name = "a", depends_on = [prep], over = prep.members, max_fanout = 5, run = "x")
b = command(name = "b", depends_on = [prep], over = prep.opts, max_fanout = 5, run = "x")
c = command(name = "c", depends_on = [prep, a, b], over = prep.members, max_fanout = 5, run = "x")
`,
  );
  assert.deepEqual(task(r, "c").aligned_with, ["a"]);
  assert.deepEqual(task(r, "b").aligned_with, []);
});

test("G-2a: otherwise takes every label no other task lists and the question does not drop", () => {
  const r = compileSource(
    ROUTE +
      `q = agent(name = "q", depends_on = [gate], over = prep.members, max_fanout = 10, when = gate.depth, answers = "quick", prompt = "p")
o1 = agent(name = "o1", depends_on = [gate], over = prep.members, max_fanout = 10, when = gate.depth, otherwise = True, prompt = "p")
o2 = agent(name = "o2", depends_on = [gate], over = prep.members, max_fanout = 10, when = gate.depth, otherwise = True, prompt = "p")
both = agent(name = "both", depends_on = [gate], over = prep.members, max_fanout = 10, when = gate.depth, answers = ["uncertain", "quick"], prompt = "p")
`,
  );
  assert.deepEqual(task(r, "o1").when!.labels, ["deep"]);
  assert.deepEqual(task(r, "o2").when!.labels, ["deep"]);
  // answers are resolved in declared order, uncertain last
  assert.deepEqual(task(r, "both").when!.labels, ["quick", "uncertain"]);
  assert.deepEqual(task(r, "both").when!.answers, ["uncertain", "quick"]);
});

test("G-8: every label including uncertain must lead somewhere; drop counts as leading somewhere", () => {
  const r = compileSource(
    ROUTE +
      'q = agent(name = "q", depends_on = [gate], over = prep.members, max_fanout = 10, when = gate.depth, answers = "quick", prompt = "p")\n',
  );
  assert.deepEqual(codes(r), ["uncovered-label", "uncovered-label"]);
  assert.match(
    r.diagnostics.map((d) => d.message).join("\n"),
    /route 'gate', question 'depth': label "deep" leads nowhere[\s\S]*label "uncertain" leads nowhere/,
  );
  assert.equal(r.diagnostics[0]!.pos!.line, 3);
});

test("G-8: an output-decided route needs no coverage and never answers uncertain", () => {
  const r = compileSource(
    PREP +
      `g = route(name = "g", depends_on = [prep], decide = "output", source = prep.facts,
    questions = {"ok": noul(ask = "?")})
a = agent(name = "a", depends_on = [g], when = g.ok, answers = "yes", prompt = "p")
b = agent(name = "b", depends_on = [g], when = g.ok, otherwise = True, prompt = "p")
`,
  );
  assert.deepEqual(task(r, "b").when!.labels, ["no"]);
  assert.deepEqual(task(r, "g").route!.source, { task: "prep", field: "facts" });
});

test("G-2: when on an unmapped route gates once, from a mapped or unmapped task", () => {
  const r = compileSource(
    PREP +
      `g = route(name = "g", depends_on = [prep], questions = {"go": noul(ask = "?", drop = ["no", "uncertain"])})
a = agent(name = "a", depends_on = [prep, g], over = prep.members, max_fanout = 3, when = g.go, answers = "yes", prompt = "{{key}}")
`,
  );
  assert.deepEqual(task(r, "a").when!.labels, ["yes"]);
});

test("Q-30/Q-33: an unmapped route's dynamic options read a list; otherwise sets any_option", () => {
  const r = compileSource(
    PREP +
      `g = route(name = "g", depends_on = [prep], questions = {"pkg": choice(ask = "which?", options = prep.opts, drop = ["uncertain"])})
a = agent(name = "a", depends_on = [g], when = g.pkg, otherwise = True, prompt = "p")
`,
  );
  assert.deepEqual(task(r, "a").when, { route: "g", question: "pkg", otherwise: true, labels: [], any_option: true });
  assert.deepEqual(task(r, "g").route!.questions[0]!.labels, []);
});

test("Q-5: a question's judgement type defaults to PLAYBOOK.ROUTE.QUESTION and can be set", () => {
  const r = compileSource(
    PREP +
      `g = route(name = "g", depends_on = [prep], questions = {
    "a": noul(ask = "?", drop = ["yes", "no", "uncertain"]),
    "b": score(ask = "?", levels = {"lo": "", "hi": ""}, drop = ["lo", "hi", "uncertain"], type = "SEC.SEVERITY"),
})
`,
  );
  assert.deepEqual(
    task(r, "g").route!.questions.map((q) => q.type),
    ["main.g.a", "SEC.SEVERITY"],
  );
  assert.deepEqual(task(r, "g").emits, { a: "string", b: "string" });
});

test("L-5: playbook() settings reach the plan; durations are parsed", () => {
  const r = compileSource(
    'playbook(description = "d", concurrency = 2, decision_concurrency = 3, max_duration = "1h30m", budget_usd = 5)\n' +
      PREP.replace('run = "true"', 'run = "true", timeout = "90s", retries = 2'),
  );
  assert.deepEqual(r.plan!.settings, {
    description: "d",
    concurrency: 2,
    decision_concurrency: 3,
    max_duration_seconds: 5400,
    budget_usd: 5,
  });
  assert.equal(task(r, "prep").timeout_seconds, 90);
  assert.equal(task(r, "prep").retries, 2);
});

test("T-5: a revise loop compiles with inline body and reviewer; its output is the body's plus rounds", () => {
  const r = compileSource(
    PREP +
      `def check(x):
    return {"verdict": "accept"}
loop = revise(name = "loop", depends_on = [prep], max_rounds = 4,
    body = agent(name = "draft", prompt = "Draft from {{inputs.prep.facts}}; feedback: {{feedback}} (round {{round}})", emits = {"text": "string"}),
    reviewer = evaluate(name = "review", fn = check, emits = {"verdict": "string", "feedback": "string"}))
after = agent(name = "after", depends_on = [loop], prompt = "{{inputs.loop.text}} after {{inputs.loop.rounds}} rounds")
`,
  );
  const loop = task(r, "loop");
  assert.deepEqual(
    r.plan!.tasks.map((t) => t.name),
    ["prep", "loop", "after"],
  );
  assert.equal(loop.revise!.body.name, "draft");
  assert.equal(loop.revise!.max_rounds, 4);
  assert.deepEqual(loop.revise!.reviewer.evaluate, { module: "main.star", function: "check" });
  assert.deepEqual(loop.emits, { text: "string", rounds: "number" });
});

test("T-2, T-5: {{feedback}} and {{round}} outside a revise body (a plain agent, a revise reviewer) are unknown-placeholder, saying where they belong", () => {
  const r = compileSource(
    PREP +
      `plain = agent(name = "plain", depends_on = [prep], prompt = "feedback: {{feedback}}")
loop = revise(name = "loop", depends_on = [prep],
    body = agent(name = "draft", prompt = "{{feedback}} {{ round }}", emits = {"text": "string"}),
    reviewer = agent(name = "judge", prompt = "round {{round}} of {{inputs.draft.text}}", emits = {"verdict": "string"}))
`,
  );
  assert.deepEqual(
    r.diagnostics.map((d) => `${d.pos!.line}:${d.code}: ${d.message}`),
    [
      "2:unknown-placeholder: {{feedback}} in the prompt of 'plain', which is not the body of a revise loop (T-2)",
      "5:unknown-placeholder: {{round}} in the prompt of 'judge', which is not the body of a revise loop (T-2)",
    ],
  );
  assert.match(r.diagnostics[0]!.hint ?? "", /only in the prompt of a revise loop's body/);
});

test("several independent problems are all reported in one pass, sorted, without follow-on errors", () => {
  const r = compileSource(
    PREP +
      `a = agent(name = "a", depends_on = [prep], effort = "hig", prompt = "p")
b = agent(name = "b", depends_on = [prep], over = prep.membrs, max_fanout = 3, prompt = "{{key}}")
c = agent(name = "c", depends_on = [b], over = prep.members, max_fanout = 3, prompt = "{{inputs.b}}")
d = command(name = "d", run = "x", timeout = "soon")
`,
  );
  assert.deepEqual(
    r.diagnostics.map((d) => `${d.pos!.line}:${d.code}`),
    ["2:invalid-value", "3:undeclared-field", "5:invalid-duration"],
  );
  assert.match(r.diagnostics[0]!.hint!, /did you mean "high"/);
});

test("docs/playbooks.md: every example compiles clean (or fails with its # expect: code)", async () => {
  const { readFileSync } = await import("node:fs");
  const doc = readFileSync("docs/playbooks.md", "utf8");
  const blocks = [...doc.matchAll(/```python\n([\s\S]*?)```/g)].map((m) => m[1]);
  assert.ok(blocks.length >= 4);
  for (const b of blocks) {
    const r = compileSource(b!);
    // A deliberately broken example says so on its first line and fails with exactly that code.
    const want = /^# expect: ([a-z-]+)/.exec(b!)?.[1];
    if (want) assert.deepEqual([...new Set(codes(r))], [want], b);
    else
      assert.deepEqual(
        r.diagnostics.map((d) => `${d.pos?.line}: ${d.code}: ${d.message}`),
        [],
        b,
      );
  }
});

test("G-8: a mistyped drop or answers label is reported once, without a follow-on uncovered-label", () => {
  const r = compileSource(
    PREP +
      `g = route(name = "g", depends_on = [prep], questions = {"ok": noul(ask = "?", drop = ["Yes"])})
x = agent(name = "x", depends_on = [g], when = g.ok, answers = ["no", "uncertain"], prompt = "p")
`,
  );
  assert.deepEqual(codes(r), ["unknown-label"]);
  assert.equal(r.diagnostics[0]!.hint, 'did you mean "yes"?');
});

test("L-15: diagnostics name files relative to the current directory", () => {
  const r = compilePath("test/fixtures/broken/unknown_label.star");
  assert.equal(r.diagnostics[0]!.pos!.file, "test/fixtures/broken/unknown_label.star");
  assert.ok(r.sources.has("test/fixtures/broken/unknown_label.star"));
});

test("C-2: None for an optional argument means not given, so helpers can pass options through", () => {
  const r = compileSource(
    PREP +
      `def step(name, dep, over = None, fanout = None):
    return command(name = name, depends_on = [dep], over = over, max_fanout = fanout, run = "true", timeout = None)
step("a", prep)
step("b", prep, over = prep.members, fanout = 5)
`,
  );
  assert.equal(task(r, "a").over, undefined);
  assert.deepEqual(task(r, "b").over, { task: "prep", field: "members" });
});

test("G-1: a gate with neither answers nor otherwise is reported alone, not as uncovered labels too", () => {
  const r = compileSource(
    PREP +
      `g = route(name = "g", depends_on = [prep], questions = {"ok": noul(ask = "?")})
x = agent(name = "x", depends_on = [g], when = g.ok, prompt = "p")
`,
  );
  assert.deepEqual(codes(r), ["gate-missing-answers"]);
  const empty = compileSource(
    PREP +
      `g = route(name = "g", depends_on = [prep], questions = {"ok": noul(ask = "?")})
x = agent(name = "x", depends_on = [g], when = g.ok, answers = [], prompt = "p")
`,
  );
  assert.deepEqual(codes(empty), ["invalid-value"]);
});

test("L-1: a malformed pack.toml is reported with its place", () => {
  const r = compileSource(PREP, { "pack.toml": "[pack]\nname = 3\n" });
  assert.deepEqual(codes(r), ["pack-toml"]);
  assert.match(r.diagnostics[0]!.message, /pack\.name must be a string/);
  const bad = compileSource(PREP, { "pack.toml": "[pack\n" });
  assert.deepEqual(codes(bad), ["pack-toml"]);
});

test("T-10: hasattr and getattr with a default probe a task's fields without an error", () => {
  const r = compileSource(
    PREP +
      `if hasattr(prep, "nope") or not hasattr(prep, "facts"):
    fail("hasattr is wrong")
if getattr(prep, "nope", None) != None:
    fail("getattr default is wrong")
`,
  );
  assert.deepEqual(codes(r), []);
});

test("T-4: an evaluate function whose name is rebound later is an error (the plan finds it by name)", () => {
  const r = compileSource(
    PREP +
      `def f(x):
    return {}
g = f
def f(x):
    return {"other": 1}
e = evaluate(name = "e", depends_on = [prep], fn = g)
`,
  );
  assert.deepEqual(codes(r), ["evaluate-not-top-level"]);
  assert.equal(r.diagnostics[0]!.pos!.line, 7);
});
