// The tables the queue adds beside the store's (issue 17 items 2–3): the inbox workers report
// into, the live workers, and the per-run facts workers need (the plan); plus graphile-worker's
// own migrations, in its own schema of the same database.

import type { ClientBase } from "pg";
import { format } from "node:util";
import { Logger, runMigrations } from "graphile-worker";
import { lostConnection } from "../store/index.js";
import { ident, QUEUE_SCHEMA } from "./names.js";

function queueTables(schema: string): string {
  const s = ident(schema);
  return `
create schema if not exists ${s};
create table if not exists ${s}.inbox (
  id bigserial primary key,
  run text not null,
  task text not null,
  key text not null,
  attempt integer not null,
  kind text not null check (kind in ('started', 'round', 'finished')),
  round integer not null default 0,
  status text,
  payload jsonb not null,
  worker text not null,
  folded boolean not null default false,
  created timestamptz not null default now()
);
create unique index if not exists inbox_once on ${s}.inbox (run, task, key, attempt, kind, round);
create unique index if not exists inbox_one_passed on ${s}.inbox (run, task, key) where kind = 'finished' and status = 'passed';
create index if not exists inbox_unfolded on ${s}.inbox (run) where not folded;
create table if not exists ${s}.workers (
  id text primary key,
  host text not null,
  pid integer not null,
  concurrency integer not null,
  tags text[] not null default '{}',
  pool text,
  started timestamptz not null default now(),
  heartbeat timestamptz not null default now()
);
create table if not exists ${s}.queue_runs (
  run text primary key,
  plan jsonb not null,
  repo jsonb
);
create table if not exists ${s}.queue_inputs (
  run text not null,
  hash text not null,
  body text not null,
  primary key (run, hash)
);`;
}

/** Creates the queue's tables and runs graphile-worker's migrations (both idempotent). */
export async function ensureQueueSchema(client: ClientBase, connectionString: string, schema: string): Promise<void> {
  // Two processes starting at once would race on `create ... if not exists`: serialise them.
  await client.query("select pg_advisory_lock(hashtext('switchyard-queue-schema'))");
  try {
    await client.query(queueTables(schema));
    await runMigrations({ connectionString, schema: QUEUE_SCHEMA, logger: quietLogger });
  } finally {
    await client.query("select pg_advisory_unlock(hashtext('switchyard-queue-schema'))");
  }
}

/**
 * One line of graphile-worker's: the first line only (its messages carry stack traces, which are
 * not for users), and nothing about a lost connection to the server (the worker says that itself,
 * once, as it stops; graphile's own retries of a blip need no word).
 */
function queueLine(level: string, message: string, error?: unknown): void {
  // The error is in the message's meta, or only in its words (after the last colon of a line).
  const told = message.split("\n").some((l) => lostConnection({ message: l.replace(/^.*: /, "") }) !== undefined);
  if (told || lostConnection(error) !== undefined) return;
  process.stderr.write(`switchyard worker: queue ${level}: ${message.split("\n")[0]}\n`);
}

/** graphile-worker's logger, silent below warnings (its info lines are not ours to print). */
export const quietLogger = new Logger(() => (level: string, message: string, meta?: { error?: unknown; fatalError?: unknown }) => {
  if (level === "error" || level === "warning") queueLine(level, message, meta?.error ?? meta?.fatalError);
});

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
