// Live updates: the server tails the event log and pushes to the browsers by
// server-sent events. One timer for the whole server, running only while someone listens, asks
// SQLite for `PRAGMA data_version` — a counter that changes only when another connection (the
// process executing a run) commits — so an idle log costs one tiny query per tick and a busy one
// a range read of the new events per listening run: no polling storm, whatever the clients do.

import type { ServerResponse } from "node:http";
import type { RunReader } from "./run-reader.js";

/** How often the log is checked while anyone listens. */
const TICK_MS = 150;
/** Events per query, and at most this many per client per tick (the rest follow next tick). */
const PAGE = 2000;
const PER_TICK = 20_000;
const HEARTBEAT_MS = 15_000;

interface RunListener {
  res: ServerResponse;
  run: string;
  after: number;
  /** More events may be waiting than the last tick sent. */
  behind: boolean;
}

function openEventStream(res: ServerResponse): void {
  res.writeHead(200, {
    "content-type": "text/event-stream; charset=utf-8",
    "cache-control": "no-store",
    connection: "keep-alive",
    "x-content-type-options": "nosniff",
  });
  res.write(`retry: 1000\n\n`);
}

/** The server's live updates: one timer, running only while a browser listens, pushes new events to each run's listeners and run-list changes to the list's. */
export class LiveHub {
  private readonly runListeners = new Set<RunListener>();
  private readonly listListeners = new Set<ServerResponse>();
  private timer: NodeJS.Timeout | null = null;
  private lastBeat = Date.now();
  private dataVersion = -1;
  private fingerprints = new Map<string, string>();

  /** `reader()` is null while the state folder has no database yet. */
  constructor(private readonly reader: () => RunReader | null) {}

  /** Streams the run's events after `after` (catching up first), then each new one. */
  followRun(res: ServerResponse, run: string, after: number): void {
    openEventStream(res);
    const l: RunListener = { res, run, after, behind: true };
    this.runListeners.add(l);
    res.on("close", () => this.runListeners.delete(l));
    this.start();
  }

  /** Streams `runs` messages: the run-list rows of runs that appeared or changed. */
  followRuns(res: ServerResponse): void {
    openEventStream(res);
    if (this.listListeners.size === 0) this.fingerprints = this.reader()?.fingerprints() ?? new Map();
    this.listListeners.add(res);
    res.on("close", () => this.listListeners.delete(res));
    this.start();
  }

  close(): void {
    if (this.timer) clearInterval(this.timer);
    this.timer = null;
    for (const l of this.runListeners) l.res.end();
    for (const r of this.listListeners) r.end();
    this.runListeners.clear();
    this.listListeners.clear();
  }

  private start(): void {
    if (this.timer) return;
    this.timer = setInterval(() => this.tick(), TICK_MS);
    setImmediate(() => this.tick());
  }

  private tick(): void {
    if (this.runListeners.size === 0 && this.listListeners.size === 0) {
      if (this.timer) clearInterval(this.timer);
      this.timer = null;
      this.dataVersion = -1;
      return;
    }
    const reader = this.reader();
    if (!reader) return;
    const version = reader.store.changeCounter();
    const changed = version !== this.dataVersion;
    this.dataVersion = version;
    for (const l of this.runListeners) if (changed || l.behind) this.sendRun(reader, l);
    if (changed && this.listListeners.size > 0) this.sendRuns(reader);
    if (Date.now() - this.lastBeat > HEARTBEAT_MS) {
      this.lastBeat = Date.now();
      for (const l of this.runListeners) l.res.write(": keep-alive\n\n");
      for (const r of this.listListeners) r.write(": keep-alive\n\n");
    }
  }

  private sendRun(reader: RunReader, l: RunListener): void {
    let sent = 0;
    l.behind = false;
    for (;;) {
      const events = reader.eventsAfter(l.run, l.after, PAGE);
      if (events.length === 0) return;
      l.after = events[events.length - 1]!.seq;
      l.res.write(`id: ${l.after}\nevent: events\ndata: ${JSON.stringify(events)}\n\n`);
      sent += events.length;
      if (events.length < PAGE) return;
      if (sent >= PER_TICK) {
        l.behind = true;
        return;
      }
    }
  }

  private sendRuns(reader: RunReader): void {
    const now = reader.fingerprints();
    const changed = [...now].filter(([run, f]) => this.fingerprints.get(run) !== f).map(([run]) => run);
    this.fingerprints = now;
    if (changed.length === 0) return;
    const set = new Set(changed);
    const rows = reader.runs().filter((r) => set.has(r.run));
    const data = JSON.stringify(rows);
    for (const r of this.listListeners) r.write(`event: runs\ndata: ${data}\n\n`);
  }
}
