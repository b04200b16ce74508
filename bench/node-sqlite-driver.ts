// node:sqlite (Node >= 22.13) behind the part of better-sqlite3's API the SQLite store uses
// (prepare/run/all, exec, pragma, transaction and .immediate), so bench/store-append.ts can run
// the same store, with the same SQL, on either driver. For measuring only: the store itself uses
// better-sqlite3 (docs/performance.md says why).

import { createRequire } from "node:module";
import type Database from "better-sqlite3";

type Value = null | number | bigint | string | Uint8Array;
interface SyncStatement {
  run(...params: Value[]): unknown;
  all(...params: Value[]): unknown[];
  get(...params: Value[]): unknown;
}
interface SyncDatabase {
  prepare(sql: string): SyncStatement;
  exec(sql: string): void;
  close(): void;
  readonly isTransaction: boolean;
}

/** node:sqlite's DatabaseSync, or undefined on a Node without it (Node 20). */
export function nodeSqlite(): (new (file: string) => SyncDatabase) | undefined {
  try {
    return (createRequire(import.meta.url)("node:sqlite") as { DatabaseSync: new (file: string) => SyncDatabase }).DatabaseSync;
  } catch {
    return undefined;
  }
}

/** better-sqlite3 binds an array argument as the positional parameters; node:sqlite takes them spread. */
const spread = (params: unknown[]): Value[] => (params.length === 1 && Array.isArray(params[0]) ? params[0] : params) as Value[];

/** A connection to `file` over node:sqlite that the store can use as its better-sqlite3 one. */
export function openNodeSqlite(file: string): Database.Database {
  const DatabaseSync = nodeSqlite();
  if (!DatabaseSync) throw new Error(`node:sqlite needs Node 22.13 or later (this is ${process.version})`);
  const db = new DatabaseSync(file);
  let savepoints = 0;
  /** Runs fn in a transaction (BEGIN `mode`), or in a savepoint inside one, as better-sqlite3 does. */
  const within =
    <T>(fn: () => T, mode: string) =>
    (): T => {
      const nested = db.isTransaction;
      const name = `sp${++savepoints}`;
      db.exec(nested ? `SAVEPOINT ${name}` : `BEGIN ${mode}`);
      try {
        const result = fn();
        db.exec(nested ? `RELEASE ${name}` : "COMMIT");
        return result;
      } catch (err) {
        db.exec(nested ? `ROLLBACK TO ${name}; RELEASE ${name}` : "ROLLBACK");
        throw err;
      }
    };
  const adapter = {
    prepare(sql: string) {
      const s = db.prepare(sql);
      return { run: (...p: unknown[]) => s.run(...spread(p)), all: (...p: unknown[]) => s.all(...spread(p)) };
    },
    exec(sql: string) {
      db.exec(sql);
    },
    pragma(text: string, options?: { simple?: boolean }) {
      const rows = db.prepare(`PRAGMA ${text}`).all() as Array<Record<string, unknown>>;
      return options?.simple ? Object.values(rows[0] ?? {})[0] : rows;
    },
    transaction<T>(fn: () => T) {
      return Object.assign(within(fn, "DEFERRED"), { immediate: within(fn, "IMMEDIATE") });
    },
    close() {
      db.close();
    },
  };
  return adapter as unknown as Database.Database;
}
