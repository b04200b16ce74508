// The heavy packages, loaded at their first use instead of when the CLI starts. A static import
// loads a package (and everything it requires) before any command runs: `pg`, graphile-worker (with
// its configuration loader) and better-sqlite3 cost more CPU together than the rest of the CLI's
// start-up, yet `--version`, `check` or a run on SQLite never use the first two, and `check` never
// opens a database. All three are CommonJS packages, so `require` loads them synchronously at the
// point of use and the callers keep their synchronous signatures; their types come from
// `import type`, which costs nothing at run time.

import { createRequire } from "node:module";
import type BetterSqlite3 from "better-sqlite3";
import type * as GraphileWorker from "graphile-worker";
import type Pg from "pg";

const requirePackage = createRequire(import.meta.url);
// Kept after the first call: `require` resolves its argument again on every call, and the store
// asks for `pg` once per quoted parameter.
let pg: typeof Pg | undefined;
let graphileWorker: typeof GraphileWorker | undefined;
let betterSqlite3: typeof BetterSqlite3 | undefined;

/** The `pg` package (node-postgres), loaded on the first call. */
export function loadPg(): typeof Pg {
  return (pg ??= requirePackage("pg") as typeof Pg);
}

/** The graphile-worker package, loaded on the first call. */
export function loadGraphileWorker(): typeof GraphileWorker {
  return (graphileWorker ??= requirePackage("graphile-worker") as typeof GraphileWorker);
}

/** better-sqlite3's Database class, loaded on the first call (its native addon loads when a database is first opened). */
export function loadBetterSqlite3(): typeof BetterSqlite3 {
  return (betterSqlite3 ??= requirePackage("better-sqlite3") as typeof BetterSqlite3);
}
