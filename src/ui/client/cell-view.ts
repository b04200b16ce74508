// A cell: one instance's status, input, output, error (read once, with its code), attempts, the
// decision record (cell-decision.ts) and the state the model saw, a revise loop's rounds, and
// per attempt the prompt the agent got, the log tail and the files it left; the raw events are
// folded away at the end. All of it is shown as text.

import { h, pretty, when } from "./dom.js";
import type { CellDoc, CellWhy } from "../api-types.js";
import { runHash } from "../hash.js";
import { forPeople } from "../../shared/words.js";
import { decisionEl } from "./cell-decision.js";
import { errorText } from "../decisions.js";

function section(title: string, ...body: Array<Node | string | null>): HTMLElement {
  return h("section", { class: "cell-section" }, h("h3", {}, title), ...body);
}

const pre = (text: string, cls = "") => h("pre", { class: cls }, text);

/** A revise loop's rounds: per round the body's prompt and output, and the reviewer's verdict and feedback. */
function roundsEl(c: CellDoc): HTMLElement {
  const several = new Set(c.rounds.map((r) => r.attempt)).size > 1;
  return section(
    "rounds",
    ...c.rounds.map((r) =>
      h(
        "details",
        { class: "round", "data-round": r.round, "data-attempt": r.attempt, open: true },
        h("summary", {}, `${several ? `attempt ${r.attempt} · ` : ""}round ${r.round}: the reviewer said ${r.verdict}`),
        r.prompt !== null ? h("div", { class: "round-part" }, h("h4", {}, "prompt"), pre(r.prompt, "prompt")) : null,
        h("div", { class: "round-part" }, h("h4", {}, "output"), pre(pretty(r.output), "round-output")),
        r.feedback !== undefined
          ? h(
              "div",
              { class: "round-part" },
              h("h4", {}, "feedback"),
              pre(typeof r.feedback === "string" ? r.feedback : pretty(r.feedback), "feedback"),
            )
          : null,
      ),
    ),
  );
}

/** Why the cell did not run: the reason, the gate, and the route's answer that closed it (a link to its cell). */
function whyEl(c: CellDoc, why: CellWhy): HTMLElement {
  const a = why.answer;
  const d = a?.decision;
  const answer = a
    ? h(
        "p",
        { class: "why-answer" },
        "the route answered ",
        h("a", { href: runHash(c.run, { task: a.task, key: a.key }) }, `${a.task}${a.key === null ? "" : `[${a.key}]`}.${a.question}`),
        d
          ? ` = ${d.label}, confidence ${d.confidence.toFixed(3)}${d.min_confidence !== null ? ` (min_confidence ${d.min_confidence.toFixed(2)})` : ""}`
          : ": no answer recorded",
      )
    : null;
  return section(
    "why not run",
    why.reason ? h("p", { class: "why-reason" }, forPeople(why.reason)) : null,
    why.gate ? h("p", { class: "meta" }, `gate: runs when ${why.gate}`) : null,
    answer,
  );
}

/** The state the model saw, folded away (it can be long). */
function stateEl(state: string): HTMLElement {
  let shown = state;
  try {
    shown = pretty(JSON.parse(state));
  } catch {
    // not JSON: shown as sent
  }
  return h(
    "details",
    { class: "state" },
    h("summary", {}, `the state the model saw (${state.length} characters)`),
    pre(shown, "state-text"),
  );
}

/** The cell page: an instance's status, decision, attempts, input, prompt, log and files (links only when live). */
export function cellView(c: CellDoc, live: boolean, fileLink: (attempt: number, path: string) => string): HTMLElement {
  const title = `${c.task}${c.key === null ? "" : `[${c.key}]`}`;
  const parts: Array<HTMLElement | null> = [
    h("h2", {}, title, " ", h("span", { class: `badge s-${c.status}` }, c.status)),
    h(
      "p",
      { class: "meta" },
      `${c.kind} · ${c.attempts} attempt${c.attempts === 1 ? "" : "s"}${c.label ? ` · not taken: ${c.label}` : ""}`,
    ),
  ];
  if (c.why) parts.push(whyEl(c, c.why));
  if (c.error) parts.push(section("error", pre(forPeople(errorText(c.error, c.code)), "error")));
  if (c.decisions.length) parts.push(section("decision", ...c.decisions.map(decisionEl)));
  if (c.state !== undefined) parts.push(stateEl(c.state));
  if (c.rounds.length) parts.push(roundsEl(c));
  if (!c.decisions.length && c.output !== null && c.output !== undefined) parts.push(section("output", pre(pretty(c.output))));
  for (const a of c.attempt_files) {
    const files = a.files.length
      ? h(
          "ul",
          { class: "files" },
          ...a.files.map((f) =>
            h("li", {}, h("a", { href: fileLink(a.attempt, f.path), target: "_blank", rel: "noopener" }, f.path), ` ${f.bytes} B`),
          ),
        )
      : h("p", { class: "meta" }, "no files in the workspace");
    parts.push(
      h(
        "details",
        { class: "attempt", open: a.attempt === c.attempts },
        h("summary", {}, `attempt ${a.attempt}`),
        a.input !== null ? section("input", pre(pretty(a.input))) : null,
        a.prompt !== null ? section("prompt", pre(a.prompt, "prompt")) : null,
        section("log (tail)", pre(a.log_tail || "(empty)", "log")),
        a.usage !== null ? section("usage", pre(pretty(a.usage))) : null,
        section("files left", files),
      ),
    );
  }
  if (!live)
    parts.push(h("p", { class: "meta" }, "Inputs, prompts, logs and files are not in this file: open the run with `switchyard ui`."));
  if (c.events.length)
    parts.push(
      h(
        "details",
        { class: "events-log" },
        h("summary", {}, `events (${c.events.length})`),
        h(
          "table",
          { class: "events" },
          ...c.events.map((e) =>
            h(
              "tr",
              {},
              h("td", {}, String(e.seq)),
              h("td", {}, when(e.time)),
              h("td", {}, e.type),
              h("td", { class: "payload" }, brief(e.payload)),
            ),
          ),
        ),
      ),
    );
  return h("article", { class: "cell-view", "data-task": c.task, "data-key": c.key ?? "" }, ...parts);
}

function brief(v: unknown): string {
  const s = JSON.stringify(v);
  return s.length > 160 ? s.slice(0, 157) + "…" : s;
}
