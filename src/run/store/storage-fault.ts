// Faults of the state database: a full disk, a file-size limit, a read-only or
// immutable file, a corrupt or truncated database. SQLite reports them as SqliteError with a
// code; here they become a StorageFault that names the file, says what is wrong and how to
// recover, instead of an uncaught error with a stack. The same holds for the files the engine
// writes into a run folder before an attempt starts (its workspace, input and log): a full disk
// there is the state folder's fault, not the element's.

import { CodedError, type ErrorDetails } from "../../shared/coded-error.js";
import { errnoCode } from "../../shared/thrown.js";

/** The SQLite result codes that mean the database cannot be written. */
const CANNOT_WRITE: Record<string, string> = {
  SQLITE_FULL: "the disk is full, or the file reached a file-size limit",
  SQLITE_READONLY: "the file or its folder is read-only (or immutable)",
  SQLITE_READONLY_DBMOVED: "the file was moved or deleted while in use",
  SQLITE_IOERR: "an input/output error (a full disk or a file-size limit can cause one)",
  SQLITE_CANTOPEN: "it cannot be opened",
  SQLITE_PERM: "permission denied",
  SQLITE_BUSY: "another process kept it locked",
};

/** The codes that mean the file is not (or no longer) a sound database. */
const DAMAGED: Record<string, string> = {
  SQLITE_CORRUPT: "it is corrupt",
  SQLITE_NOTADB: "it is not an SQLite database (truncated or overwritten?)",
};

/** The store or the state folder failed (disk full, database gone): not a bug and not the run's fault; the run can be resumed. */
export class StorageFault extends CodedError {
  /** The run that was executing, when there was one (for the advice to resume it). */
  run?: string;
  /** The SQLite result code, the errno code of a failed file write, or a PostgreSQL SQLSTATE. */
  readonly systemCode: string;
  constructor(
    code: "state-unwritable" | "state-corrupt" | "store-unreachable",
    message: string,
    details: ErrorDetails & { systemCode: string },
  ) {
    super(code, message, details);
    this.systemCode = details.systemCode;
  }
}

function base(code: string): string {
  // Extended codes (SQLITE_IOERR_WRITE, SQLITE_CORRUPT_VTAB, ...) share their primary's meaning.
  for (const k of [...Object.keys(DAMAGED), ...Object.keys(CANNOT_WRITE)].sort((a, b) => b.length - a.length))
    if (code === k || code.startsWith(`${k}_`)) return k;
  return code;
}

let lastDatabase: string | undefined;
/** Remembers the database a command opened, for faults reported far from where it was opened. */
export function noteDatabase(file: string): void {
  lastDatabase = file;
}

/** The StorageFault an error from the database at `dbFile` stands for, or undefined if it is none. */
export function storageFault(err: unknown, dbFile = lastDatabase ?? "switchyard.db"): StorageFault | undefined {
  if (err instanceof StorageFault) return err;
  const code = errnoCode(err);
  if (code === undefined || !code.startsWith("SQLITE_")) return undefined;
  const k = base(code);
  const damaged = DAMAGED[k];
  if (damaged) {
    return new StorageFault(
      "state-corrupt",
      `the state database ${dbFile} cannot be read: ${damaged} (${code}). ` +
        `Its event log is the record of every run: restore the file from a backup if you have one. ` +
        `\`switchyard runs --rebuild\` rebuilds the runs, tasks and instances tables from the events, but cannot repair damaged events; ` +
        `to start afresh, move the file (and its -wal and -shm files) aside`,
      { systemCode: code },
    );
  }
  const why = CANNOT_WRITE[k];
  if (!why) return undefined;
  return new StorageFault("state-unwritable", `the state database ${dbFile} cannot be written: ${why} (${code})`, { systemCode: code });
}

/** The errno codes that mean files cannot be written into a folder. */
const FOLDER_CANNOT_WRITE: Record<string, string> = {
  ENOSPC: "the disk is full",
  EDQUOT: "the disk quota is used up",
  EFBIG: "a file reached a file-size limit",
  EROFS: "the file system is read-only",
  EACCES: "permission denied",
  EPERM: "permission denied (or the folder is immutable)",
  EIO: "an input/output error",
};

/** The StorageFault a failed write of a run's files under `folder` stands for, or undefined if it is none. */
export function folderFault(err: unknown, folder: string): StorageFault | undefined {
  if (err instanceof StorageFault) return err;
  const code = errnoCode(err);
  const why = code !== undefined && Object.hasOwn(FOLDER_CANNOT_WRITE, code) ? FOLDER_CANNOT_WRITE[code] : undefined;
  if (code === undefined || !why) return undefined;
  return new StorageFault("state-unwritable", `the run folder ${folder} cannot be written: ${why} (${code})`, { systemCode: code });
}

/**
 * The StorageFault a failed sync of the state database's WAL (a background sync: wal-sync.ts)
 * stands for; an error without an errno code is one too, the commits it covered being unsynced.
 */
export function walSyncFault(err: unknown, dbFile: string): StorageFault {
  const code = errnoCode(err) ?? "EIO";
  const why = Object.hasOwn(FOLDER_CANNOT_WRITE, code) ? FOLDER_CANNOT_WRITE[code] : "it cannot be synced";
  return new StorageFault("state-unwritable", `the state database ${dbFile} cannot be synced to disk: ${why} (${code})`, {
    systemCode: code,
  });
}
