// The plan as a graph: tasks in columns by depth (each task one column right of its deepest
// dependency), edges from dependency to dependent. Aligned edges (the instance reads the same
// key's instance) are solid, others (the dependency's fold or output) dashed; a gated task
// shows its gate. Each node is coloured by the task's status in the run.

import { svg } from "./dom.js";
import type { GraphTask, RunDoc } from "../api-types.js";
import { entryOf } from "../../shared/checked-index.js";

const W = 200;
/** A gate's text is wrapped at this many characters, on at most GATE_LINES lines (the rest is in the title). */
const GATE_CHARS = 32;
const GATE_LINES = 2;
const H = 40 + GATE_LINES * 13;
const GAP_X = 56;
const GAP_Y = 16;
const PAD = 8;

/** The run's task graph as SVG, tasks in columns by depth, each clickable. */
export function graphView(doc: RunDoc, onTask: (t: GraphTask) => void): SVGElement {
  const depth = new Map<string, number>();
  for (const t of doc.graph)
    depth.set(
      t.name,
      t.depends_on.reduce((d, dep) => Math.max(d, (depth.get(dep) ?? 0) + 1), 0),
    );
  const columns: GraphTask[][] = [];
  for (const t of doc.graph) (columns[entryOf(depth, t.name, "the graph's depths")] ??= []).push(t);
  const pos = new Map<string, { x: number; y: number }>();
  columns.forEach((col, ci) => col.forEach((t, ri) => pos.set(t.name, { x: PAD + ci * (W + GAP_X), y: PAD + ri * (H + GAP_Y) })));
  const width = PAD * 2 + columns.length * W + (columns.length - 1) * GAP_X;
  const height = PAD * 2 + Math.max(...columns.map((c) => c.length)) * (H + GAP_Y) - GAP_Y;
  const root = svg("svg", { class: "graph", width, height, viewBox: `0 0 ${width} ${height}`, role: "img", "aria-label": "plan graph" });
  root.appendChild(
    svg(
      "defs",
      {},
      svg(
        "marker",
        { id: "arrow", viewBox: "0 0 8 8", refX: 8, refY: 4, markerWidth: 7, markerHeight: 7, orient: "auto-start-reverse" },
        svg("path", { d: "M0,0 L8,4 L0,8 z", class: "arrowhead" }),
      ),
    ),
  );
  for (const t of doc.graph) {
    const to = entryOf(pos, t.name, "the graph's positions");
    for (const dep of t.depends_on) {
      const from = pos.get(dep);
      if (!from) continue;
      const x1 = from.x + W;
      const y1 = from.y + H / 2;
      const x2 = to.x;
      const y2 = to.y + H / 2;
      const mid = (x1 + x2) / 2;
      const aligned = t.aligned_with.includes(dep);
      root.appendChild(
        svg(
          "path",
          {
            class: `edge ${aligned ? "aligned" : "whole"}`,
            d: `M${x1},${y1} C${mid},${y1} ${mid},${y2} ${x2 - 2},${y2}`,
            "marker-end": "url(#arrow)",
            "data-from": dep,
            "data-to": t.name,
          },
          svg("title", {}, `${dep} → ${t.name}: ${aligned ? "aligned (same key)" : "reads the whole task"}`),
        ),
      );
    }
  }
  for (const t of doc.graph) {
    const p = entryOf(pos, t.name, "the graph's positions");
    const status = doc.tasks[t.name]?.status ?? "pending";
    const g = svg(
      "g",
      { class: `node t-${status}`, transform: `translate(${p.x},${p.y})`, "data-task": t.name, tabindex: 0 },
      svg("rect", { width: W, height: H, rx: 6 }),
      svg("text", { x: 8, y: 17, class: "name" }, t.name),
      svg("text", { x: W - 8, y: 17, class: "kind", "text-anchor": "end" }, `${t.kind}${t.mapped ? " ×" : ""}`),
      svg("text", { x: 8, y: 32, class: "status" }, `${status}${t.join === "settled" ? " · settled join" : ""}`),
      ...gateLines(t.gate).map((line, i) => svg("text", { x: 8, y: 46 + i * 13, class: "gate" }, line, svg("title", {}, `when ${t.gate}`))),
      svg("title", {}, `${t.name} (${t.kind}${t.mapped ? ", mapped" : ""}) ${status}${t.gate ? `\nwhen ${t.gate}` : ""}`),
    );
    g.addEventListener("click", () => onTask(t));
    root.appendChild(g);
  }
  return root;
}

/** A gate's text on at most GATE_LINES lines of GATE_CHARS, broken at spaces; the last line cut with "…" only when it must be. */
function gateLines(gate: string | null): string[] {
  if (!gate) return [];
  const lines: string[] = [];
  let line = "";
  for (const word of gate.split(" ")) {
    if (line && line.length + 1 + word.length > GATE_CHARS) {
      lines.push(line);
      line = word;
    } else line = line ? `${line} ${word}` : word;
  }
  lines.push(line);
  const shown = lines.slice(0, GATE_LINES).map((l) => (l.length > GATE_CHARS ? l.slice(0, GATE_CHARS - 1) + "…" : l));
  if (lines.length > GATE_LINES) shown[GATE_LINES - 1] = `${(shown[GATE_LINES - 1] ?? "").slice(0, GATE_CHARS - 1)}…`;
  return shown;
}
