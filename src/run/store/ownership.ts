// Run ownership: exactly one process executes a run at a time.
//
// The owner is claimed in one SQLite write transaction (BEGIN IMMEDIATE), so of several
// `resume RUN` started at once exactly one wins and the others are refused with `run-busy`
// before they fold anything. The owner is identified by more than its pid: PIDs are reused (in
// containers they restart low), so the record also holds the process's start time (field 22 of
// /proc/PID/stat, in clock ticks since boot), the machine's boot id, the host name and a random
// token. A recorded owner is then
//   - alive: same host, same boot, the pid exists and started at the recorded time;
//   - gone: the pid does not exist, started at another time (reused), or the machine rebooted;
//   - unverifiable: another host, or no /proc to read a start time from (or an owner recorded
//     before start times were, which has only a pid). `resume --force` takes such a run over.
// Nothing ever signals a process that is not a verified-alive owner.
//
// The `owners` table is not a projection of the event log (`runs --rebuild` leaves it alone): it
// is a lock with a name on it. The owner deletes its row when its engine finishes; a killed
// owner's row stays and is recognised as gone.
//
// In a PostgreSQL store (shared by many machines) the lock is real: the owner holds the run's
// session advisory lock on its store connection for as long as it owns the run. A killed owner,
// or one cut off from the server, loses it with its connection, so a resume on any machine takes
// the run over; while it is held the run is busy. The `owners` row then only says who holds it.

import { randomBytes } from "node:crypto";
import { readFileSync } from "node:fs";
import { hostname } from "node:os";
import type { Sql, Store } from "./store.js";
import type { PostgresStore } from "./store-postgres.js";
import type { SqliteStore } from "./store-sqlite.js";
import { RunRefused } from "./run-refused.js";

/** Which process owns a run: its pid, start time and boot, its host, and the token it holds. */
export interface OwnerIdentity {
  pid: number;
  /** The process's start time in clock ticks since boot (null where /proc cannot tell). */
  started: string | null;
  /** /proc/sys/kernel/random/boot_id (null where unknown). */
  boot: string | null;
  host: string;
  token: string;
}

/** Whether a run's owner is alive, known gone, or cannot be told (another host, no /proc). */
export type OwnerCheck =
  | { state: "alive"; owner: OwnerIdentity }
  | { state: "gone"; owner: OwnerIdentity; why: string }
  | { state: "unverifiable"; owner: OwnerIdentity; why: string };

const SCHEMA = `CREATE TABLE IF NOT EXISTS owners (
  run TEXT PRIMARY KEY, pid INTEGER NOT NULL, started TEXT, boot TEXT, host TEXT NOT NULL,
  token TEXT NOT NULL, since TEXT NOT NULL
) WITHOUT ROWID`;

/** The start time of a process (field 22 of /proc/PID/stat), or null when it cannot be read. */
export function processStartTime(pid: number): string | null {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, "utf8");
    // Field 2 (the command name) is in parentheses and may hold spaces and parentheses itself.
    const rest = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
    return rest[19] ?? null; // rest[0] is field 3
  } catch {
    return null;
  }
}

function bootId(): string | null {
  try {
    return readFileSync("/proc/sys/kernel/random/boot_id", "utf8").trim() || null;
  } catch {
    return null;
  }
}

let self: OwnerIdentity | undefined;
/** This process's identity (one token per process). */
export function currentIdentity(): OwnerIdentity {
  self ??= {
    pid: process.pid,
    started: processStartTime(process.pid),
    boot: bootId(),
    host: hostname(),
    token: randomBytes(8).toString("hex"),
  };
  return self;
}

/** Whether a process with this pid exists (EPERM: it does, owned by someone else). */
export function pidExists(pid: number): boolean {
  // 0 and negative ids name process groups, not a process (kill(0) would report our own group).
  if (!Number.isInteger(pid) || pid < 1) return false;
  try {
    process.kill(pid, 0);
    return true;
  } catch (err) {
    return (err as NodeJS.ErrnoException).code === "EPERM";
  }
}

/** Whether a recorded owner is still the process executing the run. */
export function checkOwner(owner: OwnerIdentity): OwnerCheck {
  const me = currentIdentity();
  if (owner.host !== me.host) return { state: "unverifiable", owner, why: `it was recorded on host ${owner.host}, and this is ${me.host}` };
  if (owner.boot && me.boot && owner.boot !== me.boot) return { state: "gone", owner, why: "the machine restarted since" };
  if (owner.pid === me.pid) {
    // An engine of this very process (a library caller that abandoned one) cannot be executing
    // the run while we ask on the same thread; only this process's own claim is alive.
    return owner.token === me.token ? { state: "alive", owner } : { state: "gone", owner, why: "it was an earlier engine of this process" };
  }
  if (!pidExists(owner.pid)) return { state: "gone", owner, why: `process ${owner.pid} no longer exists` };
  const started = processStartTime(owner.pid);
  if (owner.started === null || started === null)
    return {
      state: "unverifiable",
      owner,
      why: `process ${owner.pid} exists, but its start time cannot be compared${owner.started === null ? " (none was recorded)" : ""}`,
    };
  if (started !== owner.started) return { state: "gone", owner, why: `process ${owner.pid} is another program that reused the pid` };
  return { state: "alive", owner };
}

const READ: Sql = { sqlite: "SELECT pid, started, boot, host, token FROM owners WHERE run = ?" };
const WRITE: Sql = {
  sqlite: "INSERT OR REPLACE INTO owners (run, pid, started, boot, host, token, since) VALUES (?, ?, ?, ?, ?, ?, ?)",
  postgres: `INSERT INTO owners (run, pid, started, boot, host, token, since) VALUES ($1, $2, $3, $4, $5, $6, $7)
    ON CONFLICT (run) DO UPDATE SET pid = excluded.pid, started = excluded.started, boot = excluded.boot, host = excluded.host,
    token = excluded.token, since = excluded.since`,
};
const DELETE: Sql = { sqlite: "DELETE FROM owners WHERE run = ? AND token = ?" };

function ensureTable(store: Store): boolean {
  try {
    store.ensureTable(SCHEMA);
    return true;
  } catch {
    return false; // a read-only database: readOwner then sees no table
  }
}

/** The store as one whose advisory lock is the claim (PostgreSQL), or undefined. */
function locking(store: Store): PostgresStore | undefined {
  return store.kind === "postgres" ? (store as PostgresStore) : undefined;
}

interface OwnerRow {
  pid: number;
  started: string | null;
  boot: string | null;
  host: string;
  token: string;
}

/**
 * The recorded owner of a run: its row in `owners`, else (a run recorded before owners were, or
 * one being admitted) the pid of the run's projection while the run is `running`.
 */
function readOwner(store: Store, run: string): OwnerIdentity | undefined {
  let row: OwnerRow | undefined;
  if (ensureTable(store)) row = store.select<OwnerRow>(READ, [run])[0];
  if (row) return { ...row };
  const r = store.run(run);
  if (r && r.status === "running" && r.pid) return { pid: r.pid, started: null, boot: null, host: currentIdentity().host, token: "" };
  return undefined;
}

/** The recorded owner of a run and whether it is alive (undefined: nobody claims the run). */
export function runOwner(store: Store, run: string): OwnerCheck | undefined {
  const o = readOwner(store, run);
  const pg = locking(store);
  if (pg) {
    if (pg.lockHeld(run)) return { state: "alive", owner: o ?? { pid: 0, started: null, boot: null, host: "?", token: "" } };
    return o ? { state: "gone", owner: o, why: "its connection to the store is gone" } : undefined;
  }
  return o ? checkOwner(o) : undefined;
}

/** Whether the process recorded as executing a run is verifiably gone (resume may continue it). */
export function ownerGone(store: Store, run: string): boolean {
  return runOwner(store, run)?.state === "gone";
}

/** What a run-busy refusal says about a recorded owner. */
function busyMessage(run: string, check: OwnerCheck): string {
  const o = check.owner;
  if (check.state === "alive")
    return `run ${run} is being executed by process ${o.pid}; wait for it, or stop it with \`switchyard cancel ${run}\``;
  return (
    `run ${run} is recorded as executed by process ${o.pid} on ${o.host}, which cannot be verified: ${check.state === "unverifiable" ? check.why : ""}. ` +
    `If no switchyard process is executing it, take it over with \`switchyard resume ${run} --force\``
  );
}

/** A claim on a run; release() gives it up (the engine does when it finishes). */
export class RunOwnership {
  private released = false;
  constructor(
    private readonly store: Store,
    readonly run: string,
    readonly identity: OwnerIdentity,
    /** The owner this claim replaced (gone, or unverifiable and forced), for cleaning up after it. */
    readonly previous: OwnerCheck | undefined,
  ) {}

  release(): void {
    if (this.released) return;
    this.released = true;
    try {
      this.store.exec(DELETE, [this.run, this.identity.token]);
      locking(this.store)?.unlock(this.run);
    } catch {
      // a closed or failing database: the row is recognised as gone once this process exits
    }
  }
}

/**
 * Claims a run for this process in one write transaction. Refused with run-busy when a verified
 * live process owns it, or an unverifiable one does and `force` is not set.
 */
export function claimRun(store: Store, run: string, opts: { force?: boolean } = {}): RunOwnership {
  store.flush();
  ensureTable(store);
  const me = currentIdentity();
  const record = () => store.exec(WRITE, [run, me.pid, me.started, me.boot, me.host, me.token, new Date().toISOString()]);
  const pg = locking(store);
  if (pg) {
    if (!pg.tryLock(run)) {
      const o = readOwner(store, run);
      const who = o ? `process ${o.pid} on ${o.host}` : "another process";
      throw new RunRefused(
        "run-busy",
        `run ${run} is being executed by ${who}, which holds the run's lock in the store; wait for it, or stop it with \`switchyard cancel ${run}\``,
      );
    }
    const o = readOwner(store, run);
    record();
    return new RunOwnership(store, run, me, o && o.token !== me.token ? previousHolder(o) : undefined);
  }
  let previous: OwnerCheck | undefined;
  const claim = () => {
    const o = readOwner(store, run);
    previous = o && o.token !== me.token ? checkOwner(o) : undefined;
    if (previous && (previous.state === "alive" || (previous.state === "unverifiable" && !opts.force)))
      throw new RunRefused("run-busy", busyMessage(run, previous));
    record();
  };
  try {
    (store as SqliteStore).immediate(claim);
  } catch (err) {
    if ((err as { code?: string }).code === "SQLITE_BUSY") {
      throw new RunRefused("run-busy", `the state database ${store.stateDir} stayed locked by another process; try again in a moment`);
    }
    throw err;
  }
  return new RunOwnership(store, run, me, previous);
}

/**
 * The owner a PostgreSQL claim replaced (its lock was free). Its process groups are stopped only
 * when it is verifiably gone on this host; one alive (cut off from the server) or on another
 * host is left alone.
 */
function previousHolder(o: OwnerIdentity): OwnerCheck {
  const c = checkOwner(o);
  return c.state === "alive" ? { state: "unverifiable", owner: o, why: "it is alive but lost its connection to the store" } : c;
}
