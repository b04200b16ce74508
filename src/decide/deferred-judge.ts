// The decision layer, loaded when a run needs it. A playbook whose routes are all output-decided
// never asks the host or a model, so the router, the providers and the HTTP client under them
// (about 30 modules, node:http and node:https among them) are not loaded for it: that is part of
// what every `switchyard run` pays before its first step (docs/performance.md).
//
// `judge` loads the router itself (it is asynchronous anyway). The synchronous calls — the
// decision preflight (D-30) and a reviewed answer (H-5) — exist only for a plan with model-decided
// routes, and the run's wiring loads the router for such a plan before anything calls them
// (src/api/wiring.ts `ready`).

import type { DecisionRecord, JudgeRequest, ReviewedPair } from "../run/kinds/index.js";
import type { JudgementMode } from "./config-types.js";
import type { RoutingJudge } from "./router.js";
import { CodedError } from "../shared/coded-error.js";

/** A RoutingJudge whose router is loaded on first need; `load` loads it now. */
export interface DeferredJudge extends RoutingJudge {
  /** Loads the router (once) and returns the judge it built. */
  load(): Promise<RoutingJudge>;
}

/**
 * The judge `build` makes, built when first needed. `modeOf` answers without it (a type's mode is
 * the machine config's and the overrides', src/decide/mode.ts).
 */
export function deferredJudge(build: () => Promise<RoutingJudge>, modeOf: (type: string) => JudgementMode): DeferredJudge {
  let loading: Promise<RoutingJudge> | undefined;
  let loaded: RoutingJudge | undefined;
  const load = (): Promise<RoutingJudge> =>
    (loading ??= build().then((j) => {
      loaded = j;
      return j;
    }));
  const built = (what: string): RoutingJudge => {
    if (loaded) return loaded;
    throw new CodedError(
      "internal-error",
      `the decision layer was asked for ${what} before it was loaded (a run's wiring loads it for a plan with model-decided routes)`,
    );
  };
  return {
    load,
    judge: async (req: JudgeRequest): Promise<DecisionRecord> => (await load()).judge(req),
    preflight: (types: string[]): string[] => (types.length === 0 ? [] : built("its preflight").preflight(types)),
    modeOf,
    reviewed: (pair: ReviewedPair): void => built("a reviewed answer").reviewed(pair),
    close: async (): Promise<void> => {
      if (!loading) return;
      // A router that could not be loaded has nothing open; the failure was reported where it was needed.
      const judge = await loading.catch(() => undefined);
      await judge?.close();
    },
  };
}
