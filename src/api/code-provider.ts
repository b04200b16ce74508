// A decision provider written as code (docs/api.md): an object with `decide(request, signal)`,
// adapted to the router's Provider port (src/decide/provider.ts). The router treats it as any
// configured provider: the questions sharing its model go in one request (D-11), the label is
// derived from the probabilities it returns (Q-10 … Q-12, never a label it picked), a failure or a
// refusal falls back to the host with a receipt (D-31), and the engine records the decision so that
// it is never asked again.

import type { ProviderConfig } from "../decide/config-types.js";
import { ProviderError, type Provider, type ProviderRequest, type ProviderResponse, type RawAnswer } from "../decide/provider.js";
import type { ResolvedQuestion, Usage } from "../run/kinds/index.js";
import { messageOf } from "../shared/thrown.js";

/** One request to a decision provider: a route instance's questions that share its model, with the state they are about. */
export interface DecisionRequest {
  run: string;
  task: string;
  /** The element key of a mapped route; null for an unmapped one. */
  key: string | null;
  /** The model the judgement types are routed to (`PROVIDER/MODEL`). */
  model: string;
  /** The instance's state, and its deterministic serialisation (sorted keys). */
  state: unknown;
  state_text: string;
  questions: ResolvedQuestion[];
}

/** One question's answer: each label's probability, or a refusal (then the question is `uncertain`, or the host answers). */
export interface DecisionAnswer {
  probabilities?: Record<string, number>;
  refused?: boolean;
}

/** A provider's answers, by question id, and what they cost. */
export interface DecisionAnswers {
  answers: Record<string, DecisionAnswer>;
  usage?: Usage;
}

/** A decision provider as code: answers one request; rejects (or throws) when it cannot. */
export interface DecisionProvider {
  decide(request: DecisionRequest, signal: AbortSignal): Promise<DecisionAnswers>;
  /** The models it may be asked (D-30's allowlist); by default, every model the `decisions` option routes to it. */
  readonly models?: readonly string[];
  /** Who makes the models, checked against the machine config's deny_vendors (default "code"). */
  readonly vendor?: string;
  /** Per-request timeout in milliseconds (default 30000, as for a configured provider). */
  readonly timeoutMs?: number;
}

const DEFAULT_TIMEOUT_MS = 30_000;

/** The machine-config entry a code provider stands in: what preflight's allowlist and vendor checks read. */
export function codeProviderConfig(name: string, p: DecisionProvider, routedModels: readonly string[]): ProviderConfig {
  return {
    name,
    kind: "command",
    vendor: p.vendor ?? "code",
    models: [...(p.models ?? routedModels)],
    logprob_models: [],
    context_window: {},
    timeout_ms: p.timeoutMs ?? DEFAULT_TIMEOUT_MS,
    max_retries: 0,
  };
}

/** The router's Provider over a code provider, with its timeout and the run's cancel on one signal. */
export function codeProvider(name: string, p: DecisionProvider): Provider {
  const timeoutMs = p.timeoutMs ?? DEFAULT_TIMEOUT_MS;
  return {
    name,
    async ask(req: ProviderRequest): Promise<ProviderResponse> {
      const who = `provider '${name}' (code, model ${req.model})`;
      const started = performance.now();
      const timeout = AbortSignal.timeout(timeoutMs);
      const signal = AbortSignal.any([req.signal, timeout]);
      let got: DecisionAnswers;
      try {
        got = await p.decide(
          { ...req.context, model: req.model, state: req.state, state_text: req.state_text, questions: req.questions },
          signal,
        );
      } catch (err) {
        if (req.signal.aborted) throw new ProviderError("decision-failed", `${who}: cancelled`);
        if (timeout.aborted) throw new ProviderError("decision-failed", `${who}: no answer within ${timeoutMs} ms (timeout)`);
        throw new ProviderError("decision-failed", `${who}: ${messageOf(err)}`);
      }
      if (got === null || typeof got !== "object" || got.answers === null || typeof got.answers !== "object")
        throw new ProviderError("decision-failed", `${who}: decide() must resolve with { answers: { QUESTION: { probabilities } } }`);
      const answers: Record<string, RawAnswer> = {};
      for (const [id, a] of Object.entries(got.answers)) answers[id] = { ...a };
      return { answers, usage: got.usage ?? null, latency_ms: Math.round(performance.now() - started) };
    },
  };
}
