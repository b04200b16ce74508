// The agent turns of `switchyard test`: every runner the plan names gets this replay
// (AgentRunnerConfig.replay), which the engine calls in its own process before it would start
// anything, in the same workspace or git worktree, with the same `files` and `emits` checks, usage
// charged to the budget, records and resume as for any turn (kinds/agent-function-turn.ts). A hit
// leaves what the recorded agent left: the declared files in the workspace, a worktree agent's
// patch applied where the agent would have left it (so the engine captures the same change), and
// the output and usage handed back. A turn the cassette does not hold is a miss: recorded with
// why, then handed to the real runner when --allow-live gave one (the engine runs it as in
// `switchyard run`: its process group, timeout, log and preset), else failed with `cassette-miss`,
// so nothing outside is contacted.

import { mkdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { basename, dirname, resolve, sep } from "node:path";
import { git, type AgentRunnerConfig, type ReplayedTurn, type ReplayRequest } from "../agents/index.js";
import { elementId, type AgentAnswer } from "./format.js";
import { agentRequestOf, elementView, type Overs } from "./identity.js";
import { agentMiss, recordMiss, type ReplayIndex } from "./replay-index.js";

/** A revise loop's part (`r2-body`), from its attempt folder's name (revise.ts names it so). */
const PART = /-(r\d+-(?:body|review))$/;

/** Applies a worktree agent's recorded patch in its fresh worktree; the error text when it does not apply. */
async function applyPatch(patch: string, workspace: string): Promise<string | undefined> {
  // Beside the attempt folder, not in the worktree: the engine captures everything in it.
  const file = `${workspace}.cassette.patch`;
  writeFileSync(file, patch);
  try {
    const r = await git(workspace, ["apply", "--whitespace=nowarn", "--binary", file]);
    return r.ok ? undefined : r.stderr.trim() || "git apply failed";
  } finally {
    rmSync(file, { force: true });
  }
}

/** Leaves what the recorded agent left: declared files, the worktree patch applied; its output, usage or failure. */
async function leave(answer: AgentAnswer, workspace: string): Promise<ReplayedTurn> {
  for (const [name, value] of Object.entries(answer.files ?? {})) {
    const path = resolve(workspace, name);
    if (!path.startsWith(workspace + sep)) continue; // a declared file is inside the workspace (the compiler checks names)
    mkdirSync(dirname(path), { recursive: true });
    writeFileSync(path, typeof value === "string" && !name.endsWith(".json") ? value : JSON.stringify(value, null, 2));
  }
  const usage = answer.usage ? { usage: { ...answer.usage } } : {};
  if (answer.patch !== undefined) {
    const problem = await applyPatch(answer.patch, workspace);
    if (problem !== undefined)
      return {
        status: "failed",
        code: "agent-runner-failed",
        message: `the recorded patch does not apply to this worktree: ${problem}`,
        ...usage,
      };
  }
  if (answer.status === "failed") {
    const code = answer.code ?? "agent-runner-failed";
    const error = answer.error ?? "";
    const said = error.startsWith(`${code}: `) ? error.slice(code.length + 2) : error;
    return { status: "failed", code, message: `the recorded turn failed (replayed from the cassette): ${said}`, ...usage };
  }
  // A copy: the engine keeps the output it records, and a retried turn is answered again.
  return { status: "passed", output: structuredClone(answer.output ?? {}), ...usage };
}

/** The agent side of `switchyard test`: answers each turn from the cassette, or records a miss. */
export class CassetteAgents {
  /** How many agent turns were answered from the cassette. */
  answered = 0;

  constructor(
    private readonly index: ReplayIndex,
    private readonly runDir: (run: string) => string,
    private readonly overs: Overs,
  ) {}

  /**
   * The runner put in place of `name`: the real one behind the replay when --allow-live gave it
   * (a miss then runs it), else none (a miss fails).
   */
  runner(name: string, live: AgentRunnerConfig | undefined): AgentRunnerConfig {
    const replay = (turn: ReplayRequest) => this.replay(turn, live !== undefined);
    return live ? { ...live, replay } : { name, command: [], env: {}, replay };
  }

  private async replay(turn: ReplayRequest, live: boolean): Promise<ReplayedTurn> {
    // The input as a command runner reads it ($SWITCHYARD_INPUT), so the request is the one the cassette's writer computed.
    const input = JSON.parse(readFileSync(turn.inputFile, "utf8")) as { key?: string };
    const key = typeof input.key === "string" ? input.key : null;
    const part = PART.exec(basename(turn.workspace))?.[1];
    const req = agentRequestOf(turn.prompt, elementView(input, key, this.overs[turn.task]), this.runDir(turn.run));
    const hit = this.index.agents.byRequest.get(req.request);
    if (hit) {
      this.answered += 1;
      return leave(hit.answer, resolve(turn.workspace));
    }
    const why = agentMiss(this.index.agents.byElement.get(elementId(turn.task, key, part)), req);
    recordMiss(this.index.dir, { kind: "agent", task: turn.task, key, ...(part !== undefined ? { part } : {}), ...why });
    if (live) return { status: "live" };
    return {
      status: "failed",
      code: "cassette-miss",
      message: `the cassette has no answer for this turn: ${why.why}; nothing was run (--allow-live runs it)`,
    };
  }
}
