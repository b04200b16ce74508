// `switchyard ui`: a local web server over a state folder. Built on node:http alone: the API is a
// dozen GET routes and one POST, matched below by tables of patterns, which is smaller and clearer
// than a router dependency and has no behaviour we would need to learn or patch (no middleware,
// no body parsing but the one write's JSON).
//
// Safety: every path segment is decoded and refused if it is `.`/`..` or holds a slash,
// backslash or NUL, before any route is matched; run ids, task names and keys are looked up in
// the store, and files are only ever read at paths built from those recorded names
// (attempt-files.ts). Nothing outside the state folder is served. Requests whose Host header is
// not this server's own (DNS rebinding) are refused while it listens on a loopback address. The
// one write, answering review questions, needs the token `switchyard ui` printed, this server's
// own Origin, and a peer on this machine unless --host opened it (write-guard.ts).

import { createServer, type IncomingMessage, type Server, type ServerResponse } from "node:http";
import { existsSync } from "node:fs";
import { join } from "node:path";
import { openStore } from "../run/index.js";
import type { StoreSpec } from "../run/store/index.js";
import { harvest } from "../lab/harvest.js";
import { renderHtml } from "../lab/report-html.js";
import { defaultCalibrationFile, readCalibrations } from "../lab/known-calibrations.js";
import { listLabs, pairsPath } from "../lab/store.js";
import type { LabItem } from "./api-types.js";
import { RunReader } from "./run-reader.js";
import { runHash } from "./hash.js";
import { attemptFiles, workspaceFile } from "./attempt-files.js";
import { LiveHub } from "./live.js";
import { loadAssets, SERVED_CSP, servedPage } from "./page.js";
import { HttpError } from "./http-error.js";
import { checkWrite, type WriteAccess } from "./write-guard.js";
import { readJsonBody } from "./request-body.js";
import { answerElement, reviewQueue } from "./review-api.js";
import type { ReviewQueueDoc } from "./review-types.js";

/** Where the web view reads from and where it listens. */
export interface UiServerOptions {
  stateDir: string;
  /** The store of the records (--store); the state folder's switchyard.db without one. */
  store?: StoreSpec;
  host: string;
  port: number;
  /** Answering review questions: the token a write must carry, and whether other machines may write. Without it the view only reads. */
  writes?: WriteAccess;
}

const notFound = (what: string) => new HttpError("ui-not-found", what, { status: 404 });

interface Ctx {
  req: IncomingMessage;
  res: ServerResponse;
  url: URL;
  params: string[];
}

type Handler = (ctx: Ctx) => void | Promise<void>;

const LOOPBACK = new Set(["127.0.0.1", "localhost", "::1", "[::1]"]);

/** The state folder's store, opened once its database exists (a fresh folder has none yet). */
class StateSource {
  private reader: RunReader | null = null;
  constructor(
    readonly dir: string,
    private readonly store?: StoreSpec,
  ) {}
  get(): RunReader | null {
    if (this.reader) return this.reader;
    const file = this.store ? (this.store.kind === "sqlite" ? this.store.file : null) : join(this.dir, "switchyard.db");
    if (file === null || existsSync(file)) this.reader = new RunReader(openStore(this.store, this.dir));
    return this.reader;
  }
  need(): RunReader {
    const r = this.get();
    if (!r) throw new HttpError("ui-no-runs", `no runs in ${this.dir} yet`, { status: 404 });
    return r;
  }
  close(): void {
    this.reader?.store.close();
    this.reader = null;
  }
}

function send(res: ServerResponse, status: number, type: string, body: string | Buffer, extra: Record<string, string> = {}): void {
  res.writeHead(status, {
    "content-type": type,
    "cache-control": "no-store",
    "x-content-type-options": "nosniff",
    "referrer-policy": "no-referrer",
    ...extra,
  });
  res.end(res.req.method === "HEAD" ? undefined : body);
}

function sendJson(res: ServerResponse, value: unknown, status = 200): void {
  send(res, status, "application/json; charset=utf-8", JSON.stringify(value));
}

function intParam(url: URL, name: string, dflt: number, min: number, max: number): number {
  const v = url.searchParams.get(name);
  if (v === null) return dflt;
  const n = Number(v);
  if (!Number.isInteger(n) || n < min || n > max)
    throw new HttpError("ui-bad-parameter", `${name} must be an integer from ${min} to ${max}, got ${JSON.stringify(v)}`, { status: 400 });
  return n;
}

/** Splits the raw path into decoded segments, refusing traversal and odd characters. */
function pathSegments(rawPath: string): string[] {
  const segs = rawPath.split("/").slice(1);
  if (segs.length > 0 && segs[segs.length - 1] === "") segs.pop();
  return segs.map((s) => {
    let d: string;
    try {
      d = decodeURIComponent(s);
    } catch {
      throw new HttpError("ui-bad-path", "the path is not valid percent-encoding", { status: 400 });
    }
    if (d === "." || d === ".." || d === "" || /[/\\\0]/.test(d))
      throw new HttpError("ui-path-refused", "paths with '.', '..', empty segments, slashes, backslashes or NUL are refused", {
        status: 400,
      });
    return d;
  });
}

/** The run a route names (its first parameter), with the reader it was found in; 404 when there is none. */
function runOf(state: StateSource, ctx: Ctx): { reader: RunReader; id: string } {
  const reader = state.need();
  const id = ctx.params[0]!;
  if (!reader.hasRun(id)) throw notFound(`no run ${id} in ${state.dir}`);
  return { reader, id };
}

const keyParam = (ctx: Ctx): string | null => ctx.url.searchParams.get("key");

/** `/api/runs/RUN/events`: a page of events after `after`, or, for an EventSource, the live stream (resuming at Last-Event-ID). */
function eventsRoute(state: StateSource, hub: LiveHub): Handler {
  return (ctx) => {
    const { reader, id } = runOf(state, ctx);
    let after = intParam(ctx.url, "after", 0, 0, Number.MAX_SAFE_INTEGER);
    if ((ctx.req.headers.accept ?? "").includes("text/event-stream")) {
      const last = Number(ctx.req.headers["last-event-id"]);
      if (Number.isInteger(last) && last > after) after = last;
      hub.followRun(ctx.res, id, after);
      return;
    }
    const events = reader.eventsAfter(id, after, intParam(ctx.url, "limit", 1000, 1, 10000));
    sendJson(ctx.res, { run: id, events, last_seq: events.length ? events[events.length - 1]!.seq : after });
  };
}

/** `/api/runs/RUN/cells/TASK?key=K`: one instance, with the files of each attempt that left any, newest first. */
function cellRoute(state: StateSource): Handler {
  return (ctx) => {
    const { reader, id } = runOf(state, ctx);
    const cell = reader.cell(id, ctx.params[1]!, keyParam(ctx));
    if (!cell) throw notFound(`run ${id} has no instance ${ctx.params[1]}${keyParam(ctx) === null ? "" : `[${keyParam(ctx)}]`}`);
    reader.addDetails(cell);
    const dir = reader.store.runDir(id);
    for (let a = cell.attempts; a >= 1; a--) {
      const f = attemptFiles(dir, cell.task, cell.key, a);
      // Decisions and evaluates leave no files: show only attempts that left something.
      if (f.input !== null || f.log_tail !== null || f.prompt !== null || f.files.length > 0) cell.attempt_files.push(f);
    }
    sendJson(ctx.res, cell);
  };
}

/** `/api/runs/RUN/cells/TASK/file?path=P`: a file of an attempt's workspace, as JSON or (format=text) as sandboxed plain text. */
function workspaceFileRoute(state: StateSource): Handler {
  return (ctx) => {
    const { reader, id } = runOf(state, ctx);
    const key = keyParam(ctx);
    const cell = reader.cell(id, ctx.params[1]!, key);
    if (!cell) throw notFound(`run ${id} has no instance ${ctx.params[1]}`);
    const attempt = intParam(ctx.url, "attempt", cell.attempts, 1, Math.max(1, cell.attempts));
    const f = workspaceFile(reader.store.runDir(id), cell.task, key, attempt, ctx.url.searchParams.get("path") ?? "");
    if (!f) throw notFound("no such file in the attempt's workspace (links are not followed)");
    if (ctx.url.searchParams.get("format") === "text") {
      // For people (the cell page links here): the bytes as plain text, in a sandbox.
      send(
        ctx.res,
        200,
        "text/plain; charset=utf-8",
        f.text + (f.truncated ? `\n… (${f.bytes} bytes; the first ${f.text.length} shown)\n` : ""),
        { "content-security-policy": "sandbox; default-src 'none'" },
      );
      return;
    }
    sendJson(ctx.res, { path: ctx.url.searchParams.get("path"), bytes: f.bytes, truncated: f.truncated, text: f.text });
  };
}

/** `/labs/LAB`: the lab's harvest report as a self-contained HTML page. */
function labReportRoute(stateDir: string): Handler {
  return async ({ res, params }) => {
    const lab = listLabs(stateDir).find((l) => l.id === params[0]);
    if (!lab) throw notFound(`no lab ${params[0]} in ${stateDir}`);
    const file = pairsPath(stateDir, lab.id);
    if (!existsSync(file)) throw notFound(`lab ${lab.id} has no pairs yet`);
    // The lab folder's calibration.json, as `lab harvest` reads it: a broken one is a warning here.
    const known = readCalibrations(defaultCalibrationFile(file), lab.id, false);
    const report = await harvest(file, { target: 0.95, lab: lab.id, calibrations: "error" in known ? {} : known.calibrations });
    if ("error" in known) report.warnings.push(known.error);
    const html = renderHtml(report, (run, task, key) => `/${runHash(run, { task, key })}`);
    send(res, 200, "text/html; charset=utf-8", html, { "content-security-policy": "default-src 'none'; style-src 'unsafe-inline'" });
  };
}

/** Every route of the web view: a path pattern (over the decoded segments joined by "/") and its handler. */
function routeTable(state: StateSource, hub: LiveHub, writable: boolean): Array<[RegExp, Handler]> {
  const stateDir = state.dir;
  return [
    [/^$/, ({ res }) => send(res, 200, "text/html; charset=utf-8", servedPage(), { "content-security-policy": SERVED_CSP })],
    [/^assets\/app\.js$/, ({ res }) => send(res, 200, "text/javascript; charset=utf-8", loadAssets().js)],
    [/^assets\/app\.css$/, ({ res }) => send(res, 200, "text/css; charset=utf-8", loadAssets().css)],
    [
      /^api\/runs$/,
      ({ res, url }) => {
        const status = url.searchParams.get("status");
        const playbook = url.searchParams.get("playbook");
        const runs = (state.get()?.runs() ?? []).filter((r) => (!status || r.status === status) && (!playbook || r.playbook === playbook));
        sendJson(res, { runs });
      },
    ],
    [/^api\/stream$/, ({ res }) => hub.followRuns(res)],
    [
      /^api\/runs\/([^/]+)$/,
      (ctx) => {
        const { reader, id } = runOf(state, ctx);
        sendJson(ctx.res, reader.runDoc(id));
      },
    ],
    [
      /^api\/runs\/([^/]+)\/grid$/,
      (ctx) => {
        const { reader, id } = runOf(state, ctx);
        sendJson(ctx.res, reader.grid(id));
      },
    ],
    [
      /^api\/runs\/([^/]+)\/instances$/,
      (ctx) => {
        const { reader, id } = runOf(state, ctx);
        const u = ctx.url.searchParams;
        const page = reader.instances(id, {
          task: u.get("task") ?? undefined,
          status: u.get("status") ?? undefined,
          key: u.get("key") ?? undefined,
          offset: intParam(ctx.url, "offset", 0, 0, Number.MAX_SAFE_INTEGER),
          limit: intParam(ctx.url, "limit", 500, 1, 5000),
        });
        sendJson(ctx.res, page);
      },
    ],
    [/^api\/runs\/([^/]+)\/events$/, eventsRoute(state, hub)],
    [/^api\/runs\/([^/]+)\/cells\/([^/]+)$/, cellRoute(state)],
    [/^api\/runs\/([^/]+)\/cells\/([^/]+)\/file$/, workspaceFileRoute(state)],
    [
      /^api\/labs$/,
      ({ res }) => {
        const labs: LabItem[] = listLabs(stateDir).map((l) => ({
          id: l.id,
          created: l.created,
          note: l.note,
          current: l.current,
          pairs_bytes: l.pairs_bytes,
        }));
        sendJson(res, { labs });
      },
    ],
    [/^labs\/([^/]+)$/, labReportRoute(stateDir)],
    [
      /^api\/review$/,
      ({ res }) => {
        const store = state.get()?.store;
        const doc: ReviewQueueDoc = { elements: store ? reviewQueue(store) : [], writable };
        sendJson(res, doc);
      },
    ],
  ];
}

/** The routes that write (POST), each checked by checkWrite before it runs: answering an element's review questions. */
function writeTable(state: StateSource): Array<[RegExp, Handler]> {
  return [
    [
      /^api\/runs\/([^/]+)\/review$/,
      async (ctx) => {
        const body = await readJsonBody(ctx.req);
        const { reader, id } = runOf(state, ctx);
        sendJson(ctx.res, answerElement(reader.store, id, body));
      },
    ],
  ];
}

/** The routes a request's method may reach: the read table for GET/HEAD, the write table for POST; 405 for any other. */
interface Routes {
  read: Array<[RegExp, Handler]>;
  write: Array<[RegExp, Handler]>;
}

/** Runs the first route whose pattern matches the path (a POST checked by checkWrite first); false when none does. */
async function dispatchRoute(routes: Routes, ctx: Omit<Ctx, "params">, path: string, access: WriteAccess | undefined): Promise<boolean> {
  const post = ctx.req.method === "POST";
  for (const [pattern, handler] of post ? routes.write : routes.read) {
    const m = pattern.exec(path);
    if (!m) continue;
    if (post) checkWrite(ctx.req, access);
    await handler({ ...ctx, params: m.slice(1) });
    return true;
  }
  if (post) throw new HttpError("ui-read-only", `nothing at /${path} takes a write: only answers to review questions do`, { status: 405 });
  return false;
}

/** Answers a refused request, or a bug (whose trace goes to the terminal, never the page), as JSON. */
function sendError(res: ServerResponse, err: unknown): void {
  if (res.headersSent) {
    res.end();
    return;
  }
  if (err instanceof HttpError) {
    sendJson(res, { error: { code: err.code, message: err.message, ...(err.hint !== undefined ? { hint: err.hint } : {}) } }, err.status);
    return;
  }
  process.stderr.write(`switchyard ui: ${err instanceof Error ? (err.stack ?? err.message) : String(err)}\n`);
  sendJson(res, { error: { code: "ui-server-error", message: "the server failed; its terminal shows why" } }, 500);
}

/**
 * Answers one request: refuses a foreign Host on loopback (DNS rebinding) and any method but
 * GET/HEAD and the POSTs of the write table, decodes the path safely, runs the first matching
 * route, and turns errors into JSON.
 */
function requestHandler(
  host: string,
  routes: Routes,
  access: WriteAccess | undefined,
): (req: IncomingMessage, res: ServerResponse) => Promise<void> {
  return async (req, res) => {
    try {
      if (LOOPBACK.has(host)) {
        const asked = (req.headers.host ?? "").replace(/:\d+$/, "");
        if (!LOOPBACK.has(asked)) throw new HttpError("ui-wrong-host", `this server answers to ${host} only`, { status: 421 });
      }
      if (req.method !== "GET" && req.method !== "HEAD" && req.method !== "POST")
        throw new HttpError("ui-read-only", "the web view takes GET and HEAD, and POST for answers to review questions only", {
          status: 405,
        });
      const raw = req.url ?? "/";
      const q = raw.indexOf("?");
      const segs = pathSegments(q < 0 ? raw : raw.slice(0, q));
      const url = new URL(raw, "http://ui.invalid");
      const path = segs.join("/");
      if (!(await dispatchRoute(routes, { req, res, url }, path, access))) throw notFound(`nothing at /${path}`);
    } catch (err) {
      sendError(res, err);
    }
  };
}

/** The web view's HTTP server over a state folder (not yet listening), and how to close it with its live streams and store. */
export function createUiServer(opts: UiServerOptions): { server: Server; close: () => Promise<void> } {
  const state = new StateSource(opts.stateDir, opts.store);
  const hub = new LiveHub(() => state.get());
  const routes = { read: routeTable(state, hub, opts.writes !== undefined), write: writeTable(state) };
  const handle = requestHandler(opts.host, routes, opts.writes);
  const server = createServer((req, res) => void handle(req, res));
  return {
    server,
    close: () =>
      new Promise<void>((done) => {
        hub.close();
        server.closeAllConnections();
        server.close(() => {
          state.close();
          done();
        });
      }),
  };
}
