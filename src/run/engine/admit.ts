// Admitting a run: a new run id, the pack snapshot in runs/RUN_ID/pack, and the
// `plan_admitted` event holding the plan, the snapshot and the effective settings, committed
// before anything runs. Every later step, resume included, uses these and never the sources.

import { randomBytes } from "node:crypto";
import { rmSync } from "node:fs";
import { join } from "node:path";
import type { Plan } from "../../plan/plan.js";
import type { RunRepository, Settings } from "../store/index.js";
import { snapshotPack } from "./snapshot.js";
import { publishSnapshot } from "../store/index.js";
import type { Store } from "../store/index.js";

/** Settings a run's flags override (--concurrency …), over the playbook's. */
export interface SettingsOverrides {
  concurrency?: number;
  decision_concurrency?: number;
  max_duration_seconds?: number;
  budget_usd?: number;
}

/** The playbook's settings with the given overrides applied. */
export function applyOverrides(base: Settings, o: SettingsOverrides | undefined): Settings {
  const out: Settings = { ...base };
  if (o?.concurrency !== undefined) out.concurrency = o.concurrency;
  if (o?.decision_concurrency !== undefined) out.decision_concurrency = o.decision_concurrency;
  if (o?.max_duration_seconds !== undefined) out.max_duration_seconds = o.max_duration_seconds;
  if (o?.budget_usd !== undefined) out.budget_usd = o.budget_usd;
  return out;
}

/** A sortable, readable run id: UTC time plus randomness. */
function newRunId(now = new Date()): string {
  const t = now.toISOString().replace(/[-:]/g, "").replace("T", "-").slice(0, 15);
  return `${t}-${randomBytes(3).toString("hex")}`;
}

/** What admitting a run needs: its plan, the pack to snapshot, and the invocation's overrides. */
export interface AdmitOptions {
  plan: Plan;
  /** The pack folder to snapshot. */
  packDir: string;
  /** What the person ran (a pack folder, a .star file, a plan .toml), for listings. */
  sourcePath: string;
  overrides?: SettingsOverrides;
  /** The repository of `worktree` agents and its base commit. */
  repo?: RunRepository;
  /** Each preset agent runner's tool version. */
  agentVersions?: Record<string, string>;
}

/** Admits a run: gives it an id, snapshots its pack into the run folder, records run_admitted, and returns the id. */
export function admitRun(store: Store, opts: AdmitOptions): string {
  const run = newRunId();
  const dir = store.runDir(run);
  const s = opts.plan.settings;
  const base: Settings = {
    concurrency: s.concurrency,
    decision_concurrency: s.decision_concurrency,
    max_duration_seconds: s.max_duration_seconds,
    ...(s.budget_usd !== undefined ? { budget_usd: s.budget_usd } : {}),
  };
  let snapshot;
  try {
    snapshot = snapshotPack(opts.packDir, join(dir, "pack"));
  } catch (err) {
    rmSync(dir, { recursive: true, force: true });
    throw err;
  }
  store.append(run, "plan_admitted", null, null, {
    plan: opts.plan,
    snapshot,
    source_path: opts.sourcePath,
    settings: applyOverrides(base, opts.overrides),
    pid: process.pid,
    ...(opts.repo ? { repo: opts.repo } : {}),
    ...(opts.agentVersions && Object.keys(opts.agentVersions).length > 0 ? { agent_versions: opts.agentVersions } : {}),
  });
  store.flush();
  publishSnapshot(store, run, snapshot.dir);
  return run;
}
