// `--executor local|workers` of run, resume and rerun: where command, agent and
// revise attempts run. `local` (the default) runs them here; `workers` makes this process the
// run's coordinator — it records every event, asks every decision and runs every evaluate — and
// queues each attempt for `switchyard worker` processes that share its PostgreSQL store.

import type { Store } from "../run/index.js";
import type { PostgresStore } from "../run/store/index.js";
import type { QueueExecutor } from "../run/queue/index.js";
import { UsageError } from "./common.js";

/** The help of `--executor`. */
export const EXECUTOR_HELP =
  "where command, agent and revise attempts run: local (here, the default) or workers (`switchyard worker` processes sharing the PostgreSQL --store)";

/** Where a run's attempts run: in this process, or on `switchyard worker` processes through the shared store. */
export type ExecutorChoice = "local" | "workers";

/** The executor a command asks for, refused before anything is admitted or run when it cannot work. */
export function executorChoice(flag: string | undefined, store: Store): ExecutorChoice {
  if (flag === undefined || flag === "local") return "local";
  if (flag !== "workers") throw new UsageError("usage", `--executor is local or workers, got ${JSON.stringify(flag)}`);
  if (store.kind !== "postgres")
    throw new UsageError("usage", "--executor workers needs a PostgreSQL store that the workers share", {
      hint: "add --store postgres://USER@HOST:PORT/DATABASE (or set $SWITCHYARD_STORE), the same one each `switchyard worker` was started with",
    });
  return "workers";
}

/**
 * The queue executor of a run on a PostgreSQL store (its jobs ride with the store's commits). The
 * queue is loaded only here: a run on this machine never needs it.
 */
export async function queueExecutor(store: Store, run: string): Promise<QueueExecutor> {
  const pg = store as PostgresStore;
  const { QueueExecutor } = await import("../run/queue/index.js");
  return new QueueExecutor({ connectionString: pg.connection, schema: pg.schema, run, commits: pg });
}
