// Dependency outputs that many jobs share travel once (performance). An instance's
// input holds every dependency's output: for a task mapped over a list, each instance
// carries the whole producer, list included, so N jobs carried N copies — 23 KB per job at
// 3,000 elements, 78 KB at 10,000: quadratic bytes through the queue, the coordinator's commits
// and the workers. A large output is written once per run to `queue_inputs`, under its content
// hash, in the commit that adds the first job naming it; the job names the hash instead, and a
// worker reads it once and keeps it. The input an instance sees is unchanged, key order included.

import { createHash } from "node:crypto";
import type { Pool } from "pg";
import type { InstanceInput } from "../kinds/index.js";
import { queueDb } from "../store/index.js";
import { CodedError } from "../../shared/coded-error.js";
import { parseJson } from "../../shared/primitives.js";

/** Outputs whose JSON is at least this long travel by hash; smaller ones ride in the job. */
export const SHARED_INPUT_BYTES = 2048;

/** How many outputs a worker keeps parsed (a few per run; each is read from the store once). */
const WORKER_CACHE_ENTRIES = 64;

/** An instance's input with the large shared outputs taken out, sent once per run instead of per job. */
export interface SplitInput {
  /** The input with each shared output replaced by null (its key keeps its place). */
  input: InstanceInput;
  /** Dependency name → hash of its output, when any output travels separately. */
  shared?: Record<string, string>;
}

/** The coordinator's side: splits inputs, and stores each output the first time a job names it. */
export class InputSharer {
  /** Hashes of outputs this coordinator has stored (or will with the next commit). */
  private readonly stored = new Set<string>();
  /** The JSON and hash of output objects already seen: the same object feeds every instance. */
  private readonly known = new WeakMap<object, { hash: string; body: string } | null>();

  constructor(
    private readonly run: string,
    private readonly store: (statement: { text: string; values: unknown[]; merge: true }) => void,
    private readonly schema: string,
  ) {}

  split(input: InstanceInput): SplitInput {
    let shared: Record<string, string> | undefined;
    let inputs: Record<string, unknown> | undefined;
    for (const [dep, value] of Object.entries(input.inputs)) {
      const big = this.describe(value);
      if (!big) continue;
      if (!this.stored.has(big.hash)) {
        this.stored.add(big.hash);
        this.store({ text: queueDb.storeInputsSql(this.schema), values: [[this.run], [big.hash], [big.body]], merge: true });
      }
      (shared ??= {})[dep] = big.hash;
      (inputs ??= { ...input.inputs })[dep] = null;
    }
    return inputs ? { input: { ...input, inputs }, shared } : { input };
  }

  private describe(value: unknown): { hash: string; body: string } | null {
    if (value === null || typeof value !== "object") return null;
    const seen = this.known.get(value);
    if (seen !== undefined) return seen;
    const body = JSON.stringify(value);
    const d = body.length >= SHARED_INPUT_BYTES ? { hash: createHash("sha256").update(body).digest("hex"), body } : null;
    this.known.set(value, d);
    return d;
  }
}

/** The worker's side: puts shared outputs back, reading each from the store once. */
export class InputJoiner {
  private readonly cache = new Map<string, Promise<unknown>>();

  constructor(
    private readonly pool: Pool,
    private readonly schema: string,
  ) {}

  async join(run: string, input: InstanceInput, shared: Record<string, string> | undefined): Promise<InstanceInput> {
    if (!shared) return input;
    // Not copied: as in the local engine, every instance of a task reads the same output object.
    const inputs = { ...input.inputs };
    for (const [dep, hash] of Object.entries(shared)) inputs[dep] = await this.output(run, hash);
    return { ...input, inputs };
  }

  private output(run: string, hash: string): Promise<unknown> {
    const k = `${run}/${hash}`;
    let v = this.cache.get(k);
    if (v) {
      // Most recently used last, so the oldest is dropped first.
      this.cache.delete(k);
      this.cache.set(k, v);
      return v;
    }
    v = queueDb.sharedInputBody(this.pool, this.schema, run, hash).then((body) => {
      if (body === undefined) throw new CodedError("state-corrupt", `the store holds no input ${hash.slice(0, 12)} for run ${run}`);
      return parseJson(body);
    });
    this.cache.set(k, v);
    v.catch(() => this.cache.delete(k)); // the database restarting: the job's next delivery reads again
    while (this.cache.size > WORKER_CACHE_ENTRIES) this.cache.delete(this.cache.keys().next().value!);
    return v;
  }
}
