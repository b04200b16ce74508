// The door of src/run/cassette: writing a cassette from a recorded run, reading one,
// and what `switchyard test` replays it with (the CassetteJudge for decisions, CassetteAgents for agent turns).
// Files outside this room import only this file (eslint.config.js; docs/architecture.md).

export { CASSETTE_CODES } from "./codes.js";
export { type Cassette, CASSETTE_FORMAT, CASSETTE_VERSION, CassetteError, cassetteText, readCassette } from "./format.js";
export { cassetteFromRun, routeStateText } from "./from-run.js";
export { CassetteJudge } from "./judge.js";
export { CassetteAgents } from "./agent-replay.js";
export { type Miss, readMisses, replayIndex, type ReplayIndex } from "./replay-index.js";
