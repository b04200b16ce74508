// What every provider (systemone, openai, command, host) offers the router: one request per
// route instance and target, carrying every question that shares that target (D-11).
// A provider returns raw per-question probabilities; src/decide/answer.ts derives the label
// from them (Q-10 … Q-12), never trusting a label the provider picked.

import type { ResolvedQuestion, Usage } from "../run/kinds/index.js";
import type { GroupHooks } from "../run/process/index.js";
import { CodedError, type ErrorDetails } from "../shared/coded-error.js";

/** What a provider is asked: the state and the questions of one route instance, for one model. */
export interface ProviderRequest {
  model: string;
  /** The state and its deterministic serialisation. */
  state: unknown;
  state_text: string;
  questions: ResolvedQuestion[];
  signal: AbortSignal;
  /** For messages and host prompts. */
  context: { run: string; task: string; key: string | null };
  /** Told the process group of any process the provider starts (the run records it). */
  groups?: GroupHooks;
}

/** One question's answer as a provider returned it, before resolution. */
export interface RawAnswer {
  /** The model declined to answer this question (Q-11: becomes `uncertain`, refused). */
  refused?: boolean;
  /** Label → probability as returned, after wire-specific mapping (noul P(yes) → {yes, no}). */
  probabilities?: Record<string, number>;
}

/** A provider's answers to one request, with its usage and how long it took. */
export interface ProviderResponse {
  /** Question id → raw answer. */
  answers: Record<string, RawAnswer>;
  usage: Usage | null;
  latency_ms: number;
}

/** A provider call that failed after its retries; `message` says what was wrong, never a key. */
export class ProviderError extends CodedError {
  /** Whether another try may succeed (a timeout, a 429 or 5xx), for the client's retry policy. */
  readonly retryable: boolean;
  constructor(code: string, message: string, details: ErrorDetails & { retryable?: boolean } = {}) {
    super(code, message, details);
    this.retryable = details.retryable ?? false;
  }
}

/** Something that answers questions about a state: a model's API, a local command, or the host. */
export interface Provider {
  readonly name: string;
  ask(request: ProviderRequest): Promise<ProviderResponse>;
  close?(): Promise<void>;
}
