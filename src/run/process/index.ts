// The door of src/run/process: starting and stopping child processes — launchers, process groups
// and their signals — and reading what a process left behind (untrusted files, JSON, repositories).
// Files outside this room import only this file (eslint.config.js; docs/architecture.md).

export { Launcher, type LauncherDialect } from "./launcher.js";
export { type GroupHooks, GroupRecorder, stopOrphanedGroups } from "./process-groups.js";
export { type ProcessResult, runProcess } from "./process.js";
export { type RepositorySnapshot, turnEnds, turnStarts } from "./repository-guard.js";
export { signalGroup } from "./signal-group.js";
export {
  checkWorkspace,
  checkWorkspaceSync,
  DEFAULT_MAX_FILE_BYTES,
  openBeneathSync,
  pinWorkspace,
  readFolderBeneathSync,
  readRegularFileSync,
  readUntrustedFile,
  UntrustedFileError,
  workspaceReplaced,
  type WorkspaceRoot,
} from "./untrusted-file.js";
export { parseUntrustedJson } from "./untrusted-json.js";
