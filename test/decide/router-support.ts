// In-process providers for router tests: real Provider implementations that answer from a
// script, count and keep every request, and can fail, refuse, hang or answer badly on demand.

import type { Provider, ProviderRequest, ProviderResponse, RawAnswer } from "../../src/decide/provider.js";
import { ProviderError } from "../../src/decide/provider.js";
import type { JudgementMode, MachineConfig, ProviderConfig } from "../../src/decide/config-types.js";
import type { JudgeRequest, ResolvedQuestion } from "../../src/run/kinds/judge.js";
import type { PairSink, ShadowPair } from "../../src/decide/pair.js";

export type Script = (req: ProviderRequest, n: number) => ProviderResponse | Promise<ProviderResponse>;

export class ScriptedProvider implements Provider {
  readonly requests: ProviderRequest[] = [];
  private started: Array<() => void> = [];
  constructor(
    readonly name: string,
    private readonly script: Script,
  ) {}
  async ask(req: ProviderRequest): Promise<ProviderResponse> {
    this.requests.push(req);
    for (const f of this.started.splice(0)) f();
    return this.script(req, this.requests.length);
  }
  /** Resolves once a request has arrived (immediately if one already has). */
  asked(): Promise<void> {
    if (this.requests.length > 0) return Promise.resolve();
    return new Promise((r) => this.started.push(r));
  }
}

/** Each question answered with `pick(q)` at probability p, the rest sharing 1 - p. */
export function answering(pick: (q: ResolvedQuestion) => string, p = 0.9, usage = { input_tokens: 100, output_tokens: 5 }): Script {
  return (req) => {
    const answers: Record<string, RawAnswer> = {};
    for (const q of req.questions) {
      const label = pick(q);
      const rest = (1 - p) / (q.labels.length - 1);
      answers[q.id] = { probabilities: Object.fromEntries(q.labels.map((l) => [l, l === label ? p : rest])) };
    }
    return { answers, usage, latency_ms: 7 };
  };
}

/** The host: exactly one label per question at probability 1 (D-20). */
export function hostAnswering(pick: (q: ResolvedQuestion) => string): Script {
  return (req) => {
    const answers: Record<string, RawAnswer> = {};
    for (const q of req.questions) {
      const label = pick(q);
      answers[q.id] = { probabilities: Object.fromEntries(q.labels.map((l) => [l, l === label ? 1 : 0])) };
    }
    return { answers, usage: null, latency_ms: 3 };
  };
}

export const failing =
  (message = "HTTP 500 after 3 retries"): Script =>
  () => {
    throw new ProviderError("decision-failed", message, { retryable: true });
  };

export function noul(id: string, type: string, min_confidence = 0): ResolvedQuestion {
  return { id, kind: "noul", ask: `Is it ${id}?`, labels: ["yes", "no"], descriptions: { yes: "", no: "" }, type, min_confidence };
}

export function choice(id: string, type: string, labels = ["low", "high"]): ResolvedQuestion {
  return {
    id,
    kind: "choice",
    ask: `Which ${id}?`,
    labels,
    descriptions: Object.fromEntries(labels.map((l) => [l, `it is ${l}`])),
    type,
    min_confidence: 0,
  };
}

export function score(id: string, type: string): ResolvedQuestion {
  const labels = ["none", "some", "lots"];
  return { id, kind: "score", ask: `How much ${id}?`, labels, descriptions: { none: "0", some: "1", lots: "2" }, type, min_confidence: 0 };
}

export function request(
  questions: ResolvedQuestion[],
  key: string | null = "CVE-1",
  state: unknown = { title: "a bug" },
  signal: AbortSignal = new AbortController().signal,
): JudgeRequest {
  const state_text = JSON.stringify(state);
  return { run: "run-1", playbook: "triage", task: "gate", key, state, state_text, questions, signal };
}

export function provider(name: string, models: string[], extra: Partial<ProviderConfig> = {}): ProviderConfig {
  return {
    name,
    kind: "systemone",
    vendor: "mapika",
    base_url: "http://127.0.0.1:9",
    models,
    logprob_models: [],
    context_window: {},
    timeout_ms: 1000,
    max_retries: 0,
    ...extra,
  };
}

export function machine(opts: {
  providers?: ProviderConfig[];
  default?: JudgementMode;
  types?: Record<string, JudgementMode>;
  deny_vendors?: string[];
  fallback_on_refusal?: boolean;
}): MachineConfig {
  return {
    agents: { scripted: { name: "scripted", command: ["true"], env: {} } },
    providers: Object.fromEntries((opts.providers ?? []).map((p) => [p.name, p])),
    decisions: {
      default: opts.default ?? { kind: "host" },
      types: opts.types ?? {},
      deny_vendors: opts.deny_vendors ?? [],
      fallback_on_refusal: opts.fallback_on_refusal ?? false,
      host: "scripted",
    },
  };
}

export class MemorySink implements PairSink {
  readonly pairs: Array<Omit<ShadowPair, "lab">> = [];
  append(pair: Omit<ShadowPair, "lab">): void {
    this.pairs.push(JSON.parse(JSON.stringify(pair)) as Omit<ShadowPair, "lab">);
  }
}

export const shadow = (provider: string, model: string): JudgementMode => ({ kind: "shadow", models: [{ provider, model }] });
/** A shadow mode with several candidates (H-6), each written PROVIDER/MODEL. */
export const shadowOf = (...targets: string[]): JudgementMode => ({
  kind: "shadow",
  models: targets.map((t) => ({ provider: t.slice(0, t.indexOf("/")), model: t.slice(t.indexOf("/") + 1) })),
});
export const on = (provider: string, model: string): JudgementMode => ({ kind: "model", provider, model });
