// Pairs for the lab's tests, written as a shadow would write them: one spec per pair, the model's
// answer (or none), and the host's side when the test is about cost.

import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { ShadowPair } from "../../src/decide/pair.js";
import type { Usage } from "../../src/run/kinds/index.js";

/** One pair: what the host and the model said about element `key` of type `type`. */
export interface PairSpec {
  type?: string;
  run?: string;
  key: string;
  kind?: "noul" | "choice" | "score";
  labels?: string[];
  host: string;
  /** The model's label; null: the model refused. */
  model: string | null;
  confidence?: number;
  provider?: string;
  modelName?: string;
  latency?: number;
  usage?: Usage | null;
  hostSide?: { latency_ms: number; usage: Usage | null };
}

/** The pair as a shadow records it. */
export function labPair(s: PairSpec): ShadowPair {
  const labels = s.labels ?? ["yes", "no"];
  const c = s.confidence ?? 0.9;
  const label = s.model ?? labels[0]!;
  const probabilities = Object.fromEntries(labels.map((l) => [l, l === label ? c : (1 - c) / (labels.length - 1)]));
  return {
    lab: "lab-261204000000-abcd",
    time: "2026-12-04T10:00:00.000Z",
    run: s.run ?? "run-1",
    type: s.type ?? "t.gate",
    task: "gate",
    key: s.key,
    question: { id: "q", kind: s.kind ?? "noul", labels },
    state_digest: `sha256:${s.key}`,
    host_label: s.host,
    model: {
      provider: s.provider ?? "sys1",
      model: s.modelName ?? "jev",
      label,
      probabilities,
      confidence: c,
      refused: s.model === null,
      latency_ms: s.latency ?? 1,
      usage: s.usage ?? null,
    },
    ...(s.hostSide ? { host: s.hostSide } : {}),
  };
}

/** Writes the pairs to a temporary pairs.jsonl, runs `body` with its path, and removes it. */
export async function withPairsFile<T>(pairs: ShadowPair[], body: (file: string, dir: string) => Promise<T> | T): Promise<T> {
  const dir = mkdtempSync(join(tmpdir(), "sy-lab-pairs-"));
  const file = join(dir, "pairs.jsonl");
  writeFileSync(file, pairs.map((p) => JSON.stringify(p) + "\n").join(""));
  try {
    return await body(file, dir);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

/** Count-matrix cells as pair specs: `counts[i][j]` pairs with host label i and model label j. */
export function pairsOfCounts(counts: number[][], labels: string[], base: Omit<PairSpec, "key" | "host" | "model">): PairSpec[] {
  const out: PairSpec[] = [];
  counts.forEach((row, i) =>
    row.forEach((n, j) => {
      for (let r = 0; r < n; r++)
        out.push({ ...base, labels, key: `${base.type ?? "t"}-${i}-${j}-${r}`, host: labels[i]!, model: labels[j]! });
    }),
  );
  return out;
}
