// The run engine's public API: admit a plan as a run, execute or resume it, read its records.

export { admitRun, applyOverrides, type AdmitOptions, type SettingsOverrides } from "./engine/admit.js";
export { RunEngine, type EngineOptions, type RunOutcome, type TaskProgress } from "./engine/engine.js";
export { DecisionLayerRefused, RunNotFound, RunRefused } from "./store/run-refused.js";
export { stopOrphanedGroups } from "./process/process-groups.js";
export {
  checkOwner,
  claimRun,
  currentIdentity,
  runOwner,
  ownerGone,
  RunOwnership,
  type OwnerCheck,
  type OwnerIdentity,
} from "./store/ownership.js";
export { requestCancel, watchCancelRequests } from "./store/cancel-request.js";
export { type Store, type RunRow, type TaskRow, type InstanceRow, type Sql, type StoreKind } from "./store/store.js";
export { SqliteStore } from "./store/store-sqlite.js";
export { openStore, describeStore } from "./store/open-store.js";
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
} from "./store/events.js";
export { decodeEvent, dispatch } from "./store/events.js";
export type { EvaluatorFactory, InstanceInput } from "./kinds/context.js";
export { instanceUsage, showRun, type ShowJson } from "./store/show.js";
export type { Usage } from "./kinds/judge.js";
export { SnapshotError } from "./engine/snapshot.js";
export { RUN_CODES } from "./engine/codes.js";
export { planRerun, recordRerun, samePlan, foldRunPlan, RerunError, type RerunPlan, type InstanceReset } from "./engine/rerun.js";
export { snapshotPack } from "./engine/snapshot.js";
export type { RerunRequest } from "./store/events.js";
