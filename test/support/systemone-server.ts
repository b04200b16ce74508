// A System One test server (research/systemone.md): `POST /v1/systemone` on 127.0.0.1, answering
// from scripted rules (scripted-answers.ts) or a function, recording every request, misbehaving on
// demand (scripted-server.ts: enqueue(Misbehave.status(429, {retryAfter: "1"})), .html(),
// .invalidJson(), .truncate(), .hang(), .reset()).
//
// In tests:
//   const s = await startSystemOneServer({ table?, answer?, latencyMs? });
//   s.url, s.requests, s.count("/v1/systemone"), s.enqueue(...), s.table = {...}, await s.close()
//   answer(request) may return a Reply (sent as is) or undefined (the table answers).
// Standalone (benchmarks, end-to-end tests):
//   node dist/test/support/systemone-server.js [--port N] [--answer-from FILE.json] [--latency-ms N]
//   prints "listening http://127.0.0.1:PORT" on stdout; stops on SIGTERM/SIGINT.
// Malformed requests get 422 with a FastAPI-style {"detail": [...]} like the real API.

import { readFileSync } from "node:fs";
import { pathToFileURL } from "node:url";
import { cliFlags, startScriptedServer, type Reply, type ScriptedServer } from "./scripted-server.js";
import { argmax, distributionFor, findAnswer, stateTextOf, type AnswerTable } from "./scripted-answers.js";

export const SYSTEMONE_PATH = "/v1/systemone";

export interface WireQuestion {
  type: string;
  instructions?: unknown;
  criteria?: unknown;
}

export interface SystemOneServerOptions {
  table?: AnswerTable;
  answer?: (request: {
    state: unknown;
    model?: string;
    questions: Record<string, WireQuestion>;
  }) => Reply | undefined | Promise<Reply | undefined>;
  latencyMs?: number;
  port?: number;
}

export interface SystemOneServer extends ScriptedServer {
  table: AnswerTable | undefined;
}

/** The labels a wire question asks about (score: the "label: …" prefix of each level, else its index). */
export function wireLabels(q: WireQuestion): string[] {
  if (q.type === "noul") return ["yes", "no"];
  if (q.type === "choice" && q.criteria && typeof q.criteria === "object") return Object.keys(q.criteria);
  if (q.type === "score" && Array.isArray(q.criteria)) {
    return q.criteria.map((c, i) => {
      const m = typeof c === "string" ? /^([A-Za-z_][A-Za-z0-9_]*)(:|$)/.exec(c) : null;
      return m ? m[1]! : String(i);
    });
  }
  return [];
}

function answerFor(id: string, q: WireQuestion, stateText: string, table: AnswerTable | undefined): unknown {
  const ask = typeof q.instructions === "string" ? q.instructions : JSON.stringify(q.instructions ?? "");
  const spec = findAnswer(table, stateText, id, ask);
  if (spec && "refusal" in spec) return { type: "refusal" };
  if (spec && "raw" in spec) return spec.raw;
  const labels = wireLabels(q);
  const dist = distributionFor(spec, labels);
  if (q.type === "noul") return { type: "noul", noul: dist.yes };
  if (q.type === "choice") {
    const choice = argmax(dist);
    return { type: "choice", choice, probabilities: dist, confidence: dist[choice] };
  }
  const probabilities: Record<string, number> = {};
  const legend: Record<string, unknown> = {};
  let score = 0;
  labels.forEach((l, i) => {
    probabilities[String(i)] = dist[l] ?? 0;
    legend[String(i)] = Array.isArray(q.criteria) ? q.criteria[i] : l;
    score += i * (dist[l] ?? 0);
  });
  return { type: "score", score, legend, probabilities, confidence: Math.max(...Object.values(probabilities)) };
}

/**
 * A machine config's `[providers.s1]` table for a server at `url` (a System One provider of vendor
 * "typesafe"), its key read from `keyEnv`; `settings` are further lines of the table (models, …).
 */
export function systemOneProviderToml(url: string, keyEnv: string, settings: string): string {
  return `[providers.s1]\nkind = "systemone"\nvendor = "typesafe"\nbase_url = "${url}"\napi_key_env = "${keyEnv}"\n${settings}\n`;
}

export async function startSystemOneServer(opts: SystemOneServerOptions = {}): Promise<SystemOneServer> {
  const holder: { table: AnswerTable | undefined } = { table: opts.table };
  const base = await startScriptedServer({
    port: opts.port,
    latencyMs: opts.latencyMs,
    routes: {
      [SYSTEMONE_PATH]: async (body) => {
        const b = body as { state?: unknown; model?: string; questions?: Record<string, WireQuestion> } | undefined;
        if (!b || typeof b !== "object")
          return { status: 422, json: { detail: [{ type: "json_invalid", loc: ["body"], msg: "JSON object expected" }] } };
        if (b.state === undefined)
          return { status: 422, json: { detail: [{ type: "missing", loc: ["body", "state"], msg: "Field required" }] } };
        if (!b.questions || typeof b.questions !== "object" || Object.keys(b.questions).length === 0) {
          return {
            status: 422,
            json: {
              detail: [
                { type: "too_short", loc: ["body", "questions"], msg: "Dictionary should have at least 1 item after validation, not 0" },
              ],
            },
          };
        }
        const custom = opts.answer ? await opts.answer({ state: b.state, model: b.model, questions: b.questions }) : undefined;
        if (custom) return custom;
        const stateText = stateTextOf(b.state);
        const answers: Record<string, unknown> = {};
        for (const [id, q] of Object.entries(b.questions)) answers[id] = answerFor(id, q, stateText, holder.table);
        return {
          json: { model: b.model ?? "scripted-1", answers, usage: { input_tokens: Math.ceil(stateText.length / 4), output_tokens: 1 } },
        };
      },
    },
  });
  Object.defineProperty(base, "table", {
    get: () => holder.table,
    set: (t: AnswerTable | undefined) => (holder.table = t),
    enumerable: true,
  });
  return base as SystemOneServer;
}

async function main(): Promise<void> {
  const flags = cliFlags(process.argv.slice(2));
  const table = flags["answer-from"] ? (JSON.parse(readFileSync(flags["answer-from"], "utf8")) as AnswerTable) : undefined;
  const s = await startSystemOneServer({
    table,
    port: flags.port ? Number(flags.port) : 0,
    latencyMs: flags["latency-ms"] ? Number(flags["latency-ms"]) : undefined,
  });
  process.stdout.write(`listening ${s.url}\n`);
  const stop = () => void s.close().then(() => process.exit(0));
  process.on("SIGTERM", stop);
  process.on("SIGINT", stop);
}

if (process.argv[1] && import.meta.url === pathToFileURL(process.argv[1]).href) void main();
