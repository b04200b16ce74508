// What both stores share (the contract is in store.ts): the append buffer and its commits, the
// fault handling, the rebuild, and the reads of the log and its projections, all through the
// statements of store-sql.ts. A store adds how a batch is committed and how SQL is run.

import { join } from "node:path";
import { decodeEvent, type EventPayloads, type EventType, type RunEvent, type StoredEvent } from "./events.js";
import { serialisePayload } from "./event-rows.js";
import { UNMAPPED, type PendingRow } from "./projection.js";
import { LOG_SQL } from "./store-sql.js";
import type { StorageFault } from "./storage-fault.js";
import type { InstanceRow, RunRow, Sql, Store, StoreKind, TaskRow } from "./store.js";

/** Buffered events at which a commit is made at once rather than on the timer. */
const FLUSH_AT = 4000;
/** How long an appended event waits for more before its batch is committed. */
const FLUSH_MS = 15;
/** Events per page when the log is read (events(), rebuild()). */
const PAGE = 4000;

/** A store that buffers events and their projection rows and writes them in batches. */
export abstract class BufferedStore implements Store {
  abstract readonly kind: StoreKind;
  abstract readonly location: string;
  protected buffer: PendingRow[] = [];
  private timer: NodeJS.Timeout | null = null;
  private seqs = new Map<string, number>();
  committed = 0;
  onFault: ((fault: StorageFault) => void) | null = null;
  private faulted = false;

  constructor(readonly stateDir: string) {}

  /** Commits rows (inserting them into `events` when `insert`, else only projecting them) in one transaction. */
  protected abstract commitRows(rows: PendingRow[], insert: boolean): void;
  /** The StorageFault an error of this store stands for, or undefined when it is none (a bug). */
  protected abstract fault(err: unknown): StorageFault | undefined;
  /** Closes the connection. */
  protected abstract disconnect(): void;
  abstract select<R = Record<string, unknown>>(q: Sql, params?: unknown[]): R[];
  abstract exec(q: Sql, params?: unknown[]): void;
  abstract ensureTable(ddl: string): void;
  execUnsynced(q: Sql, params?: unknown[]): void {
    this.exec(q, params);
  }
  execWithNextCommit(q: Sql, params?: unknown[]): void {
    this.exec(q, params);
  }
  abstract changeCounter(): number;

  runDir(run: string): string {
    return join(this.stateDir, "runs", run);
  }

  append<T extends EventType>(run: string, type: T, task: string | null, key: string | null, payload: EventPayloads[T]): RunEvent {
    let seq = this.seqs.get(run);
    if (seq === undefined) seq = this.eventCount(run);
    seq += 1;
    this.seqs.set(run, seq);
    const now = new Date();
    const time = now.toISOString();
    // For a generic T, TypeScript cannot see that (type, payload) is one member of the union.
    const row = { run, seq, time, type, task, key, payload, text: "", ms: now.getTime() } as PendingRow;
    serialisePayload(row);
    this.buffer.push(row);
    if (this.buffer.length >= FLUSH_AT) this.flushOrReport();
    else this.commitSoon();
    return { run, seq, time, type, task, key, payload } as RunEvent;
  }

  /** Arms the timer that commits what waits (events, riders) within FLUSH_MS. */
  protected commitSoon(): void {
    if (!this.timer) this.timer = setTimeout(() => this.flushOrReport(), FLUSH_MS);
  }

  flush(): void {
    if (this.timer) {
      clearTimeout(this.timer);
      this.timer = null;
    }
    if (this.buffer.length === 0 && !this.hasRiders()) return;
    const rows = this.buffer;
    this.buffer = [];
    try {
      this.commitRows(rows, true);
    } catch (err) {
      // Nothing of the batch was committed (one transaction): keep it for a later try.
      this.buffer = rows.concat(this.buffer);
      const fault = this.fault(err);
      if (!fault) throw err;
      this.faulted = true;
      if (!this.onFault) throw fault;
      this.onFault(fault);
      return;
    }
    this.committed += rows.length;
    this.committedRows(rows);
  }

  /** flush(); SqliteStore syncs this commit to disk in the background instead of before returning. */
  flushWithBackgroundSync(): void {
    this.flush();
  }

  /** Whether statements wait to ride with the next commit even without events (PostgresStore). */
  protected hasRiders(): boolean {
    return false;
  }

  /** Told of each committed batch (PostgresStore drops the statements that rode with it). */
  protected committedRows(_rows: PendingRow[]): void {}

  /**
   * The buffer's own commit (its timer, or FLUSH_AT events waiting), where nobody could catch a
   * fault: reported, never thrown. Nobody waits for it and nothing acts on it (what acts on an
   * event calls flush() first), so it does not wait for the disk either: flushWithBackgroundSync.
   */
  private flushOrReport(): void {
    try {
      this.flushWithBackgroundSync();
    } catch (err) {
      if (!this.onFault || !this.fault(err)) throw err;
    }
  }

  get uncommitted(): number {
    return this.buffer.length;
  }

  close(): void {
    try {
      this.flush();
    } catch (err) {
      // A fault already reported (the command is ending because of it) is not thrown again.
      if (!(this.faulted && this.fault(err))) throw err;
    } finally {
      this.disconnect();
    }
  }

  *events(run: string): IterableIterator<RunEvent> {
    for (let after = 0; ;) {
      const page = this.eventsAfter(run, after, PAGE);
      for (const r of page) yield decodeEvent(run, r);
      const last = page.at(-1);
      if (page.length < PAGE || last === undefined) return;
      after = last.seq;
    }
  }

  eventsAfter(run: string, after: number, limit: number): StoredEvent[] {
    return this.select<StoredEvent>(LOG_SQL.eventsAfter, [run, after, limit]);
  }

  eventCount(run: string): number {
    return this.select<{ m: number | null }>(LOG_SQL.maxSeq, [run])[0]?.m ?? 0;
  }

  rebuild(run?: string): number {
    this.flush();
    const runs = run ? [run] : this.select<{ run: string }>(LOG_SQL.eventRuns).map((r) => r.run);
    let n = 0;
    for (const r of runs) {
      this.clearProjections(r);
      // Read in pages, each one read whole before it is applied (an SQLite connection cannot
      // write while a statement still iterates over it).
      for (let after = 0; ;) {
        const page = this.eventsAfter(r, after, PAGE);
        const last = page.at(-1);
        if (last === undefined) break;
        const batch = page.map((e): PendingRow => ({ ...decodeEvent(r, e), text: "", ms: Date.parse(e.time) }));
        this.commitRows(batch, false);
        n += batch.length;
        after = last.seq;
      }
      // The live projection touched inv_last once per committed batch; rebuilding in other
      // batches gives the same value because only the latest event time counts.
    }
    return n;
  }

  /** Deletes a run's projection rows, in one transaction. */
  protected abstract clearProjections(run: string): void;

  run(run: string): RunRow | undefined {
    const r = this.select<Omit<RunRow, "elapsed_ms"> & { prior_ms: number; inv_start: number; inv_last: number }>(LOG_SQL.run, [run])[0];
    if (!r) return undefined;
    const { prior_ms, inv_start, inv_last, ...rest } = r;
    return { ...rest, elapsed_ms: prior_ms + (inv_last - inv_start) };
  }

  runs(): RunRow[] {
    return this.select<{ run: string }>(LOG_SQL.runIds).map((r) => this.run(r.run)!);
  }

  latestRun(): string | undefined {
    return this.select<{ run: string }>(LOG_SQL.latestRun)[0]?.run;
  }

  tasks(run: string): TaskRow[] {
    return this.select<Omit<TaskRow, "mapped" | "summary"> & { mapped: number; summary: string | null }>(LOG_SQL.tasks, [run]).map((t) => ({
      ...t,
      mapped: t.mapped === 1,
      summary: t.summary === null ? null : JSON.parse(t.summary),
    }));
  }

  instances(run: string, task?: string): InstanceRow[] {
    const rows = this.select<Omit<InstanceRow, "output"> & { key: string; output: string | null }>(
      task ? LOG_SQL.instancesOfTask : LOG_SQL.instances,
      task ? [run, task] : [run],
    );
    return rows.map((r) => ({ ...r, key: r.key === UNMAPPED ? null : r.key, output: r.output === null ? null : JSON.parse(r.output) }));
  }
}
