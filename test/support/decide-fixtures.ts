// Small builders for decision-layer tests: questions, provider configs, provider requests.

import type { ProviderConfig, ProviderKind } from "../../src/decide/config-types.js";
import type { ProviderRequest } from "../../src/decide/provider.js";
import type { ResolvedQuestion } from "../../src/run/kinds/judge.js";

export function choiceQ(id: string, options: Record<string, string>, min_confidence = 0): ResolvedQuestion {
  return {
    id,
    kind: "choice",
    ask: `Which ${id}?`,
    labels: Object.keys(options),
    descriptions: { ...options },
    type: `pb.route.${id}`,
    min_confidence,
  };
}

export function noulQ(id: string, yes = "", no = "", min_confidence = 0): ResolvedQuestion {
  return {
    id,
    kind: "noul",
    ask: `Is it ${id}?`,
    labels: ["yes", "no"],
    descriptions: { yes, no },
    type: `pb.route.${id}`,
    min_confidence,
  };
}

export function scoreQ(id: string, levels: Record<string, string>, min_confidence = 0): ResolvedQuestion {
  return {
    id,
    kind: "score",
    ask: `How ${id}?`,
    labels: Object.keys(levels),
    descriptions: { ...levels },
    type: `pb.route.${id}`,
    min_confidence,
  };
}

export function providerConfig(kind: ProviderKind, over: Partial<ProviderConfig> = {}): ProviderConfig {
  return {
    name: `test-${kind}`,
    kind,
    vendor: "test",
    models: ["m1"],
    logprob_models: [],
    context_window: {},
    timeout_ms: 2000,
    max_retries: 2,
    ...over,
  };
}

export function providerRequest(
  questions: ResolvedQuestion[],
  state: unknown = { ticket: "charged twice" },
  over: Partial<ProviderRequest> = {},
): ProviderRequest {
  return {
    model: "m1",
    state,
    state_text: typeof state === "string" ? state : JSON.stringify(state),
    questions,
    signal: new AbortController().signal,
    context: { run: "r1", task: "triage", key: "k1" },
    ...over,
  };
}
