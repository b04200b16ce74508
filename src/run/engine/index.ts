// The door of src/run/engine: the scheduler and what it decides — admitting a plan, running and
// resuming a run, gating, folding the event log for resume, instance inputs, reruns, ceilings.
// Files outside this room import only this file (eslint.config.js; docs/architecture.md).

export { type AdmitOptions, admitRun, applyOverrides, type SettingsOverrides } from "./admit.js";
export { RUN_CODES } from "./codes.js";
export { type EngineOptions, RunEngine, type RunOutcome, type TaskProgress } from "./engine.js";
export { type AttemptRequest, type InstanceExecutor, localExecutor, type WorkTask } from "./executor.js";
export { keyDirName } from "./keys.js";
export { type ReviewQueueChange, UNCERTAIN } from "./review-waits.js";
export { foldRunPlan, type InstanceReset, planRerun, recordRerun, RerunError, type RerunPlan, samePlan } from "./rerun.js";
export { SnapshotError, snapshotPack } from "./snapshot.js";
// What a cassette (src/run/cassette) rebuilds from a recorded run: the fold, the tasks' state, each instance's input and a route's request.
export { foldEvents } from "./fold-events.js";
export { buildInput, taskFold } from "./instance-input.js";
export { routeRequest } from "./route-instance.js";
export { TaskState, UNMAPPED, type Recorded } from "./task-state.js";
