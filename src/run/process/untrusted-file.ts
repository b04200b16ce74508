// Reading files that commands and agents leave behind. Anything an instance
// writes is untrusted: a FIFO would block the engine's event loop forever, a symlink to
// /dev/zero would grow it without bound, a symlink to a file outside the workspace would record
// that file's content. So a file is read only when it is a regular file whose real path is inside
// the instance's workspace (or, for $SWITCHYARD_OUTPUT and $SWITCHYARD_USAGE, the regular file
// at the very path the engine named), opened non-blocking and without following a symlink
// swapped in meanwhile, checked again on the open descriptor, and read up to a size limit.
// Text must be UTF-8 (a leading byte-order mark is dropped); anything else fails only that
// element, with a code.
//
// The workspace folder itself is untrusted too (a command can `rm -rf` it and put a symbolic
// link to /etc in its place): the engine pins its identity (device and inode, and its real path)
// when it makes it, before anything runs in it, and every read under it first checks that the
// path still names that very folder (WorkspaceRoot below). On Linux each opened file is also
// checked through /proc/self/fd, so a folder swapped between the checks and the open is caught.

import {
  constants,
  closeSync,
  existsSync,
  fstatSync,
  lstatSync,
  openSync,
  readdirSync,
  readlinkSync,
  readSync,
  realpathSync,
} from "node:fs";
import type { Stats } from "node:fs";
import { lstat, open, readlink, realpath } from "node:fs/promises";
import { join, sep } from "node:path";
import { CodedError } from "../../shared/coded-error.js";
import { errnoCode } from "../../shared/thrown.js";

/** The default limit on one file read from an instance (and on a provider's reply): 16 MB. */
export const DEFAULT_MAX_FILE_BYTES = 16 * 1024 * 1024;

/** A file an instance left that the engine refuses to read. */
export class UntrustedFileError extends CodedError {}

function megabytes(bytes: number): string {
  const mb = bytes / (1024 * 1024);
  return Number.isInteger(mb) ? `${mb} MB` : `${bytes} bytes`;
}

function kindOf(s: {
  isFIFO(): boolean;
  isCharacterDevice(): boolean;
  isBlockDevice(): boolean;
  isSocket(): boolean;
  isDirectory(): boolean;
}): string {
  if (s.isFIFO()) return "a FIFO";
  if (s.isCharacterDevice() || s.isBlockDevice()) return "a device";
  if (s.isSocket()) return "a socket";
  if (s.isDirectory()) return "a folder";
  return "not a regular file";
}

const decoder = new TextDecoder("utf-8", { fatal: true });

/** Decodes UTF-8 strictly (a leading BOM is dropped); throws on any invalid byte sequence. */
function strictUtf8(bytes: Uint8Array, what: string): string {
  try {
    return decoder.decode(bytes);
  } catch {
    throw new UntrustedFileError("output-invalid", `${what} is not valid UTF-8 text; write UTF-8 (T-1)`);
  }
}

/** Linux's view of what an open descriptor names; undefined where there is no /proc. */
const PROC_FD = existsSync("/proc/self/fd") ? "/proc/self/fd" : undefined;

function inside(path: string, root: string): boolean {
  return path === root || path.startsWith(root.endsWith(sep) ? root : root + sep);
}

/**
 * An instance's workspace folder as the engine made it: its path, its real path and its identity
 * (device and inode), taken before the command or agent started.
 */
export interface WorkspaceRoot {
  path: string;
  real: string;
  dev: number;
  ino: number;
}

/**
 * The folder at `path` as the kernel names it once opened (no symbolic link followed at its last
 * part): its identity and real path from one open, fstat and readlink of /proc/self/fd (4 system
 * calls where realpath(3) reads every part of the path). Undefined where there is no /proc or the
 * path is no folder that can be opened (the caller then looks closer).
 */
function openedFolder(path: string): { st: Stats; real: string } | undefined {
  if (!PROC_FD) return undefined;
  let fd: number;
  try {
    fd = openSync(path, constants.O_RDONLY | constants.O_DIRECTORY | constants.O_NOFOLLOW | constants.O_NONBLOCK);
  } catch {
    return undefined;
  }
  try {
    return { st: fstatSync(fd), real: readlinkSync(`${PROC_FD}/${fd}`) };
  } catch {
    return undefined;
  } finally {
    closeSync(fd);
  }
}

/** Pins the folder at `path` (just made by the engine, nothing has run in it yet). */
export function pinWorkspace(path: string): WorkspaceRoot {
  const opened = openedFolder(path);
  if (opened) return { path, real: opened.real, dev: opened.st.dev, ino: opened.st.ino };
  const st = lstatSync(path);
  return { path, real: realpathSync.native(path), dev: st.dev, ino: st.ino };
}

/**
 * What happened to the workspace folder, when the path no longer names the folder the engine
 * made (undefined when it does, or when it was removed: nothing can be read from a missing folder).
 * Synchronous: a few short system calls, cheaper than handing them to libuv's thread pool.
 */
export function workspaceReplacedSync(root: WorkspaceRoot): string | undefined {
  const opened = openedFolder(root.path);
  if (opened) {
    if (opened.st.dev !== root.dev || opened.st.ino !== root.ino) return "was replaced by another folder";
    if (opened.real !== root.real) return `now resolves to ${opened.real} (a folder above it was replaced by a link)`;
    return undefined;
  }
  let st;
  try {
    st = lstatSync(root.path);
  } catch (err) {
    const code = errnoCode(err);
    return code === "ENOENT" ? undefined : `cannot be looked at (${code})`;
  }
  if (st.isSymbolicLink()) return `was replaced by a symbolic link to ${readlinkOr(root.path, "an unreadable target")}`;
  if (!st.isDirectory()) return `was replaced by ${kindOf(st)}`;
  if (st.dev !== root.dev || st.ino !== root.ino) return "was replaced by another folder";
  let real: string | undefined;
  try {
    real = realpathSync.native(root.path);
  } catch {
    real = undefined;
  }
  if (real !== root.real) return `now resolves to ${real ?? "nothing"} (a folder above it was replaced by a link)`;
  return undefined;
}

function readlinkOr(path: string, otherwise: string): string {
  try {
    return readlinkSync(path);
  } catch {
    return otherwise;
  }
}

/** workspaceReplacedSync, for callers that await it. */
export function workspaceReplaced(root: WorkspaceRoot): Promise<string | undefined> {
  return Promise.resolve(workspaceReplacedSync(root));
}

/** Throws UntrustedFileError `workspace-replaced` when the workspace folder was swapped. */
export function checkWorkspaceSync(root: WorkspaceRoot): void {
  const why = workspaceReplacedSync(root);
  if (why)
    throw new UntrustedFileError(
      "workspace-replaced",
      `the instance's workspace folder ${root.path} ${why} while the instance ran; nothing is read from it. A command or agent must leave its workspace folder in place (work inside it)`,
    );
}

/** checkWorkspaceSync, for callers that await it (a refusal rejects). */
export async function checkWorkspace(root: WorkspaceRoot): Promise<void> {
  checkWorkspaceSync(root);
}

/** How to read a file an attempt left: the workspace it must be in, and the limits. */
export interface UntrustedRead {
  /** The folder the file (or what a symlink points at) must be in: the instance's workspace. */
  workspace: string;
  /** The workspace as pinned when it was made: checked before the read, and its real path is the bound. */
  root?: WorkspaceRoot;
  /** Most bytes read. */
  limit: number;
  /** For messages: "$SWITCHYARD_OUTPUT", "NOTE.txt". */
  what: string;
  /** The path is one the engine named itself (beside the workspace, in a folder of its own). */
  ownPath?: boolean;
}

/**
 * The file's text, or undefined when there is no file at `path`. Throws UntrustedFileError
 * (`file-rejected`, or `output-invalid` for text that is not UTF-8) when it must not be read.
 */
export async function readUntrustedFile(path: string, o: UntrustedRead): Promise<string | undefined> {
  const reject = (why: string, hint: string) => new UntrustedFileError("file-rejected", `${o.what} ${why}; ${hint}`);
  if (o.root) checkWorkspaceSync(o.root);
  let st;
  try {
    st = await lstat(path);
  } catch (err) {
    const code = errnoCode(err);
    if (code === "ENOENT" || code === "ENOTDIR") return undefined;
    throw reject(`cannot be read (${code})`, "leave a readable regular file");
  }
  let real = path;
  let root: string | undefined;
  // The engine's own path ($SWITCHYARD_OUTPUT) is read where it is unless it is a symlink; a
  // path inside the workspace may pass through symlinked folders, so it is always resolved.
  if (st.isSymbolicLink() || !o.ownPath) {
    try {
      real = await realpath(path);
    } catch {
      throw reject("is a symbolic link to nothing", "write a regular file instead");
    }
    root = o.root?.real ?? (await realpath(o.workspace).catch(() => o.workspace));
    if (!inside(real, root)) throw outside(reject, real);
  }
  let fh;
  try {
    // O_NONBLOCK: a FIFO swapped in after the checks cannot block the engine; O_NOFOLLOW: nor can
    // a symlink swapped in for the resolved path.
    fh = await open(real, constants.O_RDONLY | constants.O_NONBLOCK | constants.O_NOFOLLOW);
  } catch (err) {
    const code = errnoCode(err);
    if (code === "ENOENT") return undefined;
    throw reject(`cannot be opened (${code})`, "leave a readable regular file");
  }
  try {
    // What was opened, named by the kernel: a folder on the way swapped for a link after the
    // checks above would show here.
    if (root !== undefined && PROC_FD) {
      const opened = await readlink(`${PROC_FD}/${fh.fd}`).catch(() => "an unknown place");
      if (!inside(opened, root)) throw outside(reject, opened);
    }
    const fst = await fh.stat();
    if (!fst.isFile()) throw reject(`is ${kindOf(fst)}`, "write a regular file");
    if (fst.size > o.limit)
      throw reject(
        `is ${fst.size} bytes, more than the limit of ${megabytes(o.limit)}`,
        "write less, or raise the limit with SWITCHYARD_MAX_FILE_MB",
      );
    const buf = Buffer.allocUnsafe(Math.min(fst.size, o.limit) + 1);
    let n = 0;
    for (;;) {
      const { bytesRead } = await fh.read(buf, n, buf.length - n, n);
      if (bytesRead === 0) break;
      n += bytesRead;
      if (n === buf.length) break;
    }
    if (n > o.limit)
      throw reject(
        `grew past the limit of ${megabytes(o.limit)} while it was read`,
        "write less, or raise the limit with SWITCHYARD_MAX_FILE_MB",
      );
    return strictUtf8(buf.subarray(0, n), o.what);
  } finally {
    await fh.close();
  }
}

function outside(reject: (why: string, hint: string) => UntrustedFileError, real: string): UntrustedFileError {
  return reject(
    `resolves to ${real}, outside the instance's workspace`,
    "the engine reads only files inside the workspace; copy the file there instead of linking to it",
  );
}

/** A file or folder opened below a trusted folder, with no symbolic link followed on the way. */
export interface OpenedBeneath {
  fd: number;
  /** Its stat, from the open descriptor. */
  st: Stats;
  /** Its path (the trusted folder's real path joined with the parts). */
  path: string;
}

/**
 * Opens `base`/parts[0]/…/parts[n-1] (base is trusted: the engine's or the person's own folder)
 * without following any symbolic link below `base`: every part must be a real folder (the last a
 * regular file, or a folder when `folder`), and what was opened must be what was checked (its
 * device and inode; on Linux also its path as the kernel names it). Undefined when it is absent
 * or refused. The caller closes `fd`.
 */
export function openBeneathSync(base: string, parts: readonly string[], folder = false): OpenedBeneath | undefined {
  let path: string;
  try {
    path = realpathSync(base);
  } catch {
    return undefined;
  }
  let last: Stats | undefined;
  for (const part of parts) {
    if (part === "" || part === "." || part === ".." || part.includes("/") || part.includes("\0")) return undefined;
    path = join(path, part);
    if (last && !last.isDirectory()) return undefined;
    last = lstatSync(path, { throwIfNoEntry: false });
    if (!last || last.isSymbolicLink()) return undefined;
  }
  if (!last || (folder ? !last.isDirectory() : !last.isFile())) return undefined;
  let fd: number;
  try {
    fd = openSync(path, constants.O_RDONLY | constants.O_NOFOLLOW | constants.O_NONBLOCK | (folder ? constants.O_DIRECTORY : 0));
  } catch {
    return undefined;
  }
  const st = fstatSync(fd);
  let same = st.dev === last.dev && st.ino === last.ino;
  if (same && PROC_FD) {
    try {
      same = readlinkSync(`${PROC_FD}/${fd}`) === path;
    } catch {
      same = false;
    }
  }
  if (!same) {
    closeSync(fd);
    return undefined;
  }
  return { fd, st, path };
}

/**
 * The entries of the folder `base`/parts… (opened as openBeneathSync does), each with its lstat;
 * undefined when the folder is absent or refused. On Linux the names are read and looked at
 * through the open descriptor, so a folder swapped meanwhile is never listed.
 */
export function readFolderBeneathSync(base: string, parts: readonly string[]): Array<{ name: string; st: Stats }> | undefined {
  const dir = openBeneathSync(base, parts, true);
  if (!dir) return undefined;
  try {
    const at = PROC_FD ? `${PROC_FD}/${dir.fd}` : dir.path;
    const out: Array<{ name: string; st: Stats }> = [];
    for (const name of readdirSync(at).sort()) {
      const st = lstatSync(join(at, name), { throwIfNoEntry: false });
      if (st) out.push({ name, st });
    }
    if (!PROC_FD) {
      // Without /proc: the folder must still be the one opened once it has been read.
      const now = lstatSync(dir.path, { throwIfNoEntry: false });
      if (!now || now.isSymbolicLink() || now.dev !== dir.st.dev || now.ino !== dir.st.ino) return undefined;
    }
    return out;
  } catch {
    return undefined;
  } finally {
    closeSync(dir.fd);
  }
}

/**
 * A configuration file's text, read synchronously: only a regular file (a symlink to one is
 * fine: the person chose it), opened non-blocking, at most `limit` bytes, UTF-8. Throws an Error
 * whose `code` is a short reason ("ENOENT", "EISDIR", "ENOTREG", "EFBIG", "EILSEQ").
 */
export function readRegularFileSync(path: string, limit: number): string {
  const fd = openSync(path, constants.O_RDONLY | constants.O_NONBLOCK);
  try {
    const st = fstatSync(fd);
    if (st.isDirectory()) throw new CodedError("EISDIR", "is a folder");
    if (!st.isFile()) throw new CodedError("ENOTREG", `is ${kindOf(st)}`);
    if (st.size > limit) throw new CodedError("EFBIG", `is larger than ${megabytes(limit)}`);
    const buf = Buffer.allocUnsafe(st.size + 1);
    let n = 0;
    while (n < buf.length) {
      const r = readSync(fd, buf, n, buf.length - n, n);
      if (r === 0) break;
      n += r;
    }
    if (n > limit) throw new CodedError("EFBIG", `is larger than ${megabytes(limit)}`);
    try {
      return decoder.decode(buf.subarray(0, n));
    } catch {
      throw new CodedError("EILSEQ", "is not valid UTF-8 text");
    }
  } finally {
    closeSync(fd);
  }
}
