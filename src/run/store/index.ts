// The door of src/run/store: the event log and everything kept in it — the event vocabulary, the
// projection into runs/tasks/instances, the SQLite and PostgreSQL stores (and the pg client
// bridge), ownership of a run, published snapshots, cancel requests and the readers of records.
// Files outside this room import only this file (eslint.config.js; docs/architecture.md).

export { requestCancel, watchCancelRequests } from "./cancel-request.js";
export {
  type DecisionMode,
  type DecisionRecord,
  type QuestionDecision,
  type Receipt,
  type ResolvedOption,
  sumUsage,
  type Usage,
} from "./decision-record.js";
export {
  chargedUsd,
  decodeEvent,
  dispatch,
  type EventHandlers,
  type EventPayloads,
  type EventType,
  type FoldSummary,
  type InstanceStatus,
  isTerminal,
  type RerunRequest,
  type RunEvent,
  type RunRepository,
  type RunStatus,
  type Settings,
  type SnapshotInfo,
  type StoredEvent,
  type TerminalStatus,
  eventTask,
} from "./events.js";
export { describeStore, openStore, parseStoreSpec, type StoreSpec } from "./open-store.js";
export {
  checkOwner,
  claimRun,
  currentIdentity,
  type OwnerCheck,
  ownerGone,
  type OwnerIdentity,
  pidExists,
  processStartTime,
  runOwner,
  RunOwnership,
} from "./ownership.js";
export { type InvocationRow, readInvocation, writeInvocation } from "./invocations.js";
export {
  addPairToNextCommit,
  currentLabId,
  deleteLabRow,
  insertLabRow,
  labPairLines,
  type LabRow,
  labRows,
  setCurrentLab,
  setCurrentLabIfNone,
} from "./lab-tables.js";
export { extractPack } from "./pack-archive.js";
export { type AskedQuestion, type ReviewAnswer, type ReviewQuestion } from "./review-record.js";
export { dropReviewAnswer, giveReviewAnswer, type GivenAnswer, waitingReviewAnswers } from "./review-answers.js";
export { lostConnection } from "./pg/connection-lost.js";
/** The job queue's statements (src/run/queue/ calls them): its tables, inbox, jobs and workers. */
export * as queueDb from "./pg/queue.js";
export {
  ensureProcessGroupTable,
  forgetOthersProcessGroups,
  forgetProcessGroup,
  othersProcessGroups,
  type ProcessGroupRecord,
  type ProcessGroupRow,
  recordProcessGroup,
} from "./process-group-records.js";
export { pacingEvents } from "./readers/pacing-events.js";
/** The web view's reads (src/ui/run-reader.ts), one named query each. */
export * as runView from "./readers/run-view.js";
export { DecisionLayerRefused, RunNotFound, RunRefused } from "./run-refused.js";
export { localSnapshot, publishSnapshot } from "./shared-snapshot.js";
export { type EarlierResult, instanceUsage, type ShowJson, type ShownRerun, showRun } from "./show.js";
export { SqliteDriverMissing } from "./sqlite-driver.js";
export { folderFault, storageFault, StorageFault } from "./storage-fault.js";
export { parsePgUrl, PostgresStore } from "./store-postgres.js";
export { SqliteStore } from "./store-sqlite.js";
export { type InstanceRow, type RunRow, type Sql, type Store, type StoreKind, type TaskRow } from "./store.js";
