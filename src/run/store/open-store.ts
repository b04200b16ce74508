// Opening the store a command names: `--store`/$SWITCHYARD_STORE is `sqlite:PATH` (a state
// database file) or a `postgres://…`/`postgresql://…` connection string; without one, the state
// folder's switchyard.db. The state folder holds the local run folders (snapshots, attempt
// workspaces, logs) and labs whichever store holds the log.

import { resolve } from "node:path";
import { SqliteStore } from "./store-sqlite.js";
import { parsePgUrl, PostgresStore } from "./store-postgres.js";
import { sqlitePath, type Store } from "./store.js";

/** The store a --store value names: a SQLite file or a PostgreSQL database. */
export type StoreSpec = { kind: "sqlite"; file: string } | { kind: "postgres"; url: string };

/** What a --store value names; throws a message (never the password) for one that is neither kind. */
export function parseStoreSpec(spec: string | undefined, stateDir: string): StoreSpec {
  if (spec === undefined || spec === "") return { kind: "sqlite", file: sqlitePath(stateDir) };
  if (spec.startsWith("sqlite:")) return { kind: "sqlite", file: resolve(spec.slice("sqlite:".length)) };
  if (/^postgres(ql)?:\/\//.test(spec)) {
    parsePgUrl(spec);
    return { kind: "postgres", url: spec };
  }
  throw new Error("a store is `sqlite:PATH` or a postgres://USER@HOST:PORT/DATABASE connection string");
}

/** A store's location for messages: the file, or the connection string without its password. */
export function describeStore(spec: StoreSpec): string {
  return spec.kind === "sqlite" ? spec.file : parsePgUrl(spec.url).where;
}

/** Opens the store; `stateDir` is the local state folder either way. */
export function openStore(spec: StoreSpec | string | undefined, stateDir: string): Store {
  const s = typeof spec === "object" ? spec : parseStoreSpec(spec, stateDir);
  if (s.kind === "postgres") return new PostgresStore(s.url, stateDir);
  return new SqliteStore(stateDir, s.file);
}
