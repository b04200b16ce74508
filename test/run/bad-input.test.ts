// Bad input fails exactly the affected instance or task, with a message naming the cause (T-1,
// T-12, M-1, M-3, D-40), and the rest of the run carries on.

import { test } from "node:test";
import assert from "node:assert/strict";
import { harness, plan, evaluate, command, agent, mapped, ref, runPlan, runner, writeJson } from "./helpers.js";

const emits = { name: "string", count: "number" } as const;

test("T-1/T-12: a command exiting 0 without output, with invalid JSON, a missing field or a wrong type fails only itself", async () => {
  const h = harness();
  try {
    const p = plan([
      command("no_output", "true", { emits: { ...emits } }),
      command("not_json", `echo '{nope' > "$SWITCHYARD_OUTPUT"`, { emits: { ...emits } }),
      command("missing", writeJson({ name: "x" }), { emits: { ...emits } }),
      command("wrong", writeJson({ name: "x", count: "3" }), { emits: { ...emits } }),
      command("not_object", writeJson([1, 2]), { emits: { ...emits } }),
      command("exit3", "echo oops >&2; exit 3", {}),
      command("good", writeJson({ name: "x", count: 3, extra: true }), { emits: { ...emits } }),
      evaluate("after_good", { depends_on: ["good"] }),
    ]);
    const { show, outcome } = await runPlan(h, p, { fns: { after_good: (i) => ({ got: i.inputs.good }) } });
    assert.equal(outcome.status, "failed");
    const err = (t: string) => show.tasks[t]!.error ?? "";
    assert.match(
      err("no_output"),
      /^output-missing: the command exited 0 but wrote no output to \$SWITCHYARD_OUTPUT; it declares name, count/,
    );
    assert.match(err("not_json"), /^output-invalid: what the command wrote to \$SWITCHYARD_OUTPUT is not valid JSON/);
    assert.match(err("missing"), /^output-invalid: declared field "count" is missing/);
    assert.match(err("wrong"), /^output-invalid: field "count" should be number but is string/);
    assert.match(err("not_object"), /^output-invalid: the output must be a JSON object, got list/);
    assert.match(err("exit3"), /^command-failed: the command exited with status 3 \(log: .*\.log\)/);
    assert.equal(show.tasks.good!.status, "passed");
    assert.deepEqual(show.tasks.after_good!.output, { got: { name: "x", count: 3, extra: true } });
  } finally {
    h.store.close();
    h.dir.cleanup();
  }
});

test("M-1: duplicate keys, an object element, a control-character key, a list over max_fanout each fail only their mapped task before any instance", async () => {
  const h = harness();
  try {
    const t = (name: string, field: string, max = 100) =>
      evaluate(name, { depends_on: ["prepare"], over: ref("prepare", field), max_fanout: max });
    const p = plan([
      evaluate("prepare", { emits: {} }),
      t("dup", "dup"),
      t("obj", "obj"),
      t("ctl", "ctl"),
      t("long", "long", 3),
      t("toolong", "toolong"),
      t("fine", "fine"),
    ]);
    let ran = 0;
    const each = () => {
      ran++;
      return {};
    };
    const { show } = await runPlan(h, p, {
      fns: {
        prepare: () => ({
          dup: ["a", "b", "a"],
          obj: ["a", { b: 1 }],
          ctl: ["a", "b\u0007c"],
          long: [1, 2, 3, 4],
          toolong: ["x".repeat(257)],
          fine: ["a", "b"],
        }),
        dup: each,
        obj: each,
        ctl: each,
        long: each,
        toolong: each,
        fine: each,
      },
    });
    assert.equal(ran, 2);
    assert.match(show.tasks.dup!.error!, /duplicate-key: element 2 of prepare\.dup repeats the key "a"/);
    assert.match(show.tasks.obj!.error!, /bad-element: element 1 of prepare\.obj is an object/);
    assert.match(show.tasks.ctl!.error!, /bad-element: element 1 of prepare\.ctl .* contains a NUL or control character/);
    assert.match(show.tasks.long!.error!, /over-max-fanout: prepare\.long has 4 elements, more than max_fanout = 3/);
    assert.match(show.tasks.toolong!.error!, /keys are 1 to 256 characters/);
    for (const name of ["dup", "obj", "ctl", "long", "toolong"]) {
      assert.equal(show.tasks[name]!.status, "failed");
      assert.deepEqual(show.tasks[name]!.instances, {});
    }
    assert.equal(show.tasks.fine!.status, "passed");
  } finally {
    h.store.close();
    h.dir.cleanup();
  }
});

test("M-3: a keyed object missing an element's key fails only that instance", async () => {
  const h = harness();
  try {
    const p = plan([
      command("prepare", writeJson({ members: ["a", "b"], facts: { a: 1 } }), { emits: { members: "list", facts: "object" } }),
      command("each", writeJson({}), { depends_on: ["prepare"], ...mapped(ref("prepare", "members")), keyed: [ref("prepare", "facts")] }),
    ]);
    const { show } = await runPlan(h, p);
    assert.equal(show.tasks.each!.instances!.a!.status, "passed");
    assert.equal(show.tasks.each!.instances!.b!.status, "failed");
    assert.match(show.tasks.each!.instances!.b!.error!, /keyed-missing: prepare\.facts has no entry for key "b"/);
  } finally {
    h.store.close();
    h.dir.cleanup();
  }
});

test("D-40: an agent runner that is not configured, or not executable, fails only its instances", async () => {
  const h = harness();
  try {
    const notExec = h.dir.file("runner-noexec.sh", "#!/bin/sh\nexit 0\n", 0o644);
    const ok = h.dir.file("runner-ok.sh", `#!/bin/sh\ncat > /dev/null\nprintf '{"done":true}' > "$SWITCHYARD_OUTPUT"\n`, 0o755);
    const p = plan([
      agent("unconfigured", "hi", { runner: "ghost" }),
      agent("noexec", "hi", { runner: "noexec" }),
      agent("missing_bin", "hi", { runner: "nobin" }),
      agent("fine", "hi", { runner: "ok" }),
    ]);
    const { show } = await runPlan(h, p, {
      agentRunners: { ...runner("noexec", [notExec]), ...runner("nobin", ["/nonexistent/agent-bin"]), ...runner("ok", [ok]) },
    });
    assert.match(
      show.tasks.unconfigured!.error!,
      /^agent-runner-missing: agent runner "ghost" is not configured \(D-40\); add \[agents\.ghost\]/,
    );
    assert.match(show.tasks.noexec!.error!, /^agent-runner-failed: agent runner "noexec" .* could not be started: not executable/);
    assert.match(show.tasks.missing_bin!.error!, /^agent-runner-failed: agent runner "nobin" .* could not be started: no such file/);
    assert.equal(show.tasks.fine!.status, "passed");
    assert.deepEqual(show.tasks.fine!.output, { done: true });
  } finally {
    h.store.close();
    h.dir.cleanup();
  }
});
