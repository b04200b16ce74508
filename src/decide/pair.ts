// A shadow pair (H-1): the host's answer beside the model's, for the lab to measure agreement.
// Never the state itself (only its digest), never a secret.

import { createHash } from "node:crypto";
import type { QuestionKind } from "../plan/plan.js";
import type { Usage } from "../run/kinds/index.js";

/** The digest a pair carries instead of the state: "sha256:<hex>" of the serialised state (H-1). */
export function stateDigest(stateText: string): string {
  return "sha256:" + createHash("sha256").update(stateText, "utf8").digest("hex");
}

/** One line of a lab's pairs.jsonl: what the host and a shadow (or audited) model said about the same question and state. */
export interface ShadowPair {
  lab: string;
  /**
   * "audit" for a turned-on decision the host was also asked about (D-34); "reviewed" for a label
   * a person gave the element (`lab import`), beside the host's and the model's answers; absent: shadow.
   */
  kind?: "shadow" | "audit" | "reviewed";
  time: string; // ISO 8601
  run: string;
  type: string; // judgement type
  task: string;
  key: string | null;
  /**
   * The attempt of the route instance that asked. Pairs that carry it are counted once per
   * (run, task, key, question) by harvest: a crash before the decision was committed asks the
   * element again on resume, and writes a second pair.
   */
  attempt?: number;
  question: { id: string; kind: QuestionKind; labels: string[] };
  state_digest: string; // "sha256:<hex>" of the serialised state
  host_label: string;
  /** The model's answer; absent when skipped or failed. */
  model?: {
    provider: string;
    model: string;
    label: string;
    probabilities: Record<string, number>;
    confidence: number;
    refused: boolean;
    latency_ms: number;
    usage: Usage | null;
    /** Audit pairs of a calibrated type: the confidence after the map (D-33), and its id. */
    calibrated_confidence?: number;
    calibration?: string;
  };
  /** Set when the model was not asked or could not answer: "window", "error: …", "resolver: …". */
  skipped?: { provider: string; model: string; reason: string };
  /**
   * What the host's answer took: the call's latency and, on the call's first question only, its
   * usage (the decision record's rule). Recorded since the lab reports cost; older pairs lack it.
   */
  host?: { latency_ms: number; usage: Usage | null };
  /** On a `reviewed` pair: the label a person gave, where it came from, and when it was read in. */
  reviewed?: { label: string; by: string | null; source: string; time: string };
}

/** Where the router appends pairs; the lab (src/lab) implements it over pairs.jsonl. */
export interface PairSink {
  append(pair: Omit<ShadowPair, "lab">): void;
}
