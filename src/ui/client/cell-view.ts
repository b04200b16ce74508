// A cell: one instance's status, input, output, error with its code, attempts, the decision
// record (probabilities as bars, mode, provider/model, latency, usage, receipt), and per attempt
// the prompt the agent got, the log tail and the files it left. All of it is shown as text.

import { h, pretty, when } from "./dom.js";
import type { CellDecision, CellDoc } from "../api-types.js";

function section(title: string, ...body: Array<Node | string | null>): HTMLElement {
  return h("section", { class: "cell-section" }, h("h3", {}, title), ...body);
}

const pre = (text: string, cls = "") => h("pre", { class: cls }, text);

function decisionEl(d: CellDecision): HTMLElement {
  const probs = Object.entries(d.probabilities).sort((a, b) => b[1] - a[1]);
  const who = d.mode === "output" ? "from the producer's output" : `${d.provider ?? "?"}/${d.model ?? "?"}`;
  return h(
    "div",
    { class: "decision", "data-question": d.question },
    h("p", {}, h("b", {}, `${d.question} = ${d.label}`), ` confidence ${d.confidence.toFixed(3)}${d.refused ? " · refused" : ""}`),
    h(
      "p",
      { class: "meta" },
      `mode ${d.mode} · ${who} · ${d.latency_ms} ms · type ${d.judgement_type}${d.usage ? ` · usage ${JSON.stringify(d.usage)}` : ""}`,
    ),
    h(
      "table",
      { class: "probs" },
      ...probs.map(([label, p]) => {
        const fill = h("span", { class: "fill" });
        fill.style.width = `${(p * 100).toFixed(1)}%`;
        return h(
          "tr",
          { class: label === d.label ? "chosen" : "", "data-label": label },
          h("td", { class: "plabel" }, label),
          h("td", { class: "pbar" }, h("span", { class: "bar" }, fill)),
          h("td", { class: "pnum" }, p.toFixed(3)),
        );
      }),
    ),
    d.receipt
      ? h(
          "p",
          { class: "receipt" },
          `receipt: ${d.receipt.provider}/${d.receipt.model} could not answer, the host did (${when(d.receipt.time)}): ${d.receipt.reason}`,
        )
      : null,
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
  if (c.error) parts.push(section("error", pre(`${c.code ? `error[${c.code}]: ` : ""}${c.error}`, "error")));
  if (c.decisions.length) parts.push(section("decision", ...c.decisions.map(decisionEl)));
  else if (c.output !== null && c.output !== undefined) parts.push(section("output", pre(pretty(c.output))));
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
      section(
        "events",
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
