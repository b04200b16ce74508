// The job queue's statements on the store's database, gathered for the store's door (as
// `queueDb`): its tables, the inbox, graphile-worker's jobs and the per-run facts, the workers.

export * from "./queue-tables.js";
export * from "./queue-inbox.js";
export * from "./queue-jobs.js";
export * from "./queue-workers.js";
