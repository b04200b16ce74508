// A synchronous PostgreSQL client. The store contract is synchronous (better-sqlite3 is, and the
// engine, CLI and web view call the store as such), so the official `pg` client runs on a worker
// thread (sync-pg-worker.ts) and the caller blocks on a shared flag with Atomics.wait until the
// thread has answered; the answer is then taken off the port with receiveMessageOnPort. A
// commit blocks the engine's thread for one round trip, exactly as SQLite's fsync does, and is
// durable when it returns (synchronous_commit stays on), so the engine's durability points do
// not move (docs/architecture.md).
//
// Errors come back with their SQLSTATE code (SqlError). A connection that cannot be made, that
// fails, or a server that does not answer within the timeout is a StorageFault
// `store-unreachable` naming the server and database, never the password; after it the client
// stays failed (a session lock held on the connection is gone with it, so silently reconnecting
// could let two processes think they own one run).

import { MessageChannel, receiveMessageOnPort, Worker, type MessagePort } from "node:worker_threads";
import { StorageFault } from "../storage-fault.js";
import type { Reply, Request, Statement } from "./sync-pg-worker.js";

export type { Statement } from "./sync-pg-worker.js";

/** An error PostgreSQL reported for a statement, with its SQLSTATE code. */
export class SqlError extends Error {
  constructor(
    message: string,
    readonly code: string | undefined,
  ) {
    super(message);
  }
}

/** Where the synchronous client connects and how messages name the server. */
export interface SyncPgOptions {
  /** The connection string, without switchyard's own parameters. */
  url: string;
  /** What messages call the server: the URL without its password. */
  where: string;
  /** Options sent at connection start (`-c search_path=…`). */
  options?: string;
  /** How long one request may take before the server counts as unreachable. */
  timeoutMs?: number;
}

/** A synchronous PostgreSQL client: queries run on a worker thread while the caller waits on a shared flag, so the store can stay synchronous. */
export class SyncPg {
  private readonly worker: Worker;
  private readonly port: MessagePort;
  private readonly flag = new Int32Array(new SharedArrayBuffer(4));
  private failed: StorageFault | null = null;
  private readonly secret: string;

  constructor(private readonly opts: SyncPgOptions) {
    this.secret = decodeURIComponent(new URL(opts.url).password);
    const { port1, port2 } = new MessageChannel();
    this.port = port1;
    const config = { connectionString: opts.url, options: opts.options, connectionTimeoutMillis: 10_000, keepAlive: true };
    this.worker = new Worker(new URL("./sync-pg-worker.js", import.meta.url), {
      workerData: { config, flag: this.flag, port: port2 },
      transferList: [port2],
    });
    this.worker.unref(); // a process that forgets close() still exits
  }

  /** Runs one statement; returns its rows. */
  query<R = Record<string, unknown>>(text: string, values?: unknown[]): R[] {
    return (this.call({ op: "query", text, values }).rows ?? []) as R[];
  }

  /** Runs the statements in order as one transaction (one round trip when they can be inlined: inlined-transaction.ts). */
  transaction(statements: Statement[]): void {
    this.call({ op: "transaction", statements });
  }

  close(): void {
    if (!this.failed) {
      try {
        this.call({ op: "close" });
      } catch {
        // closing a failed connection
      }
    }
    this.failed ??= this.unreachable("the store was closed");
    void this.worker.terminate();
  }

  private call(req: Request): Extract<Reply, { ok: true }> {
    if (this.failed) throw this.failed;
    Atomics.store(this.flag, 0, 0);
    this.port.postMessage(req);
    const timeout = this.opts.timeoutMs ?? 60_000;
    const deadline = Date.now() + timeout;
    // The thread notifies after raising the flag, so the notify of the previous answer can
    // arrive while this call already waits (the caller saw the flag and went on without
    // sleeping): a wake-up counts only when the flag is raised.
    while (Atomics.load(this.flag, 0) === 0) {
      const left = deadline - Date.now();
      if (left <= 0 || Atomics.wait(this.flag, 0, 0, left) === "timed-out") {
        this.failed = this.unreachable(`it did not answer within ${Math.round(timeout / 1000)} s`);
        void this.worker.terminate();
        throw this.failed;
      }
    }
    const reply = receiveMessageOnPort(this.port)?.message as Reply | undefined;
    if (!reply) throw new Error("internal: the PostgreSQL thread raised its flag without an answer");
    if (reply.ok) return reply;
    const message = this.redact(reply.error.message);
    if (reply.error.connection) {
      this.failed = this.unreachable(message, reply.error.code);
      throw this.failed;
    }
    throw new SqlError(message, reply.error.code);
  }

  private unreachable(why: string, code = "connection"): StorageFault {
    return new StorageFault(
      "store-unreachable",
      `the PostgreSQL store ${this.opts.where} cannot be reached: ${why}. ` +
        "Check that the server is running and the connection string is right; what was committed stays committed, and `switchyard resume RUN` continues a run once the server is back",
      { systemCode: code },
    );
  }

  /** A message never carries the password (a server or driver could echo the connection string). */
  private redact(message: string): string {
    return this.secret ? message.split(this.secret).join("***") : message;
  }
}
