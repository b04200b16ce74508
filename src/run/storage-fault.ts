// Faults of the state database (issue 9 item 5): a full disk, a file-size limit, a read-only or
// immutable file, a corrupt or truncated database. SQLite reports them as SqliteError with a
// code; here they become a StorageFault that names the file, says what is wrong and how to
// recover, instead of an uncaught error with a stack.

import { CodedError, type ErrorDetails } from "../shared/coded-error.js";

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

export class StorageFault extends CodedError {
  /** The run that was executing, when there was one (for the advice to resume it). */
  run?: string;
  /** SQLite's result code (SQLITE_FULL, ...). */
  readonly sqliteCode: string;
  constructor(code: "state-unwritable" | "state-corrupt", message: string, details: ErrorDetails & { sqliteCode: string }) {
    super(code, message, details);
    this.sqliteCode = details.sqliteCode;
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
  const code = (err as { code?: unknown } | null)?.code;
  if (typeof code !== "string" || !code.startsWith("SQLITE_")) return undefined;
  const k = base(code);
  const damaged = DAMAGED[k];
  if (damaged) {
    return new StorageFault(
      "state-corrupt",
      `the state database ${dbFile} cannot be read: ${damaged} (${code}). ` +
        `Its event log is the record of every run: restore the file from a backup if you have one. ` +
        `\`switchyard runs --rebuild\` rebuilds the runs, tasks and instances tables from the events, but cannot repair damaged events; ` +
        `to start afresh, move the file (and its -wal and -shm files) aside`,
      { sqliteCode: code },
    );
  }
  const why = CANNOT_WRITE[k];
  if (!why) return undefined;
  return new StorageFault("state-unwritable", `the state database ${dbFile} cannot be written: ${why} (${code})`, { sqliteCode: code });
}
