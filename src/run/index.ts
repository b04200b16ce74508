// The run engine's public API: admit a plan as a run, execute or resume it, read its records.

export { admitRun, applyOverrides, type AdmitOptions, type SettingsOverrides } from "./engine/index.js";
export { RunEngine, type EngineOptions, type RunOutcome, type TaskProgress } from "./engine/index.js";
export { DecisionLayerRefused, RunNotFound, RunRefused } from "./store/index.js";
export { stopOrphanedGroups } from "./process/index.js";
export {
  checkOwner,
  claimRun,
  currentIdentity,
  runOwner,
  ownerGone,
  RunOwnership,
  type OwnerCheck,
  type OwnerIdentity,
} from "./store/index.js";
export { requestCancel, watchCancelRequests } from "./store/index.js";
export { type Store, type RunRow, type TaskRow, type InstanceRow, type Sql, type StoreKind } from "./store/index.js";
export { SqliteStore } from "./store/index.js";
export { openStore, describeStore } from "./store/index.js";
export type {
  RunEvent,
  EventType,
  EventPayloads,
  EventHandlers,
  StoredEvent,
  RunStatus,
  InstanceStatus,
  Settings,
  FoldSummary,
} from "./store/index.js";
export { decodeEvent, dispatch, eventTask } from "./store/index.js";
export type { EvaluatorFactory, InstanceInput } from "./kinds/index.js";
export { instanceUsage, showRun, type ShowJson } from "./store/index.js";
export { runView } from "./store/index.js";
export { readInvocation, writeInvocation } from "./store/index.js";
export type { Usage } from "./kinds/index.js";
export { SnapshotError } from "./engine/index.js";
export { RUN_CODES } from "./engine/index.js";
export { planRerun, recordRerun, samePlan, foldRunPlan, RerunError, type RerunPlan, type InstanceReset } from "./engine/index.js";
export { snapshotPack } from "./engine/index.js";
export type { RerunRequest } from "./store/index.js";
