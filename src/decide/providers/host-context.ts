// What a host runner is told besides its prompt: the same context an agent turn gets —
// the run, task, element key and the folder it runs in — plus the judgement type and the question
// as JSON, so a script or an agent CLI can tell which decision it is answering. The state stays
// in the prompt only: it can be larger than an environment variable may be.

import type { ResolvedQuestion } from "../../run/kinds/index.js";
import type { ProviderRequest } from "../provider.js";

/** The SWITCHYARD_* environment a host runner gets for one question: the run, task, key, judgement type and the question itself. */
export function hostContextEnv(q: ResolvedQuestion, request: ProviderRequest, workspace: string): Record<string, string> {
  const { run, task, key } = request.context;
  const descriptions = Object.fromEntries(Object.entries(q.descriptions).filter(([, d]) => d.trim() !== ""));
  return {
    SWITCHYARD_RUN: run,
    SWITCHYARD_TASK: task,
    SWITCHYARD_KEY: key ?? "",
    SWITCHYARD_WORKSPACE: workspace,
    SWITCHYARD_JUDGEMENT_TYPE: q.type,
    SWITCHYARD_QUESTION: JSON.stringify({ id: q.id, type: q.type, kind: q.kind, ask: q.ask, labels: q.labels, descriptions }),
  };
}
