// An OpenAI-shaped test server (research/openai-decisions.md): `POST /v1/decisions` (the
// Decisions API: answers in question order, by name, per-question refusals) and
// `POST /v1/chat/completions` with `logprobs`/`top_logprobs` (the first token's alternatives are
// the labels, log-probabilities from the scripted distribution), on 127.0.0.1. Answers come from
// scripted rules (scripted-answers.ts) or functions; every request is recorded; misbehaviour on
// demand through enqueue() (scripted-server.ts: Misbehave.status(503, {retryAfter: "1"}), .html(),
// .invalidJson(), .truncate(), .hang(), .reset()).
//
// In tests:
//   const s = await startDecisionsServer({ table?, decide?, chat?, latencyMs? });
//   s.url (pass as base_url; the provider appends /v1/...), s.requests, s.count("/v1/decisions"),
//   s.count("/v1/chat/completions"), s.enqueue(...), s.table = {...}, await s.close()
//   decide(body) / chat(body) may return a Reply (sent as is) or undefined (the table answers).
// Chat completions know the labels from the prompt's "Labels:" list ("- label" or "- label: text"
// lines, the format of src/decide/providers/openai.ts) and the question from its "Question:" line;
// rules match them by `match` (the whole prompt) and `ask`, never by `question` (the id is not sent).
// Standalone:
//   node dist/test/support/decisions-server.js [--port N] [--answer-from FILE.json] [--latency-ms N]
//   prints "listening http://127.0.0.1:PORT"; stops on SIGTERM/SIGINT.

import { readFileSync } from "node:fs";
import { pathToFileURL } from "node:url";
import { cliFlags, startScriptedServer, type Reply, type ScriptedServer } from "./scripted-server.js";
import { argmax, distributionFor, findAnswer, stateTextOf, type AnswerTable } from "./scripted-answers.js";

export const DECISIONS_PATH = "/v1/decisions";
export const CHAT_PATH = "/v1/chat/completions";

export interface DecisionsWireQuestion {
  type: string;
  name?: string;
  instructions?: unknown;
  choices?: { value: string | boolean; description?: string }[];
  levels?: { label: string; description?: string }[];
}

export interface DecisionsServerOptions {
  table?: AnswerTable;
  decide?: (body: { model: string; input: unknown; questions: DecisionsWireQuestion[] }) => Reply | undefined | Promise<Reply | undefined>;
  chat?: (body: Record<string, unknown>) => Reply | undefined | Promise<Reply | undefined>;
  latencyMs?: number;
  port?: number;
}

export interface DecisionsServer extends ScriptedServer {
  table: AnswerTable | undefined;
}

function labelsOf(q: DecisionsWireQuestion): string[] {
  if (q.type === "predicate") return ["yes", "no"];
  if (q.type === "choice") return (q.choices ?? []).map((c) => String(c.value));
  if (q.type === "score") return (q.levels ?? []).map((l) => l.label);
  return [];
}

function decisionAnswer(q: DecisionsWireQuestion, stateText: string, table: AnswerTable | undefined): unknown {
  const name = q.name ?? null;
  const ask = typeof q.instructions === "string" ? q.instructions : JSON.stringify(q.instructions ?? "");
  const spec = findAnswer(table, stateText, q.name, ask);
  if (spec && "refusal" in spec) return { type: "refusal", name };
  if (spec && "raw" in spec) return spec.raw;
  const labels = labelsOf(q);
  const dist = distributionFor(spec, labels);
  if (q.type === "predicate") return { type: "predicate", name, probability: dist.yes };
  const best = argmax(dist);
  if (q.type === "choice") {
    return {
      type: "choice",
      name,
      choice: best,
      confidence: dist[best],
      probabilities: labels.map((value) => ({ value, probability: dist[value] ?? 0 })),
    };
  }
  let score = 0;
  labels.forEach((l, i) => (score += i * (dist[l] ?? 0)));
  return {
    type: "score",
    name,
    score,
    confidence: dist[best],
    probabilities: labels.map((label, value) => ({ value, label, probability: dist[label] ?? 0 })),
  };
}

/** The labels and question of one of our logprob prompts. */
export function parseLogprobPrompt(prompt: string): { labels: string[]; ask: string } {
  const ask = /^Question: (.*)$/m.exec(prompt)?.[1] ?? "";
  const labels: string[] = [];
  const at = prompt.indexOf("\nLabels:\n");
  if (at >= 0) {
    for (const line of prompt.slice(at + "\nLabels:\n".length).split("\n")) {
      const m = /^- ([A-Za-z_][A-Za-z0-9_]*)(:|$)/.exec(line);
      if (!m) break;
      labels.push(m[1]!);
    }
  }
  return { labels, ask };
}

function chatCompletion(body: Record<string, unknown>, table: AnswerTable | undefined): Reply {
  const messages = Array.isArray(body.messages) ? (body.messages as { content?: unknown }[]) : [];
  const prompt = messages.map((m) => (typeof m.content === "string" ? m.content : JSON.stringify(m.content))).join("\n");
  const { labels, ask } = parseLogprobPrompt(prompt);
  const spec = findAnswer(table, prompt, undefined, ask);
  const base = { id: "chatcmpl-scripted", object: "chat.completion", created: 0, model: body.model };
  const usage = { prompt_tokens: Math.ceil(prompt.length / 4), completion_tokens: 1, total_tokens: Math.ceil(prompt.length / 4) + 1 };
  if (spec && "refusal" in spec) {
    return {
      json: {
        ...base,
        usage,
        choices: [
          {
            index: 0,
            finish_reason: "stop",
            message: { role: "assistant", content: null, refusal: "I can't help with that." },
            logprobs: null,
          },
        ],
      },
    };
  }
  let top: unknown;
  let content: string;
  if (spec && "raw" in spec) {
    top = spec.raw;
    content = Array.isArray(spec.raw) && spec.raw[0] && typeof spec.raw[0].token === "string" ? spec.raw[0].token : "";
  } else {
    const dist = distributionFor(spec, labels);
    const entries = Object.entries(dist)
      .filter(([, p]) => p > 0)
      .sort((a, b) => b[1] - a[1])
      .slice(0, Number(body.top_logprobs ?? 20) || 20);
    top = entries.map(([token, p]) => ({ token, logprob: Math.log(p), bytes: null }));
    content = entries[0]?.[0] ?? "";
  }
  const logprobs = body.logprobs === true ? { content: [{ token: content, logprob: 0, bytes: null, top_logprobs: top }] } : null;
  return {
    json: {
      ...base,
      usage,
      choices: [{ index: 0, finish_reason: "length", message: { role: "assistant", content, refusal: null }, logprobs }],
    },
  };
}

export async function startDecisionsServer(opts: DecisionsServerOptions = {}): Promise<DecisionsServer> {
  const holder: { table: AnswerTable | undefined } = { table: opts.table };
  const base = await startScriptedServer({
    port: opts.port,
    latencyMs: opts.latencyMs,
    routes: {
      [DECISIONS_PATH]: async (body) => {
        const b = body as { model?: string; input?: unknown; questions?: DecisionsWireQuestion[] } | undefined;
        const invalid = (message: string, param: string | null): Reply => ({
          status: 400,
          json: { error: { message, type: "invalid_request_error", param, code: null } },
        });
        if (!b || typeof b !== "object") return invalid("The request body must be a JSON object.", null);
        if (typeof b.model !== "string") return invalid("Missing required parameter: 'model'.", "model");
        if (b.input === undefined) return invalid("Missing required parameter: 'input'.", "input");
        if (!Array.isArray(b.questions) || b.questions.length === 0) return invalid("Ask 1–400 questions.", "questions");
        const names = new Set<string>();
        for (const [i, q] of b.questions.entries()) {
          if (q.name !== undefined) {
            if (names.has(q.name)) return invalid("Question names must be unique within the request.", `questions[${i}].name`);
            names.add(q.name);
          }
        }
        const custom = opts.decide ? await opts.decide({ model: b.model, input: b.input, questions: b.questions }) : undefined;
        if (custom) return custom;
        const stateText = stateTextOf(b.input);
        const answers = b.questions.map((q) => decisionAnswer(q, stateText, holder.table));
        const tokens = Math.ceil(stateText.length / 4);
        return {
          json: {
            model: b.model,
            answers,
            usage: {
              input_tokens: tokens,
              input_tokens_details: { cached_tokens: 0, cache_write_tokens: 0 },
              output_tokens: 0,
              output_tokens_details: { reasoning_tokens: 0 },
              total_tokens: tokens,
            },
          },
        };
      },
      [CHAT_PATH]: async (body) => {
        const b = (body ?? {}) as Record<string, unknown>;
        if (typeof b.model !== "string" || !Array.isArray(b.messages)) {
          return {
            status: 400,
            json: { error: { message: "'model' and 'messages' are required.", type: "invalid_request_error", param: null, code: null } },
          };
        }
        const custom = opts.chat ? await opts.chat(b) : undefined;
        return custom ?? chatCompletion(b, holder.table);
      },
    },
  });
  Object.defineProperty(base, "table", {
    get: () => holder.table,
    set: (t: AnswerTable | undefined) => (holder.table = t),
    enumerable: true,
  });
  return base as DecisionsServer;
}

async function main(): Promise<void> {
  const flags = cliFlags(process.argv.slice(2));
  const table = flags["answer-from"] ? (JSON.parse(readFileSync(flags["answer-from"], "utf8")) as AnswerTable) : undefined;
  const s = await startDecisionsServer({
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
