// What `worker` and `workers` share: the PostgreSQL store they work on (--store, else
// $SWITCHYARD_STORE; SQLite has no queue), and a server that cannot be reached said as such.

import { parsePgUrl } from "../run/store/index.js";
import { StorageFault } from "../run/store/index.js";
import { UsageError } from "./common.js";

/** The PostgreSQL store a worker command works on (--store, else $SWITCHYARD_STORE); any other store is a usage error. */
export function workersStore(flag: string | undefined, command: string): { url: string; where: string } {
  const spec = flag ?? process.env.SWITCHYARD_STORE;
  if (!spec || !/^postgres(ql)?:\/\//.test(spec))
    throw new UsageError("usage", `\`switchyard ${command}\` works on a PostgreSQL store shared with the coordinators`, {
      hint: "pass --store postgres://USER@HOST:PORT/DATABASE (or set $SWITCHYARD_STORE), the one `run … --executor workers` uses",
    });
  try {
    return { url: spec, where: parsePgUrl(spec).where };
  } catch (err) {
    throw new UsageError("store-url", (err as Error).message, { hint: "see `switchyard explain store-url`" });
  }
}

/** A flag's value as a whole number of at least 1, else a usage error naming the flag. */
export function positiveWhole(flag: string, v: string): number {
  const n = Number(v);
  if (!Number.isSafeInteger(n) || n < 1)
    throw new UsageError("usage", `${flag} must be a whole number of at least 1, got ${JSON.stringify(v)}`);
  return n;
}

/** Runs `f`; a connection that cannot be made is `store-unreachable`, naming the server (never the password). */
export async function reachable<T>(where: string, f: () => Promise<T>): Promise<T> {
  try {
    return await f();
  } catch (err) {
    const e = err as NodeJS.ErrnoException;
    if (e.code && /^(ECONNREFUSED|ENOTFOUND|ETIMEDOUT|EHOSTUNREACH|ECONNRESET|57P0[123]|28P01|28000|3D000)$/.test(e.code))
      throw new StorageFault("store-unreachable", `cannot reach the store ${where}: ${e.message.replace(/:\/\/[^@\s]*@/g, "://***@")}`, {
        systemCode: e.code,
        hint: "check that the server runs and the connection string (user, host, port, database) is right",
      });
    throw err;
  }
}
