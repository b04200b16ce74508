// A worker's writes to the inbox, grouped (the queue's rate): every job a worker runs
// costs a start claim and a finished report, each a round trip to the store that wakes a server
// process and then this one. With many short attempts at once, the claims and reports that
// arrive while one statement is on its way go together as the next one — a group commit: one
// alone is sent at once, so nothing waits longer than the statement before it. Claims and
// reports share the statement (one transaction, pg/queue-inbox.ts writeInbox), which does for
// every row exactly what inbox.ts's single statements do; when it fails, its rows are sent again
// one by one, in order, so one bad row (a payload the server refuses) fails only its own job.
// A finished report deletes its graphile-worker job in its own transaction: a job whose outcome
// is recorded is never handed out again, and graphile's own completion finds nothing left.

import type { Pool } from "pg";
import { queueDb } from "../store/index.js";
import { claimStart, report, type InboxAddress, type InboxKind, type FinishedReport } from "./inbox.js";
import { queueNames } from "./names.js";

interface Claim {
  kind: "claim";
  at: InboxAddress;
  payload: string;
  done: (r: "skip" | "run") => void;
  fail: (err: unknown) => void;
}

interface Report {
  kind: "report";
  at: InboxAddress;
  report: InboxKind;
  /** The graphile-worker job a finished report ends. */
  job: string | null;
  round: number;
  status: string | null;
  payload: string;
  done: () => void;
  fail: (err: unknown) => void;
}

/** One kind of request sent in groups: at most one statement in flight, the rest wait for it. */
class Group<T> {
  private waiting: T[] = [];
  private busy = false;

  constructor(
    private readonly sendAll: (batch: T[]) => Promise<void>,
    private readonly sendOne: (item: T) => Promise<void>,
    private readonly failItem: (item: T, err: unknown) => void,
  ) {}

  add(item: T): void {
    this.waiting.push(item);
    // Requests made in the same turn of the event loop go together even when nothing is in flight.
    if (!this.busy) {
      this.busy = true;
      setImmediate(() => void this.drain());
    }
  }

  private async drain(): Promise<void> {
    while (this.waiting.length > 0) {
      const batch = this.waiting;
      this.waiting = [];
      try {
        const [only] = batch;
        if (batch.length === 1 && only !== undefined) await this.sendOne(only);
        else await this.sendAll(batch);
      } catch (err) {
        const [only] = batch;
        if (batch.length === 1 && only !== undefined) this.failItem(only, err);
        else
          for (const item of batch) {
            // One after another, in the order asked (rare: only after a refused group).
            await this.sendOne(item).catch((e: unknown) => this.failItem(item, e));
          }
      }
    }
    this.busy = false;
  }
}

/** Writes a worker's claims and reports into the inbox, grouping concurrent writes into one statement. */
export class InboxWriter {
  private readonly writes: Group<Claim | Report>;

  constructor(
    private readonly pool: Pool,
    private readonly schema: string,
    private readonly worker: string,
  ) {
    this.writes = new Group<Claim | Report>(
      (b) => this.writeAll(b),
      async (w) => {
        if (w.kind === "claim") return w.done(await claimStart(pool, schema, w.at, worker, JSON.parse(w.payload)));
        await report(pool, schema, w.at, worker, w.report, JSON.parse(w.payload), w.round, w.job);
        w.done();
      },
      (w, err) => w.fail(err),
    );
  }

  /** As inbox.ts's claimStart: "skip" when the instance passed or this attempt already finished. */
  claimStart(at: InboxAddress, payload: unknown): Promise<"skip" | "run"> {
    return new Promise((done, fail) => this.writes.add({ kind: "claim", at, payload: JSON.stringify(payload), done, fail }));
  }

  /** As inbox.ts's report (a report already there is left as it is); a finished report deletes its job `job`. */
  report(at: InboxAddress, kind: InboxKind, payload: unknown, round = 0, job: string | null = null): Promise<void> {
    const status = kind === "finished" ? (payload as FinishedReport).outcome.status : null;
    return new Promise((done, fail) =>
      this.writes.add({ kind: "report", at, report: kind, job, round, status, payload: JSON.stringify(payload), done, fail }),
    );
  }

  private async writeAll(batch: Array<Claim | Report>): Promise<void> {
    const claims = batch.filter((w): w is Claim => w.kind === "claim");
    const reports = batch.filter((w): w is Report => w.kind === "report");
    const rows = reports.map((r) => ({ at: r.at, kind: r.report, round: r.round, status: r.status, payload: r.payload, job: r.job }));
    const skip = await queueDb.writeInbox(this.pool, this.schema, this.worker, queueNames(this.schema).inbox, claims, rows);
    claims.forEach((c, i) => c.done(skip.has(i + 1) ? "skip" : "run"));
    for (const r of reports) r.done();
  }
}
