// The tables the job queue (src/run/queue/) adds beside the store's, in the store's schema: the
// inbox workers report into, the live workers, and the per-run facts workers need (the plan, the
// shared inputs). graphile-worker keeps its own tables in QUEUE_SCHEMA.

import type { ClientBase, Pool } from "pg";

/** A connection or a pool: one statement at a time. */
export type Db = ClientBase | Pool;

/** The PostgreSQL schema graphile-worker's own tables live in (its migrations create it). */
export const QUEUE_SCHEMA = "graphile_worker";

/** A double-quoted SQL identifier. */
export function ident(name: string): string {
  return `"${name.replace(/"/g, '""')}"`;
}

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

/**
 * Runs `f` (creating the queue's tables and graphile-worker's) holding the schema lock: two
 * processes starting at once would race on `create ... if not exists`.
 */
export async function withQueueSchemaLock(client: ClientBase, f: () => Promise<void>): Promise<void> {
  await client.query("select pg_advisory_lock(hashtext('switchyard-queue-schema'))");
  try {
    await f();
  } finally {
    await client.query("select pg_advisory_unlock(hashtext('switchyard-queue-schema'))");
  }
}

/** Creates the queue's tables in the store's schema (idempotent; hold withQueueSchemaLock). */
export async function createQueueTables(client: ClientBase, schema: string): Promise<void> {
  await client.query(queueTables(schema));
}

/** Whether the queue's tables exist in the store's schema (the workers table stands for them). */
export async function queueTablesExist(db: Db, schema: string): Promise<boolean> {
  const exists = await db.query("select to_regclass($1) as t", [`${ident(schema)}.workers`]);
  return Boolean(exists.rows[0]?.t);
}

/** A round trip that fails when the connection is lost. */
export async function ping(db: Db): Promise<void> {
  await db.query("select 1");
}

/** Asks the server to tell this session of notifications on `channel` (a name queue/names.ts made). */
export async function listenTo(db: Db, channel: string): Promise<void> {
  await db.query(`listen ${channel}`);
}

/** Sends `payload` to the listeners of `channel`. */
export async function notify(db: Db, channel: string, payload: string): Promise<void> {
  await db.query("select pg_notify($1, $2)", [channel, payload]);
}
