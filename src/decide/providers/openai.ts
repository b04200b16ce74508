// The `openai` provider (D-21): OpenAI's Decisions API (`POST {base_url}/v1/decisions`) through the
// official `openai` package (its generic `client.post`, as `client.decisions.create` does); models listed in `logprob_models` are asked
// through Chat Completions instead, each label scored by its first token's log-probability (see
// docs/providers.md for the method and its limits) — which also serves OpenAI-compatible local
// servers (vLLM, llama.cpp, Ollama). The SDK does the timeouts and retries (honouring retry-after
// and retry-after-ms); src/decide/http.ts makes it follow our retry rule and read the key late.
// The package is loaded on the first call only: it takes ~150 ms to import, which a run whose
// decisions all stay with the host should not pay.

import type OpenAI from "openai";
import type { ResolvedQuestion, Usage } from "../../run/kinds/index.js";
import { noulDistribution } from "../answer.js";
import type { ProviderConfig } from "../config-types.js";
import { KEY_PLACEHOLDER, readApiKey, redact } from "../provider-key.js";
import { apiRoot, providerFetch } from "../http.js";
import { attempts, isRetryableStatus } from "../retry-policy.js";
import { describeConnectionCause, describeStatusBody, excerpt, parseJsonBody } from "../http-wording.js";
import { ProviderError, type Provider, type ProviderRequest, type ProviderResponse, type RawAnswer } from "../provider.js";
import { isRecord, shape } from "../json-shape.js";

/** How many alternatives the logprob path asks for: the most the OpenAI API allows. */
const TOP_LOGPROBS = 20;

type DecisionQuestion =
  | { type: "predicate"; name: string; instructions: string }
  | { type: "choice"; name: string; instructions: string; choices: { value: string; description?: string }[] }
  | { type: "score"; name: string; instructions: string; levels: { label: string; description?: string }[] };

function described(text: string | undefined): string | undefined {
  return text && text.trim() !== "" ? text : undefined;
}

/** One question in the Decisions wire shape. A predicate has no outcome descriptions: they are
 * appended to its instructions. */
function decisionQuestion(q: ResolvedQuestion): DecisionQuestion {
  switch (q.kind) {
    case "noul": {
      const lines = [q.ask];
      const yes = described(q.descriptions.yes);
      const no = described(q.descriptions.no);
      if (yes) lines.push(`True means: ${yes}`);
      if (no) lines.push(`False means: ${no}`);
      return { type: "predicate", name: q.id, instructions: lines.join("\n") };
    }
    case "choice":
      return {
        type: "choice",
        name: q.id,
        instructions: q.ask,
        choices: q.labels.map((value) => {
          const description = described(q.descriptions[value]);
          return description ? { value, description } : { value };
        }),
      };
    case "score":
      return {
        type: "score",
        name: q.id,
        instructions: q.ask,
        levels: q.labels.map((label) => {
          const description = described(q.descriptions[label]);
          return description ? { label, description } : { label };
        }),
      };
  }
}

function wireInput(state: unknown, stateText: string): string {
  return typeof state === "string" ? state : stateText;
}

const DECISION_TYPE: Record<ResolvedQuestion["kind"], string> = { noul: "predicate", choice: "choice", score: "score" };

/** Maps one Decisions answer onto the question's labels. */
export function decisionAnswer(q: ResolvedQuestion, answer: unknown, what: string): RawAnswer {
  const at = `${what}: the answer to '${q.id}' (${q.kind})`;
  if (!isRecord(answer)) throw new ProviderError("decision-failed", `${at} is ${shape(answer)}, not an object`);
  if (answer.type === "refusal") return { refused: true };
  const expected = DECISION_TYPE[q.kind];
  if (answer.type !== expected)
    throw new ProviderError("decision-failed", `${at} has type ${JSON.stringify(answer.type)}, expected "${expected}"`);
  if (q.kind === "noul") {
    if (!("probability" in answer)) throw new ProviderError("decision-failed", `${at} has no 'probability'`);
    return { probabilities: noulDistribution(answer.probability) };
  }
  const list = answer.probabilities;
  if (list === undefined || list === null) throw new ProviderError("decision-failed", `${at} has no probabilities`);
  if (!Array.isArray(list)) throw new ProviderError("decision-failed", `${at} has probabilities that are ${shape(list)}, not a list`);
  const out: Record<string, number> = {};
  list.forEach((entry, i) => {
    if (!isRecord(entry)) throw new ProviderError("decision-failed", `${at}: probabilities[${i}] is ${shape(entry)}, not an object`);
    let label: string | undefined;
    if (q.kind === "choice") {
      if (typeof entry.value !== "string" || !q.labels.includes(entry.value)) {
        throw new ProviderError(
          "decision-failed",
          `${at} gives a probability for ${JSON.stringify(entry.value)}, a value not asked about (choices: ${q.labels.join(", ")})`,
        );
      }
      label = entry.value;
    } else {
      if (typeof entry.value === "number" && Number.isInteger(entry.value) && entry.value >= 0 && entry.value < q.labels.length) {
        label = q.labels[entry.value];
      } else if (entry.value === undefined && typeof entry.label === "string" && q.labels.includes(entry.label)) {
        label = entry.label;
      } else {
        throw new ProviderError(
          "decision-failed",
          `${at} gives a probability for level ${JSON.stringify(entry.value ?? entry.label)}, a level not asked about (levels 0–${q.labels.length - 1}: ${q.labels.join(", ")})`,
        );
      }
    }
    out[label!] = entry.probability as number;
  });
  return { probabilities: out };
}

/** Checks a parsed Decisions response; answers are matched by name, else by position. */
function parseDecisionResponse(
  body: unknown,
  questions: ResolvedQuestion[],
  what: string,
): { answers: Record<string, RawAnswer>; usage: Usage | null } {
  if (!isRecord(body)) throw new ProviderError("decision-failed", `${what} is ${shape(body)}, not a Decisions response object`);
  const list = body.answers;
  if (list === undefined) throw new ProviderError("decision-failed", `${what} has no 'answers'`);
  if (!Array.isArray(list)) throw new ProviderError("decision-failed", `${what} has 'answers' that is ${shape(list)}, not a list`);
  const out: Record<string, RawAnswer> = {};
  questions.forEach((q, i) => {
    let answer: unknown = list.find((a) => isRecord(a) && a.name === q.id);
    const byPlace: unknown = list[i];
    if (answer === undefined && isRecord(byPlace) && byPlace.name == null) answer = byPlace;
    if (answer === undefined) {
      const names = list.map((a) => (isRecord(a) ? String(a.name) : "?"));
      throw new ProviderError(
        "decision-failed",
        `${what} has no answer for question '${q.id}' (answers: ${names.length > 0 ? names.join(", ") : "none"})`,
      );
    }
    out[q.id] = decisionAnswer(q, answer, what);
  });
  let usage: Usage | null = null;
  if (isRecord(body.usage)) {
    usage = {};
    if (typeof body.usage.input_tokens === "number") usage.input_tokens = body.usage.input_tokens;
    if (typeof body.usage.output_tokens === "number") usage.output_tokens = body.usage.output_tokens;
  }
  return { answers: out, usage };
}

/** The prompt of the logprob path: the labels listed, exactly one asked for. */
export function logprobPrompt(q: ResolvedQuestion, stateText: string): { system: string; user: string } {
  const labels = q.labels.map((l) => {
    const d = described(q.descriptions[l]);
    return d ? `- ${l}: ${d}` : `- ${l}`;
  });
  return {
    system: "You answer one question about a state with exactly one label from the list given. Reply with the label only.",
    user: `State:\n${stateText}\n\nQuestion: ${q.ask}\n\nLabels:\n${labels.join("\n")}\n\nAnswer with exactly one label from the list, and nothing else.`,
  };
}

function normaliseToken(token: string): string {
  return token.replace(/^[\sĠ▁]+/u, "").toLowerCase();
}

/**
 * Each label's probability from the first generated token's top log-probabilities: a token counts
 * for every label it begins (or that it is, followed by punctuation); a token shared by several
 * labels is split equally among them; the masses are renormalised over the labels. Labels no top
 * token begins get 0. Returns undefined when no top token begins any label.
 */
export function labelProbabilitiesFromLogprobs(
  labels: string[],
  top: { token: string; logprob: number }[],
): Record<string, number> | undefined {
  const mass: Record<string, number> = {};
  for (const l of labels) mass[l] = 0;
  let total = 0;
  for (const { token, logprob } of top) {
    const t = normaliseToken(token);
    if (t === "") continue;
    const matches = labels.filter((l) => {
      const ll = l.toLowerCase();
      return ll.startsWith(t) || (t.startsWith(ll) && !/[a-z0-9_]/.test(t.charAt(ll.length)));
    });
    if (matches.length === 0) continue;
    const p = Math.exp(logprob);
    for (const l of matches) mass[l]! += p / matches.length;
    total += p;
  }
  if (total <= 0) return undefined;
  for (const l of labels) mass[l] = mass[l]! / total;
  return mass;
}

/** Reads the first token's top log-probabilities (and a refusal) from a chat completion. */
function parseLogprobCompletion(q: ResolvedQuestion, body: unknown, what: string): RawAnswer {
  const at = `${what}: the completion for '${q.id}' (${q.kind})`;
  if (!isRecord(body)) throw new ProviderError("decision-failed", `${at} is ${shape(body)}, not a chat completion object`);
  const choices = body.choices;
  if (!Array.isArray(choices) || choices.length === 0) throw new ProviderError("decision-failed", `${at} has no choices`);
  const choice = choices[0];
  if (!isRecord(choice)) throw new ProviderError("decision-failed", `${at}: choices[0] is ${shape(choice)}`);
  const message = isRecord(choice.message) ? choice.message : {};
  if (typeof message.refusal === "string" && message.refusal !== "") return { refused: true };
  const logprobs = choice.logprobs;
  const content = isRecord(logprobs) ? logprobs.content : undefined;
  if (!Array.isArray(content) || content.length === 0) {
    throw new ProviderError(
      "decision-failed",
      `${at} carries no logprobs (does the server support logprobs and top_logprobs for this model?)`,
    );
  }
  const first = content[0];
  const top = isRecord(first) ? first.top_logprobs : undefined;
  if (!Array.isArray(top) || top.length === 0) throw new ProviderError("decision-failed", `${at} has no top_logprobs for its first token`);
  const entries = top.map((e, i) => {
    if (!isRecord(e) || typeof e.token !== "string") throw new ProviderError("decision-failed", `${at}: top_logprobs[${i}] has no token`);
    if (typeof e.logprob !== "number" || Number.isNaN(e.logprob) || e.logprob > 1e-6) {
      throw new ProviderError(
        "decision-failed",
        `${at}: top_logprobs[${i}] (token ${JSON.stringify(e.token)}) has logprob ${JSON.stringify(e.logprob)}, not a log-probability`,
      );
    }
    return { token: e.token, logprob: e.logprob };
  });
  const probabilities = labelProbabilitiesFromLogprobs(q.labels, entries);
  if (!probabilities) {
    const seen = entries
      .slice(0, 5)
      .map((e) => JSON.stringify(e.token))
      .join(", ");
    throw new ProviderError(
      "decision-failed",
      `${at}: none of the labels (${q.labels.join(", ")}) begins any of the top ${entries.length} first tokens (${seen}, …)`,
    );
  }
  return { probabilities };
}

let sdkModule: typeof import("openai") | undefined;
let keeping: typeof OpenAI | undefined;

/**
 * The client, keeping a non-2xx JSON body that is not OpenAI's `{"error": …}` envelope (a proxy's
 * or a local server's `{"detail": …}`) as the error's `error`, so the message can quote it: openai
 * 6 keeps only the envelope's member (openai 7 keeps either, but declares Node >= 22).
 */
function keepingErrorBodies(sdk: typeof import("openai")): typeof OpenAI {
  keeping ??= class extends sdk.OpenAI {
    protected override makeStatusError(status: number, error: object, message: string | undefined, headers: Headers) {
      const envelope = error && typeof error === "object" && !Array.isArray(error) && "error" in error ? error : error ? { error } : error;
      return super.makeStatusError(status, envelope, message, headers);
    }
  };
  return keeping;
}

/** A provider over the OpenAI API: /v1/decisions, or Chat Completions log-probabilities for the models listed in logprob_models. */
export class OpenAIProvider implements Provider {
  readonly name: string;
  private client: OpenAI | undefined;
  private readonly logprobModels: Set<string>;

  constructor(private readonly config: ProviderConfig) {
    this.name = config.name;
    this.logprobModels = new Set(config.logprob_models);
  }

  private async sdk(): Promise<OpenAI> {
    sdkModule ??= await import("openai");
    this.client ??= new (keepingErrorBodies(sdkModule))({
      apiKey: KEY_PLACEHOLDER,
      baseURL: `${apiRoot(this.config.base_url ?? "https://api.openai.com")}/v1`,
      organization: null,
      project: null,
      logLevel: "off",
      timeout: this.config.timeout_ms,
      maxRetries: this.config.max_retries,
      fetch: providerFetch(this.config),
    });
    return this.client;
  }

  async ask(request: ProviderRequest): Promise<ProviderResponse> {
    const key = readApiKey(this.config);
    const logprob = this.logprobModels.has(request.model);
    const who = `provider '${this.name}' (openai ${logprob ? "chat logprobs" : "decisions"}, model ${request.model})`;
    try {
      await this.sdk(); // loaded before the clock starts: its import is not the model's latency
    } catch (err) {
      throw this.failure(err, who, key);
    }
    const started = performance.now();
    try {
      const { answers, usage } = logprob ? await this.askLogprobs(request, who) : await this.askDecisions(request, who);
      return { answers, usage, latency_ms: Math.round(performance.now() - started) };
    } catch (err) {
      throw this.failure(err, who, key);
    }
  }

  private async askDecisions(request: ProviderRequest, who: string): Promise<{ answers: Record<string, RawAnswer>; usage: Usage | null }> {
    // The package's generic request method (its `decisions.create` is the same POST, but only
    // in openai 7, which declares Node >= 22: see package.json's engines).
    const response = await (
      await this.sdk()
    )
      .post("/decisions", {
        body: {
          model: request.model,
          input: wireInput(request.state, request.state_text),
          questions: request.questions.map(decisionQuestion),
        },
        signal: request.signal,
      })
      .asResponse();
    const body = parseJsonBody(await response.text(), `${who}: the HTTP 200 body`);
    return parseDecisionResponse(body, request.questions, `${who}: the response`);
  }

  private async askLogprobs(request: ProviderRequest, who: string): Promise<{ answers: Record<string, RawAnswer>; usage: Usage | null }> {
    const client = await this.sdk();
    const results = await Promise.all(
      request.questions.map(async (q) => {
        const prompt = logprobPrompt(q, request.state_text);
        const response = await client.chat.completions
          .create(
            {
              model: request.model,
              messages: [
                { role: "system", content: prompt.system },
                { role: "user", content: prompt.user },
              ],
              logprobs: true,
              top_logprobs: TOP_LOGPROBS,
              max_tokens: 1,
              temperature: 0,
            },
            { signal: request.signal },
          )
          .asResponse();
        const body = parseJsonBody(await response.text(), `${who}: the HTTP 200 body for '${q.id}'`);
        const raw = parseLogprobCompletion(q, body, `${who}: the response`);
        const u = isRecord(body) && isRecord(body.usage) ? body.usage : {};
        return { id: q.id, raw, input: Number(u.prompt_tokens) || 0, output: Number(u.completion_tokens) || 0 };
      }),
    );
    const answers: Record<string, RawAnswer> = {};
    let input = 0;
    let output = 0;
    for (const r of results) {
      answers[r.id] = r.raw;
      input += r.input;
      output += r.output;
    }
    return { answers, usage: { input_tokens: input, output_tokens: output } };
  }

  private failure(err: unknown, who: string, key: string | undefined): ProviderError {
    const tries = attempts(this.config);
    let message: string;
    let retryable = false;
    if (err instanceof ProviderError) return new ProviderError("decision-failed", redact(err.message, key), { retryable: err.retryable });
    if (!sdkModule)
      return new ProviderError(
        "decision-failed",
        redact(`${who}: the openai package could not be loaded: ${err instanceof Error ? err.message : String(err)}`, key),
      );
    const { APIConnectionError, APIConnectionTimeoutError, APIError, APIUserAbortError } = sdkModule;
    if (err instanceof APIUserAbortError) {
      message = `${who}: cancelled`;
    } else if (err instanceof APIConnectionTimeoutError) {
      message = `${who}: no complete response within ${this.config.timeout_ms} ms (timeout) after ${tries}`;
      retryable = true;
    } else if (err instanceof APIConnectionError) {
      message = `${who}: ${describeConnectionCause(err)} (${this.config.base_url ?? "api.openai.com"}) after ${tries}`;
      retryable = true;
    } else if (err instanceof APIError && typeof err.status === "number") {
      retryable = isRetryableStatus(err.status);
      // The SDK keeps an OpenAI envelope's `error` member, or a whole other JSON body.
      const e: unknown = err.error;
      const body =
        e === undefined
          ? err.message.replace(/^\d+\s*/, "").replace(/^status code \(no body\)$/, "")
          : typeof e === "object" && e !== null && "message" in e
            ? { error: e }
            : e;
      message = `${who}: ${describeStatusBody(err.status, body)}${retryable ? ` after ${tries}` : " (not retried)"}`;
    } else {
      message = `${who}: ${err instanceof Error ? excerpt(err.message, 200) : String(err)}`;
    }
    return new ProviderError("decision-failed", redact(message, key), { retryable });
  }
}
