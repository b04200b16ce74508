// The window check (D-32): a request whose estimated size exceeds the model's declared
// `context_window` is not sent. The estimate is deliberately simple and tokenizer-free, so it is
// the same for every provider and costs nothing to compute:
//
//   tokens = ceil(chars / 4)            over the serialised state (state_text) and, per question,
//                                       its ask, its labels and their descriptions
//          + 16 per question + 4 per label   (the wire's per-question and per-label framing)
//          + 64 per request                  (envelope, instructions, model name)
//
// Four characters per token is the usual rule of thumb for English text and JSON under BPE
// tokenizers. It UNDER-estimates text that tokenizes densely (CJK scripts, base64, long numbers),
// so declare a context_window with some margin below the model's true limit.

import type { ResolvedQuestion } from "../run/kinds/index.js";

const CHARS_PER_TOKEN = 4;
const TOKENS_PER_REQUEST = 64;
const TOKENS_PER_QUESTION = 16;
const TOKENS_PER_LABEL = 4;

/** The estimated size in tokens of one provider request carrying `questions` over `stateText`. */
export function estimateRequestTokens(stateText: string, questions: readonly ResolvedQuestion[]): number {
  let chars = stateText.length;
  let overhead = TOKENS_PER_REQUEST;
  for (const q of questions) {
    chars += q.ask.length;
    overhead += TOKENS_PER_QUESTION;
    for (const label of q.labels) {
      chars += label.length + (q.descriptions[label]?.length ?? 0);
      overhead += TOKENS_PER_LABEL;
    }
  }
  return Math.ceil(chars / CHARS_PER_TOKEN) + overhead;
}

/** Why the request does not fit `window` tokens, or undefined when it fits (or no window is declared). */
export function windowProblem(
  stateText: string,
  questions: readonly ResolvedQuestion[],
  model: string,
  window: number | undefined,
): string | undefined {
  if (window === undefined) return undefined;
  const estimate = estimateRequestTokens(stateText, questions);
  if (estimate <= window) return undefined;
  return `the request is estimated at ${estimate} tokens, over the context window of ${window} declared for ${model} (D-32)`;
}
