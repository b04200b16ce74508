// The estimate (X-5) as people read it: a few small tables, each saying where its numbers came
// from (a producer that ran, --elements, max_fanout as an upper bound; measured or assumed sizes).

import { takenAt, type Estimate } from "./estimate-model.js";
import { table } from "./run-progress.js";

const num = (n: number) => n.toLocaleString("en-US");
const pct = (share: number) => `${Math.round(share * 100)} %`;
const usd = (n: number) => `$${n.toFixed(2)}`;

function elementsSection(e: Estimate): string[] {
  if (e.elements.length === 0) return ["elements: no mapped task"];
  const from = (r: Estimate["elements"][number]) =>
    r.from === "run"
      ? `${r.over} (its producer ran)`
      : `${r.from === "--elements" ? "--elements" : "max_fanout, at most"}: ${r.why ?? "its producer did not run"}`;
  const rows = e.elements.map((r) => [
    r.task,
    `${num(r.elements)}${r.over_fanout ? " (over max_fanout: the task would fail)" : ""}`,
    from(r),
  ]);
  return ["elements per mapped task", indent(table(["task", "elements", "from"], rows))];
}

function decisionsSection(e: Estimate): string[] {
  if (e.decisions.length === 0) return ["decisions: none (no model-decided route)"];
  const total = e.decisions.reduce((n, d) => n + d.decisions, 0);
  const rows = e.decisions.map((d) => [d.type, num(d.decisions), d.answered_by]);
  const routes = e.routes.map((r) => [
    r.route,
    num(r.requests),
    String(r.questions),
    `${num(r.state_tokens)} (${r.measured ? "measured" : "estimated"})`,
    num(r.tokens_per_request),
    num(r.tokens),
  ]);
  return [
    `decisions at most: ${num(total)}`,
    indent(table(["judgement type", "decisions", "answered by"], rows)),
    "",
    "tokens per decision request (one request per element carries its route's questions)",
    indent(table(["route", "requests", "questions", "state tokens", "tokens per request", "input tokens in all"], routes)),
  ];
}

function turnsSection(e: Estimate): string[] {
  if (e.turns.length === 0) return ["agent turns: none"];
  const shares = e.shares;
  const header = ["task", "runner", "at most", ...shares.filter((s) => s > 0).map((s) => `${pct(s)} not taken`)];
  const rows = e.turns.map((t) => [`${t.task}${t.gated ? " (gated)" : ""}`, t.runner, ...shares.map((s) => num(takenAt(t, s)))]);
  rows.push(["total", "", ...e.turns_at.map((x) => num(x.turns))]);
  return [
    "agent turns (every element, revise round and retry; gated tasks at shares of their elements not taken)",
    indent(table(header, rows)),
  ];
}

function costSection(e: Estimate): string[] {
  const agents = e.cost.agents;
  const line =
    agents === null
      ? `agent turns: ${e.cost.agents_unknown ?? "unknown"}`
      : agents.length === 0
        ? "agent turns: none"
        : `agent turns: ${agents.map((c) => `${usd(c.usd)} at ${c.share ? `${pct(c.share)} not taken` : "most"}`).join(", ")}`;
  return ["cost", `  ${line}`, `  decisions: ${e.cost.decisions_unknown}`];
}

function indent(text: string): string {
  return text
    .split("\n")
    .map((l) => `  ${l}`)
    .join("\n");
}

/** The estimate as text for people. */
export function estimateText(e: Estimate): string {
  const ran = e.ran.length ? `ran ${e.ran.join(", ")} in a scratch state, thrown away` : "ran nothing";
  const head = `estimate for playbook '${e.playbook}' (${ran}; no provider was called and no agent started)`;
  return [head, "", ...elementsSection(e), "", ...decisionsSection(e), "", ...turnsSection(e), "", ...costSection(e)].join("\n") + "\n";
}
