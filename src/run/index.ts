// The run engine's public API: admit a plan as a run, execute or resume it, read its records.

export { admitRun, applyOverrides, type AdmitOptions, type SettingsOverrides } from "./admit.js";
export { RunEngine, type EngineOptions, type RunOutcome, type TaskProgress } from "./engine.js";
export { DecisionLayerRefused, RunNotFound, RunRefused } from "./run-refused.js";
export { stopOrphanedGroups } from "./process-groups.js";
export {
  checkOwner,
  claimRun,
  currentIdentity,
  runOwner,
  ownerGone,
  RunOwnership,
  type OwnerCheck,
  type OwnerIdentity,
} from "./ownership.js";
export { requestCancel, watchCancelRequests } from "./cancel-request.js";
export { type Store, type RunRow, type TaskRow, type InstanceRow, type Sql, type StoreKind } from "./store.js";
export { SqliteStore } from "./store-sqlite.js";
export { openStore, describeStore } from "./open-store.js";
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
} from "./events.js";
export { decodeEvent, dispatch, eventTask } from "./events.js";
export type { EvaluatorFactory, InstanceInput } from "./kinds/context.js";
export { instanceUsage, showRun, type ShowJson } from "./show.js";
export type { Usage } from "./judge.js";
export { SnapshotError } from "./snapshot.js";
export { RUN_CODES } from "./codes.js";
export { planRerun, recordRerun, samePlan, foldRunPlan, RerunError, type RerunPlan, type InstanceReset } from "./rerun.js";
export { snapshotPack } from "./snapshot.js";
export type { RerunRequest } from "./events.js";
