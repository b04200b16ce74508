// A worker's copy of what a run needs on every attempt: its plan and its pack snapshot,
// fetched from the store once per run into the worker's own state folder (no shared filesystem).

import { existsSync, mkdirSync, renameSync, rmSync } from "node:fs";
import { join } from "node:path";
import type { Pool } from "pg";
import type { Plan } from "../../plan/plan.js";
import { queueDb, type RunRepository } from "../store/index.js";
import { CodedError } from "../../shared/coded-error.js";

/** Writes run `run`'s pack snapshot into the empty folder `dest` (the store's copy). */
export type PackSource = (run: string, dest: string) => Promise<void>;

/** What a worker needs of a run: its plan, pack folder and repository. */
export interface RunFacts {
  plan: Plan;
  repo?: RunRepository;
  packDir: string;
}

/** A worker's cache of runs' facts, each read and its pack extracted once. */
export class RunCache {
  private readonly facts = new Map<string, Promise<RunFacts>>();
  constructor(
    private readonly pool: Pool,
    private readonly schema: string,
    private readonly stateDir: string,
    private readonly packs: PackSource,
  ) {}

  runDir(run: string): string {
    return join(this.stateDir, "runs", run);
  }

  get(run: string): Promise<RunFacts> {
    let f = this.facts.get(run);
    if (!f) {
      f = this.load(run);
      this.facts.set(run, f);
      // A failed fetch (the database restarting) is tried again by the job's next delivery.
      f.catch(() => this.facts.delete(run));
    }
    return f;
  }

  private async load(run: string): Promise<RunFacts> {
    const row = await queueDb.queueRun<Plan, RunRepository>(this.pool, this.schema, run);
    if (!row) throw new CodedError("state-corrupt", `the store has no queue record for run ${run}`);
    const packDir = join(this.runDir(run), "pack");
    if (!existsSync(packDir)) {
      // Fetched beside, then renamed: a worker killed mid-fetch never leaves half a pack.
      const tmp = `${packDir}.fetch-${process.pid}`;
      rmSync(tmp, { recursive: true, force: true });
      mkdirSync(tmp, { recursive: true });
      await this.packs(run, tmp);
      renameSync(tmp, packDir);
    }
    return { plan: row.plan, ...(row.repo ? { repo: row.repo } : {}), packDir };
  }
}
