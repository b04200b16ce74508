// The layering and the absence of import cycles are lint errors, so `npm test`
// (which runs eslint before the suite) fails on them. These tests show the rules bite: each lints
// a real source file with one import added, through the project's own eslint.config.js.

import { test } from "node:test";
import assert from "node:assert/strict";
import { readdirSync, readFileSync } from "node:fs";
import { dirname, join, normalize } from "node:path";
import { ESLint } from "eslint";

const eslint = new ESLint({ cwd: process.cwd() });

async function problems(filePath: string, extraImport: string): Promise<string[]> {
  const source = `${extraImport}\n${readFileSync(filePath, "utf8")}`;
  const [result] = await eslint.lintText(source, { filePath });
  return result!.messages.filter((m) => m.severity === 2).map((m) => `${m.ruleId}: ${m.message}`);
}

test("a lower layer importing an upper one is a lint error (src/lang → src/plan)", async () => {
  const found = await problems("src/lang/ops.ts", `import { PLAN_CODES } from "../plan/codes.js"; void PLAN_CODES;`);
  assert.equal(found.length, 1, found.join("\n"));
  assert.match(found[0]!, /^import-x\/no-restricted-paths: .*src\/lang is below src\/plan/);
});

test("src/run importing src/cli is a lint error, src/run importing src/plan is not", async () => {
  const up = await problems("src/run/store/store.ts", `import * as cliMain from "../../cli/main.js"; void cliMain;`);
  assert.ok(
    up.some((m) => /no-restricted-paths: .*src\/run is below src\/cli/.test(m)),
    up.join("\n"),
  );
  const down = await problems("src/run/store/store.ts", `import * as planIndex from "../../plan/index.js"; void planIndex;`);
  assert.deepEqual(down, []);
});

test("an import cycle is a lint error (the old src/lang/eval ↔ src/lang/builtins cycle)", async () => {
  const found = await problems("src/lang/eval.ts", `import { UNIVERSE } from "./builtins.js"; void UNIVERSE;`);
  assert.ok(
    found.some((m) => m.startsWith("import-x/no-cycle:")),
    found.join("\n"),
  );
});

test("the tree as committed has no layering or cycle errors", async () => {
  const found = await problems("src/lang/eval.ts", "");
  assert.deepEqual(found, []);
});

test("a room of src/run is entered through its index only: engine importing a file inside store is a lint error, its door is not", async () => {
  const deep = await problems("src/run/engine/gating.ts", `import { chargedUsd } from "../store/events.js"; void chargedUsd;`);
  assert.equal(deep.length, 1, deep.join("\n"));
  assert.match(deep[0]!, /^import-x\/no-restricted-paths: .*src\/run\/store\/index\.ts is the room's only door/);
  const door = await problems("src/run/engine/gating.ts", `import { chargedUsd } from "../store/index.js"; void chargedUsd;`);
  assert.deepEqual(door, []);
});

test("an upper layer enters a room of src/run through its door too (src/cli reaching into src/run/store is a lint error)", async () => {
  const found = await problems("src/cli/show.ts", `import { decodeEvent as d } from "../run/store/events.js"; void d;`);
  assert.equal(found.length, 1, found.join("\n"));
  assert.match(found[0]!, /src\/run\/store\/index\.ts is the room's only door/);
});

test("rooms import downward only: store importing the engine's door is a lint error, kinds importing the store's is not", async () => {
  const up = await problems("src/run/store/show.ts", `import { RunEngine } from "../engine/index.js"; void RunEngine;`);
  assert.ok(
    up.some((m) => /no-restricted-paths: .*src\/run\/store is below src\/run\/engine/.test(m)),
    up.join("\n"),
  );
  const down = await problems("src/run/kinds/evaluate.ts", `import { chargedUsd } from "../store/index.js"; void chargedUsd;`);
  assert.deepEqual(down, []);
});

/** Every .ts file under a folder, recursively. */
function sourceFiles(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((d) =>
    d.isDirectory() ? sourceFiles(join(dir, d.name)) : d.name.endsWith(".ts") ? [join(dir, d.name)] : [],
  );
}

/** The files each file imports (type-only imports included), resolved to their .ts paths. */
function importGraph(root: string): Map<string, string[]> {
  const graph = new Map<string, string[]>();
  for (const file of sourceFiles(root)) {
    const specs = [...readFileSync(file, "utf8").matchAll(/^(?:import|export)\s[^;]*?["'](\.{1,2}\/[^"']+)\.js["']/gm)];
    graph.set(
      file,
      specs.map((m) => normalize(join(dirname(file), `${m[1]}.ts`))),
    );
  }
  return graph;
}

/** One import cycle of the graph, as the files around it, or undefined when there is none. */
function findCycle(graph: Map<string, string[]>): string[] | undefined {
  const state = new Map<string, "open" | "done">();
  const path: string[] = [];
  const visit = (f: string): string[] | undefined => {
    if (state.get(f) === "done" || !graph.has(f)) return undefined;
    if (state.get(f) === "open") return [...path.slice(path.indexOf(f)), f];
    state.set(f, "open");
    path.push(f);
    for (const next of graph.get(f) ?? []) {
      const cycle = visit(next);
      if (cycle) return cycle;
    }
    path.pop();
    state.set(f, "done");
    return undefined;
  };
  for (const f of graph.keys()) {
    const cycle = visit(f);
    if (cycle) return cycle;
  }
  return undefined;
}

test("no import cycle anywhere in src/, type-only imports included (import-x/no-cycle skips those)", () => {
  const graph = importGraph("src");
  assert.ok(graph.size > 200, `read ${graph.size} files`);
  assert.equal(findCycle(graph)?.join(" → "), undefined);
  // The finder finds a cycle that is there: the one this tree had between events and the stores.
  const known = new Map(graph);
  known.set("src/run/store/decision-record.ts", ["src/run/kinds/judge.ts"]);
  assert.ok(findCycle(known)?.includes("src/run/kinds/judge.ts"));
});

test("src/api sits between src/ui and src/cli: src/ui and src/run importing it are lint errors, src/cli importing it is not", async () => {
  const fromUi = await problems("src/ui/decisions.ts", `import { openState } from "../api/index.js"; void openState;`);
  assert.ok(
    fromUi.some((m) => /no-restricted-paths: .*src\/ui is below src\/api/.test(m)),
    fromUi.join("\n"),
  );
  const fromRun = await problems("src/run/index.ts", `import { openState } from "../api/index.js"; void openState;`);
  assert.ok(
    fromRun.some((m) => /no-restricted-paths: .*src\/run is below src\/api/.test(m)),
    fromRun.join("\n"),
  );
  const fromCli = await problems("src/cli/show.ts", `import { openState } from "../api/index.js"; void openState;`);
  assert.deepEqual(fromCli, []);
  const apiUp = await problems("src/api/state.ts", `import * as cliMain from "../cli/main.js"; void cliMain;`);
  assert.ok(
    apiUp.some((m) => /no-restricted-paths: .*src\/api is below src\/cli/.test(m)),
    apiUp.join("\n"),
  );
});
