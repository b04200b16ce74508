// Syncing the SQLite WAL to disk off the engine's thread, for commits made without a sync
// (SqliteStore.flushWithBackgroundSync). A commit with `synchronous = NORMAL` is in the WAL, in
// the operating system's cache, when it returns: it survives the process being killed. The
// fdatasync of the WAL file that FULL would have made before returning is made here on libuv's
// thread pool instead, so the commit is durable against a power loss a few milliseconds later
// without the engine's thread (which also drives every request in flight) waiting for the disk.
// Any synced commit in between syncs the same file, and close() syncs it before the connection
// closes, so nothing stays unsynced once the store is closed.
//
// A sync starts SYNC_DELAY_MS after the first commit that needs it, and covers every commit made
// meanwhile: a run that commits every few milliseconds (grouped decisions) pays one fdatasync per
// window, not one per commit — each costs the process kernel time even off its thread.

import { closeSync, fdatasync, fdatasyncSync, openSync } from "node:fs";

/** How long a background sync waits for more commits to cover (R-3: durable within milliseconds). */
export const SYNC_DELAY_MS = 20;

/** Syncs one WAL file in the background: at most one sync at a time, one more when asked meanwhile. */
export class BackgroundWalSync {
  private fd: number | undefined;
  private running = false;
  /** Asked while a sync was running: the frames written since need one more. */
  private again = false;
  /** Asked since the last sync that completed (or one failed): close() syncs. */
  private dirty = false;
  private closed = false;
  /** The sync asked for and not started yet: it starts when this fires. */
  private timer: NodeJS.Timeout | undefined;
  /** Told once no sync runs or waits (settled()). */
  private waiters: Array<() => void> = [];

  /** `walFile` is the database's `-wal` file; `onError` hears of a sync that failed. */
  constructor(
    private readonly walFile: string,
    private readonly onError: (err: unknown) => void,
  ) {}

  /** Syncs what is in the WAL now, in the background, within SYNC_DELAY_MS (after the running sync, if one runs). */
  request(): void {
    if (this.closed) return;
    this.dirty = true;
    if (this.running) this.again = true;
    else this.schedule();
  }

  private schedule(): void {
    this.timer ??= setTimeout(() => {
      this.timer = undefined;
      this.start();
    }, SYNC_DELAY_MS);
  }

  private start(): void {
    let fd: number;
    try {
      // Read-only is enough: fdatasync flushes the file's data whichever descriptor names it.
      fd = this.fd ??= openSync(this.walFile, "r");
    } catch (err) {
      this.onError(err);
      for (const w of this.waiters.splice(0)) w();
      return;
    }
    this.running = true;
    this.again = false;
    fdatasync(fd, (err) => {
      this.running = false;
      if (err) this.onError(err);
      else if (!this.again) this.dirty = false;
      if (this.closed) this.release();
      else if (this.again) this.schedule();
      if (!this.running && !this.timer) for (const w of this.waiters.splice(0)) w();
    });
  }

  /** Resolves once no background sync runs or waits (every commit asked for so far is synced, or its sync failed). */
  settled(): Promise<void> {
    return this.running || this.timer ? new Promise((resolve) => this.waiters.push(resolve)) : Promise.resolve();
  }

  /**
   * Before the connection closes: syncs the WAL at once when a background sync was asked for and
   * has not completed (throws what fdatasync throws); the descriptor is closed once no sync runs.
   */
  close(): void {
    if (this.closed) return;
    this.closed = true;
    clearTimeout(this.timer);
    this.timer = undefined;
    try {
      if (this.dirty) fdatasyncSync(this.fd ?? (this.fd = openSync(this.walFile, "r")));
      this.dirty = false;
    } finally {
      if (!this.running) this.release();
    }
  }

  private release(): void {
    if (this.fd !== undefined) closeSync(this.fd);
    this.fd = undefined;
  }
}
