// The SQLite driver (better-sqlite3) is a native addon: its install script builds (or downloads) a
// binary for the Node that ran `npm install`. npm 12 skips that script unless the project's
// package.json allows it (`allowScripts`), the build can fail, and a Node upgraded after the
// install refuses a binary built for the old one (NODE_MODULE_VERSION). The addon is loaded when
// the first database is opened, so every command that opens a SQLite store meets that failure
// here, and says it as the person's to fix: what is wrong, why, and the command that fixes it.

import type Database from "better-sqlite3";
import { createRequire } from "node:module";
import { dirname } from "node:path";
import { CodedError } from "../../shared/coded-error.js";
import { errnoCode } from "../../shared/thrown.js";
import { loadBetterSqlite3 } from "../../shared/lazy-packages.js";

/** The SQLite driver cannot be loaded: no native build for this Node, or one for another Node. */
export class SqliteDriverMissing extends CodedError {}

/** The folder to run `npm rebuild better-sqlite3` in: the one whose node_modules holds the driver. */
function installFolder(): string {
  const pkg = createRequire(import.meta.url).resolve("better-sqlite3/package.json");
  return dirname(dirname(dirname(pkg)));
}

/** The SqliteDriverMissing an error from opening a database stands for, or undefined if it is none. */
export function driverFault(err: unknown): SqliteDriverMissing | undefined {
  if (!(err instanceof Error)) return undefined;
  const code = errnoCode(err);
  // `bindings` (better-sqlite3's loader) throws this when no build exists; Node throws
  // ERR_DLOPEN_FAILED for a build it cannot load (another Node's ABI, another platform, a broken file).
  const unbuilt = err.message.startsWith("Could not locate the bindings file");
  if (!unbuilt && code !== "ERR_DLOPEN_FAILED") return undefined;
  const here = `this Node (${process.version}, NODE_MODULE_VERSION ${process.versions.modules})`;
  const built = /NODE_MODULE_VERSION (\d+)\. This version/.exec(err.message)?.[1];
  const what = unbuilt
    ? `the SQLite driver (better-sqlite3) has no native build for ${here}: its install script was blocked (npm 12 runs it only where package.json's allowScripts allows better-sqlite3) or failed`
    : built
      ? `the SQLite driver (better-sqlite3) was built for another Node (NODE_MODULE_VERSION ${built}), not ${here}: Node changed since the install`
      : `the SQLite driver (better-sqlite3) cannot be loaded by ${here} (${err.message.split("\n")[0]}): it was built for another Node or platform, or its build is damaged`;
  return new SqliteDriverMissing("sqlite-driver", `${what}; \`npm rebuild better-sqlite3\` in ${installFolder()} builds it for this Node`, {
    cause: err,
  });
}

/** Opens (or creates) the database file, loading the driver first if this is the first one. */
export function openSqlite(file: string): Database.Database {
  try {
    return new (loadBetterSqlite3())(file);
  } catch (err) {
    throw driverFault(err) ?? err;
  }
}

/** Throws SqliteDriverMissing unless the driver loads (for a command that checks before it starts). */
export function checkSqliteDriver(): void {
  openSqlite(":memory:").close();
}
