// The door of src/run/cassette: writing a cassette from a recorded run, reading one,
// and what `switchyard test` replays it with (the CassetteJudge, the runner program's index).
// Files outside this room import only this file (eslint.config.js; docs/architecture.md).

export { CASSETTE_CODES } from "./codes.js";
export { type Cassette, CASSETTE_FORMAT, CASSETTE_VERSION, CassetteError, cassetteText, readCassette } from "./format.js";
export { cassetteFromRun, routeStateText } from "./from-run.js";
export { CassetteJudge } from "./judge.js";
export { countAgentHits, type DecisionIndex, type Miss, readMisses, writeReplayIndex } from "./replay-index.js";

/** The runner program `switchyard test` puts in place of every agent runner (run with node). */
export const REPLAY_AGENT_PROGRAM = new URL("./replay-agent.js", import.meta.url);
