// The door of src/run/queue: the PostgreSQL job queue — workers claiming jobs, the inbox of
// results, the sweeper of dead workers, the executor that sends attempts to the queue.
// Files outside this room import only this file (eslint.config.js; docs/architecture.md).

export { QueueExecutor } from "./queue-executor.js";
export { startWorker, type RunningWorker } from "./worker.js";
export { listWorkers, type WorkerInfo } from "./workers-list.js";
