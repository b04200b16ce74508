// better-sqlite3 against node:sqlite under the same SqliteStore (bench/store-append.ts's second
// section): appends in batches of 100, the fold of a finished run's events into its rows
// (`switchyard runs --rebuild`), and the reads the web view makes of that run (the run page, the
// grid, every cell, a page of instances, the event stream). Each driver gets its own copy of the
// same database; each figure is the median of ROUNDS, the drivers taking turns to go first so load
// on the machine falls on both. The fold and the reads also give the process's CPU time, which a
// loaded machine disturbs less than the time on the clock.

import { copyFileSync } from "node:fs";
import { join } from "node:path";
import { SqliteStore, type Store } from "../src/run/index.js";
import { openSqlite } from "../src/run/store/sqlite-driver.js";
import { RunReader } from "../src/ui/run-reader.js";
import { makeBigRun } from "./big-run.js";
import { nodeSqlite, openNodeSqlite } from "./node-sqlite-driver.js";

const ROUNDS = 5;
const ELEMENTS = Number(process.env.SWITCHYARD_BENCH_ELEMENTS ?? 2000);
const DRIVERS = { "better-sqlite3": openSqlite, "node:sqlite": openNodeSqlite } as const;
type Driver = keyof typeof DRIVERS;

/** [wall ms, CPU ms] of f. */
const ms = (f: () => void): [number, number] => {
  const t0 = performance.now();
  const c0 = process.cpuUsage();
  f();
  const c = process.cpuUsage(c0);
  return [performance.now() - t0, (c.user + c.system) / 1000];
};
const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;

/** The web view's reads of one run, as its API serves them. */
function readAll(store: Store, run: string): void {
  const r = new RunReader(store);
  r.runs();
  r.runDoc(run);
  r.grid(run);
  r.allCells(run);
  r.instances(run, { offset: 0, limit: 200 });
  for (let after = 0, page; (page = r.eventsAfter(run, after, 1000)).length > 0;) after = page[page.length - 1]!.seq;
}

export async function compareDrivers(dir: string, total: number, measure: (store: Store, batch: number) => number): Promise<void> {
  if (!nodeSqlite()) {
    process.stdout.write(`node:sqlite not measured: Node ${process.version} has none (22.13 or later has)\n`);
    return;
  }
  const state = join(dir, "big-state");
  const run = await makeBigRun(state, ELEMENTS);
  const open = (driver: Driver, name: string) => new SqliteStore(join(dir, name), undefined, undefined, DRIVERS[driver]);
  const figures: Record<Driver, { append: Array<[number, number]>; fold: Array<[number, number]>; read: Array<[number, number]> }> = {
    "better-sqlite3": { append: [], fold: [], read: [] },
    "node:sqlite": { append: [], fold: [], read: [] },
  };
  for (let round = 0; round < ROUNDS; round++) {
    const order = Object.keys(DRIVERS) as Driver[];
    for (const driver of round % 2 ? order.reverse() : order) {
      const f = figures[driver];
      const appending = open(driver, `append-${driver}-${round}`);
      let rate = 0;
      const [, cpu] = ms(() => (rate = measure(appending, 100)));
      f.append.push([rate, (cpu * 1000) / total]);
      appending.close();
      const copy = join(dir, `read-${driver}-${round}`);
      const reading = new SqliteStore(copy, join(dir, `big-${driver}-${round}.db`), undefined, (file) => {
        copyFileSync(join(state, "switchyard.db"), file);
        return DRIVERS[driver](file);
      });
      f.fold.push(ms(() => reading.rebuild(run)));
      f.read.push(ms(() => readAll(reading, run)));
      reading.close();
    }
  }
  const made = new SqliteStore(state);
  const events = made.eventCount(run);
  made.close();
  process.stdout.write(
    `\nThe same store on two drivers (Node ${process.version}; median of ${ROUNDS}; a run of ${ELEMENTS.toLocaleString("en")} elements x 6 tasks, ${events.toLocaleString("en")} events):\n`,
  );
  const both = (xs: Array<[number, number]>) =>
    `${median(xs.map((x) => x[0]))
      .toFixed(0)
      .padStart(5)} ms (CPU ${median(xs.map((x) => x[1]))
      .toFixed(0)
      .padStart(5)} ms)`;
  for (const driver of Object.keys(DRIVERS) as Driver[]) {
    const f = figures[driver];
    process.stdout.write(
      `  ${driver.padEnd(15)} appends ${Math.round(median(f.append.map((a) => a[0])))
        .toLocaleString("en")
        .padStart(6)} events/s ` +
        `(CPU ${median(f.append.map((a) => a[1])).toFixed(1)} µs/event, batch 100)` +
        `   fold ${both(f.fold)}   web view reads ${both(f.read)}\n`,
    );
  }
}
