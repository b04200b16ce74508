// Where the pages get their data: the `switchyard ui` server's JSON endpoints and event stream,
// or the documents embedded in a `show --html` file (which has no server and no live updates).

import type { ApiEvent, CellDoc, EmbeddedRun, GridDoc, LabItem, RunDoc, RunListItem } from "../api-types.js";

/** Where the browser code gets its documents: the server's API, or the data embedded in a `show --html` file. */
export interface Source {
  /** False for a `show --html` file: no run list, no labs, no attempt files, no live updates. */
  readonly live: boolean;
  runs(): Promise<RunListItem[]>;
  labs(): Promise<LabItem[]>;
  run(id: string): Promise<RunDoc>;
  grid(id: string): Promise<GridDoc>;
  cell(id: string, task: string, key: string | null): Promise<CellDoc>;
  /** Calls `on` with each batch of the run's events after `after`; returns the unsubscribe. */
  followRun(id: string, after: number, on: (events: ApiEvent[]) => void): () => void;
  /** Calls `on` with the list rows of runs that appeared or changed. */
  followRuns(on: (rows: RunListItem[]) => void): () => void;
}

async function getJson<T>(path: string): Promise<T> {
  const r = await fetch(path, { headers: { accept: "application/json" } });
  const body = (await r.json()) as T & { error?: { message: string } };
  if (!r.ok) throw new Error(body.error?.message ?? `${r.status} ${r.statusText}`);
  return body;
}

const enc = encodeURIComponent;

/** Documents from the server's JSON API, with live updates by server-sent events. */
export class HttpSource implements Source {
  readonly live = true;
  async runs(): Promise<RunListItem[]> {
    return (await getJson<{ runs: RunListItem[] }>("/api/runs")).runs;
  }
  async labs(): Promise<LabItem[]> {
    return (await getJson<{ labs: LabItem[] }>("/api/labs")).labs;
  }
  run(id: string): Promise<RunDoc> {
    return getJson(`/api/runs/${enc(id)}`);
  }
  grid(id: string): Promise<GridDoc> {
    return getJson(`/api/runs/${enc(id)}/grid`);
  }
  cell(id: string, task: string, key: string | null): Promise<CellDoc> {
    return getJson(`/api/runs/${enc(id)}/cells/${enc(task)}${key === null ? "" : `?key=${enc(key)}`}`);
  }
  followRun(id: string, after: number, on: (events: ApiEvent[]) => void): () => void {
    const es = new EventSource(`/api/runs/${enc(id)}/events?after=${after}`);
    es.addEventListener("events", (e) => on(JSON.parse((e as MessageEvent<string>).data) as ApiEvent[]));
    return () => es.close();
  }
  followRuns(on: (rows: RunListItem[]) => void): () => void {
    const es = new EventSource(`/api/stream`);
    es.addEventListener("runs", (e) => on(JSON.parse((e as MessageEvent<string>).data) as RunListItem[]));
    return () => es.close();
  }
}

/** Documents from the data a `show --html` file carries: one run, frozen. */
export class EmbeddedSource implements Source {
  readonly live = false;
  constructor(private readonly data: EmbeddedRun) {}
  async runs(): Promise<RunListItem[]> {
    return [this.data.run.listing];
  }
  async labs(): Promise<LabItem[]> {
    return [];
  }
  async run(id: string): Promise<RunDoc> {
    if (id !== this.data.run.run) throw new Error(`this file holds run ${this.data.run.run} only`);
    return this.data.run;
  }
  async grid(): Promise<GridDoc> {
    return this.data.grid;
  }
  async cell(_id: string, task: string, key: string | null): Promise<CellDoc> {
    const c = this.data.cells[task]?.[key ?? ""];
    if (!c) throw new Error(`no instance ${task}${key === null ? "" : `[${key}]`} in this file`);
    return c;
  }
  followRun(): () => void {
    return () => {};
  }
  followRuns(): () => void {
    return () => {};
  }
}

/** The embedded documents of a `show --html` file, when this is one. */
export function embedded(): EmbeddedRun | null {
  const el = document.getElementById("switchyard-data");
  return el ? (JSON.parse(el.textContent ?? "null") as EmbeddedRun) : null;
}
