// `switchyard test --junit FILE`: the replayed run as JUnit XML for CI. One test suite
// per task, one test case per instance (element); a failed or blocked instance and a cassette
// miss are failures. No times are written, so the file is the same for the same run and a
// change to it in CI means a change in what happened.

import type { InstanceRow, TaskRow } from "../run/index.js";
import type { Miss } from "../run/cassette/index.js";

const escape = (s: string): string =>
  s
    .replace(/&/g, "&amp;")
    .replace(/</g, "&lt;")
    .replace(/>/g, "&gt;")
    .replace(/"/g, "&quot;")
    // eslint-disable-next-line no-control-regex -- characters XML 1.0 cannot hold at all
    .replace(/[\u0000-\u0008\u000b\u000c\u000e-\u001f]/g, "");

/** How a miss reads in a report: the element, why, and the diff lines. */
export function missLines(m: Miss): string[] {
  const where = `${m.task}${m.key !== null ? `[${m.key}]` : ""}${m.part ? ` ${m.part}` : ""}`;
  return [`${m.kind === "agent" ? "agent turn" : "decision"} ${where}: ${m.why}`, ...m.diff.map((d) => `    ${d}`)];
}

interface Case {
  name: string;
  failure?: { type: string; message: string; body: string };
}

/** The test run as JUnit XML: a suite per task, a case per element, a miss or a failed element as its failure; no times, so the file is the same run to run. */
export function junitXml(playbook: string, tasks: TaskRow[], instances: InstanceRow[], misses: Miss[]): string {
  const byTask = new Map<string, Case[]>();
  for (const t of tasks) byTask.set(t.task, []);
  const missed = new Map<string, Miss[]>();
  for (const m of misses) {
    const id = `${m.task}\0${m.key ?? ""}`;
    missed.set(id, [...(missed.get(id) ?? []), m]);
  }
  for (const i of instances) {
    const ms = missed.get(`${i.task}\0${i.key ?? ""}`) ?? [];
    const c: Case = { name: i.key ?? i.task };
    if (ms.length) {
      const text = ms.flatMap(missLines);
      c.failure = { type: "cassette-miss", message: text[0]!, body: text.join("\n") };
    } else if (i.status === "failed" || i.status === "blocked") {
      c.failure = { type: i.status, message: i.error ?? i.status, body: i.error ?? "" };
    }
    byTask.get(i.task)?.push(c);
  }
  const all = [...byTask.values()].flat();
  const failures = all.filter((c) => c.failure).length;
  const out = [
    `<?xml version="1.0" encoding="UTF-8"?>`,
    `<testsuites name="${escape(`switchyard test ${playbook}`)}" tests="${all.length}" failures="${failures}">`,
  ];
  for (const [task, cases] of byTask) {
    out.push(`  <testsuite name="${escape(task)}" tests="${cases.length}" failures="${cases.filter((c) => c.failure).length}">`);
    for (const c of cases) {
      const head = `    <testcase classname="${escape(`${playbook}.${task}`)}" name="${escape(c.name)}"`;
      if (!c.failure) {
        out.push(`${head}/>`);
        continue;
      }
      out.push(`${head}>`);
      out.push(
        `      <failure type="${escape(c.failure.type)}" message="${escape(c.failure.message)}">${escape(c.failure.body)}</failure>`,
      );
      out.push(`    </testcase>`);
    }
    out.push(`  </testsuite>`);
  }
  out.push(`</testsuites>`, "");
  return out.join("\n");
}
