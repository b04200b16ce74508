// A worker's writes to the inbox, grouped (the queue's rate): every job a worker runs
// costs a start claim and a finished report, each a round trip to the store that wakes a server
// process and then this one. With many short attempts at once, the claims (and the reports) that
// arrive while one statement is on its way go together as the next one — a group commit: one
// alone is sent at once, so nothing waits longer than the statement before it. Each grouped
// statement does for every row exactly what inbox.ts's single statements do, in one transaction;
// when it fails, its rows are sent again one by one, in order, so one bad row (a payload the
// server refuses) fails only its own job.

import type { Pool } from "pg";
import { queueDb } from "../store/index.js";
import { claimStart, report, type InboxAddress, type InboxKind, type FinishedReport } from "./inbox.js";
import { queueNames } from "./names.js";

interface Claim {
  at: InboxAddress;
  payload: string;
  done: (r: "skip" | "run") => void;
  fail: (err: unknown) => void;
}

interface Report {
  at: InboxAddress;
  kind: InboxKind;
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
  private readonly claims: Group<Claim>;
  private readonly reports: Group<Report>;

  constructor(
    private readonly pool: Pool,
    private readonly schema: string,
    private readonly worker: string,
  ) {
    this.claims = new Group<Claim>(
      (b) => this.claimAll(b),
      async (c) => c.done(await claimStart(pool, schema, c.at, worker, JSON.parse(c.payload))),
      (c, err) => c.fail(err),
    );
    this.reports = new Group<Report>(
      (b) => this.reportAll(b),
      async (r) => {
        await report(pool, schema, r.at, worker, r.kind, JSON.parse(r.payload), r.round);
        r.done();
      },
      (r, err) => r.fail(err),
    );
  }

  /** As inbox.ts's claimStart: "skip" when the instance passed or this attempt already finished. */
  claimStart(at: InboxAddress, payload: unknown): Promise<"skip" | "run"> {
    return new Promise((done, fail) => this.claims.add({ at, payload: JSON.stringify(payload), done, fail }));
  }

  /** As inbox.ts's report (a report already there is left as it is). */
  report(at: InboxAddress, kind: InboxKind, payload: unknown, round = 0): Promise<void> {
    const status = kind === "finished" ? (payload as FinishedReport).outcome.status : null;
    return new Promise((done, fail) => this.reports.add({ at, kind, round, status, payload: JSON.stringify(payload), done, fail }));
  }

  private async claimAll(batch: Claim[]): Promise<void> {
    const skip = await queueDb.insertInboxStarts(this.pool, this.schema, this.worker, batch);
    batch.forEach((c, i) => c.done(skip.has(i + 1) ? "skip" : "run"));
  }

  private async reportAll(batch: Report[]): Promise<void> {
    await queueDb.insertInboxReports(this.pool, this.schema, this.worker, queueNames(this.schema).inbox, batch);
    for (const x of batch) x.done();
  }
}
