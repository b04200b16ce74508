// The tables the queue adds beside the store's (their statements are the store's,
// src/run/store/pg/queue-tables.ts): the inbox workers report into, the live workers, and the
// per-run facts workers need (the plan); plus graphile-worker's own migrations, in its own schema
// of the same database.

import type { ClientBase } from "pg";
import { format } from "node:util";
import type { Logger } from "graphile-worker";
import { loadGraphileWorker } from "../../shared/lazy-packages.js";
import { lostConnection, queueDb } from "../store/index.js";
import { QUEUE_SCHEMA } from "./names.js";

/** Creates the queue's tables and runs graphile-worker's migrations (both idempotent). */
export async function ensureQueueSchema(client: ClientBase, connectionString: string, schema: string): Promise<void> {
  // Two processes starting at once would race on `create ... if not exists`: serialise them.
  await queueDb.withQueueSchemaLock(client, async () => {
    await queueDb.createQueueTables(client, schema);
    await loadGraphileWorker().runMigrations({ connectionString, schema: QUEUE_SCHEMA, logger: quietLogger() });
  });
}

/**
 * Node's own deprecation warnings as graphile-worker passes them on, e.g. node-postgres's "(node:PID)
 * DeprecationWarning: Calling client.query() when the client is already executing a query", which
 * it raises as a connection dies under a running query: words for the libraries' authors, not for
 * the person running the worker.
 */
const NODE_DEPRECATION = /^\(node:\d+\) (\[\w+\] )?DeprecationWarning: /;

/**
 * One line of graphile-worker's: the first line only (its messages carry stack traces, which are
 * not for users), nothing about a lost connection to the server (the worker says that itself,
 * once, as it stops; graphile's own retries of a blip need no word), and no deprecation warning.
 */
export function queueLine(level: string, message: string, error?: unknown): void {
  if (NODE_DEPRECATION.test(message)) return;
  // The error is in the message's meta, or only in its words: a part of a line between colons,
  // e.g. "Runner stopping (reason: worker pool exited with error: error: terminating connection …)".
  const told = message
    .split("\n")
    .some((l) => l.split(": ").some((part) => lostConnection({ message: part.replace(/\)+$/, "") }) !== undefined));
  if (told || lostConnection(error) !== undefined) return;
  process.stderr.write(`switchyard worker: queue ${level}: ${message.split("\n")[0]}\n`);
}

let logger: Logger | undefined;

/** graphile-worker's logger, silent below warnings (its info lines are not ours to print); made on first use, so graphile-worker loads only when the queue is used. */
export function quietLogger(): Logger {
  logger ??= new (loadGraphileWorker().Logger)(() => (level: string, message: string, meta?: { error?: unknown; fatalError?: unknown }) => {
    if (level === "error" || level === "warning") queueLine(level, message, meta?.error ?? meta?.fatalError);
  });
  return logger;
}

/**
 * graphile-worker also writes some failures straight to the console with their stacks
 * (console.trace(error) when one of its workers stops on an error, console.error(…, error) after
 * its retries). While a worker runs, console.trace, .error and .warn go through queueLine instead;
 * the returned function puts them back.
 */
export function quietConsole(): () => void {
  const saved = { trace: console.trace, error: console.error, warn: console.warn };
  const say = (...args: unknown[]) =>
    queueLine(
      "error",
      format(...args),
      args.find((a) => a instanceof Error),
    );
  console.trace = console.error = console.warn = say;
  return () => Object.assign(console, saved);
}
