// `switchyard worker --store postgres://… [--concurrency N] [--tags a,b] [--config F]`: runs
// the command, agent and revise attempts that coordinators (`run … --executor workers`) queue in
// the shared store, here, with this machine's agent CLIs and machine config, until
// SIGTERM or Ctrl-C drains it (docs/distributed.md).

import { resolve } from "node:path";
import type { Command } from "commander";
import { loadMachineConfig, secretEnvNames } from "../decide/config.js";
import { loadEvaluator } from "../plan/index.js";
import { lostConnection } from "../run/store/index.js";
import { parsePgUrl } from "../run/store/index.js";
import { startWorker, type RunningWorker } from "../run/queue/index.js";
import { UsageError, examples } from "./common.js";
import { locateConfig } from "./state-discovery.js";
import { maxFileBytesFrom } from "./run-wiring.js";
import { positiveWhole, reachable, workersStore } from "./workers-store.js";

interface WorkerFlags {
  store?: string;
  stateDir?: string;
  concurrency: string;
  tags?: string;
  config?: string;
  grace: string;
}

/** Adds `switchyard worker`: runs queued attempts from a shared PostgreSQL store until drained. */
export function register(program: Command): void {
  program
    .command("worker")
    .description("run the attempts that coordinators queue in a shared PostgreSQL store (docs/distributed.md)")
    .option("--store <url>", "the PostgreSQL store the coordinators use: postgres://USER@HOST:PORT/DATABASE (default: $SWITCHYARD_STORE)")
    .option("--state-dir <dir>", "this worker's own folder for packs, workspaces and logs", ".switchyard-worker")
    .option("--concurrency <n>", "most attempts this worker runs at once", "4")
    .option("--tags <list>", "comma-separated labels shown by `switchyard workers` (e.g. gpu,eu-west)")
    .option("--config <file>", "the machine config with this machine's [agents.*] (default: as for `run`)")
    .option("--grace <seconds>", "on SIGTERM, how long running attempts may finish before they are stopped and requeued", "60")
    .addHelpText(
      "after",
      examples([
        ["switchyard worker --store postgres://sy@db/sy --concurrency 8", "run up to 8 attempts at once"],
        ["kill -TERM PID", "drain it: no new jobs, running ones finish (up to --grace), then it exits"],
        ["switchyard workers --store postgres://sy@db/sy", "the live workers and their jobs"],
      ]),
    )
    .action(runWorker);
}

/** The `worker` command: reads its flags, starts the worker and runs it until it is drained or loses its store. */
async function runWorker(flags: WorkerFlags): Promise<void> {
  const { url, where } = workersStore(flags.store, "worker");
  const concurrency = positiveWhole("--concurrency", flags.concurrency);
  const grace = Number(flags.grace);
  if (!Number.isFinite(grace) || grace < 0)
    throw new UsageError("usage", `--grace must be a number of seconds, got ${JSON.stringify(flags.grace)}`);
  const tags = (flags.tags ?? "")
    .split(",")
    .map((t) => t.trim())
    .filter(Boolean);
  const config = loadMachineConfig(locateConfig(flags.config));
  const maxFileBytes = maxFileBytesFrom(process.env);
  const loc = parsePgUrl(url);
  const stateDir = resolve(flags.stateDir ?? ".switchyard-worker");
  const worker = await reachable(where, () =>
    startWorker({
      connectionString: loc.url,
      schema: loc.schema,
      stateDir,
      concurrency,
      tags,
      agentRunners: config.agents,
      secretEnv: secretEnvNames(config),
      ...(maxFileBytes !== undefined ? { maxFileBytes } : {}),
      evaluators: (packDir, plan) => (task) => loadEvaluator(packDir, plan, task),
      graceMs: grace * 1000,
      log: (line) => process.stderr.write(`switchyard worker: ${line}\n`),
    }),
  );
  process.stderr.write(
    `switchyard worker ${worker.id} runs up to ${concurrency} attempts at once from ${where} (state ${stateDir}); SIGTERM or Ctrl-C drains it\n`,
  );
  const onLost = stopOnFailure(worker, where);
  process.on("unhandledRejection", onLost);
  process.on("uncaughtException", onLost);
  const onSignal = drainOnSignal(worker, grace);
  process.on("SIGINT", onSignal);
  process.on("SIGTERM", onSignal);
  try {
    await worker.done;
  } catch (err) {
    onLost(err);
  } finally {
    process.off("SIGINT", onSignal);
    process.off("SIGTERM", onSignal);
  }
  process.stderr.write(`switchyard worker ${worker.id}: stopped\n`);
}

/**
 * The server gone (restarted, unreachable): the queue library's own retries then fail outside any
 * call of ours, in whichever connection notices first. This worker's liveness lock went with its
 * connection, so its jobs are released to other workers: it stops with one line, for its
 * supervisor to restart once the server is back. Only the first failure is told (the others are
 * the same loss seen by other connections).
 */
function stopOnFailure(worker: RunningWorker, where: string): (err: unknown) => void {
  let told = false;
  return (err: unknown) => {
    if (told) return;
    told = true;
    const lost = lostConnection(err) ?? (worker.storeLost() ? "connection lost" : undefined);
    process.stderr.write(
      lost !== undefined
        ? `switchyard worker ${worker.id}: error[store-unreachable]: lost the store ${where} (${lost}); stopping (its jobs go to other workers)\n`
        : `switchyard worker ${worker.id}: error[internal]: ${(err instanceof Error ? err.stack : undefined) ?? String(err)}\n`,
    );
    process.exit(lost !== undefined ? 1 : 70);
  };
}

/** The first SIGINT or SIGTERM drains the worker (no new jobs, running ones get `grace` seconds); a second exits at once. */
function drainOnSignal(worker: RunningWorker, grace: number): () => void {
  let signals = 0;
  return () => {
    signals += 1;
    if (signals === 1) {
      process.stderr.write(`switchyard worker: draining: no new jobs; running attempts may finish for ${grace} s\n`);
      void worker.drain();
    } else process.exit(130);
  };
}
