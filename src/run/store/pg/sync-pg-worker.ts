// The thread behind sync-pg.ts: it owns one `pg` connection and answers one request at a time
// (the caller is blocked until it does, so there is never more than one in flight). A request
// is a query or a list of statements run as one BEGIN…COMMIT. After writing its answer to the
// port it raises the shared flag, which wakes the caller from Atomics.wait.

import { workerData, type MessagePort } from "node:worker_threads";
import pg from "pg";
import { inlinedTransaction, type Statement } from "./inlined-transaction.js";

export type { Statement };

// Counts and epoch milliseconds come back as bigint (int8); every one we store fits a double.
pg.types.setTypeParser(20, (v: string) => Number(v));

/** What the synchronous PostgreSQL bridge asks its worker thread: one query, statements in one transaction, or to close. */
export type Request = { op: "query"; text: string; values?: unknown[] } | { op: "transaction"; statements: Statement[] } | { op: "close" };

/** The worker thread's answer: rows, or the error with its SQLSTATE and whether the connection was lost. */
export type Reply =
  { ok: true; rows?: unknown[]; results?: unknown[][] } | { ok: false; error: { message: string; code?: string; connection: boolean } };

interface Data {
  config: pg.ClientConfig;
  flag: Int32Array;
  port: MessagePort;
}

const { config, flag, port } = workerData as Data;
let client: pg.Client | null = null;
/** Set once the connection failed: a session lock it held is gone, so no request may reconnect. */
let lost: Error | null = null;

async function connection(): Promise<pg.Client> {
  if (lost) throw lost;
  if (client) return client;
  const c = new pg.Client(config);
  c.on("error", (err) => {
    lost = err;
  });
  try {
    await c.connect();
  } catch (err) {
    lost = err as Error;
    throw err;
  }
  client = c;
  return c;
}

async function answer(req: Request): Promise<Reply> {
  if (req.op === "close") {
    await client?.end().catch(() => {});
    client = null;
    lost = new Error("the connection was closed");
    return { ok: true };
  }
  const c = await connection();
  if (req.op === "query") return { ok: true, rows: (await c.query(req.text, req.values)).rows };
  const inlined = inlinedTransaction(req.statements);
  if (inlined !== null) {
    try {
      await c.query(inlined); // one round trip (inlined-transaction.ts); results are not returned
      return { ok: true, results: [] };
    } catch (err) {
      if (!lost) await c.query("ROLLBACK").catch(() => {});
      throw err;
    }
  }
  await c.query("BEGIN");
  try {
    const results: unknown[][] = [];
    for (const s of req.statements) results.push((await c.query(s.text, s.values)).rows);
    await c.query("COMMIT");
    return { ok: true, results };
  } catch (err) {
    if (!lost) await c.query("ROLLBACK").catch(() => {});
    throw err;
  }
}

/** Node's codes for a server that cannot be reached or went away. */
const NET = new Set(["ECONNREFUSED", "ECONNRESET", "ENOTFOUND", "EAI_AGAIN", "ETIMEDOUT", "EHOSTUNREACH", "ENETUNREACH", "EPIPE"]);

/** Whether an error means the connection is gone (SQLSTATE class 08, a server shutting down, a socket error). */
function connectionError(code: string | undefined, message: string): boolean {
  if (code && (code.startsWith("08") || code === "57P01" || code === "57P02" || code === "57P03" || NET.has(code))) return true;
  return /Connection terminated|not queryable|timeout expired|connection error/i.test(message);
}

port.on("message", (req: Request) => {
  answer(req)
    .catch((err: unknown): Reply => {
      const e = err as { message?: string; code?: unknown };
      const code = typeof e.code === "string" ? e.code : undefined;
      const message = String(e.message ?? err);
      if (connectionError(code, message)) lost ??= err as Error;
      return { ok: false, error: { message, code, connection: lost !== null } };
    })
    .then((reply) => {
      port.postMessage(reply);
      Atomics.store(flag, 0, 1);
      Atomics.notify(flag, 0);
    });
});
