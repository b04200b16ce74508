// Reading files that commands and agents leave behind (issue 9 item 3). Anything an instance
// writes is untrusted: a FIFO would block the engine's event loop forever, a symlink to
// /dev/zero would grow it without bound, a symlink to a file outside the workspace would record
// that file's content. So a file is read only when it is a regular file whose real path is inside
// the instance's workspace (or, for $SWITCHYARD_OUTPUT and $SWITCHYARD_USAGE, the regular file
// at the very path the engine named), opened non-blocking and without following a symlink
// swapped in meanwhile, checked again on the open descriptor, and read up to a size limit.
// Text must be UTF-8 (a leading byte-order mark is dropped); anything else fails only that
// element, with a code.

import { constants, closeSync, fstatSync, openSync, readSync } from "node:fs";
import { lstat, open, realpath } from "node:fs/promises";
import { sep } from "node:path";
import { CodedError } from "../shared/coded-error.js";

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

function inside(path: string, root: string): boolean {
  return path === root || path.startsWith(root.endsWith(sep) ? root : root + sep);
}

export interface UntrustedRead {
  /** The folder the file (or what a symlink points at) must be in: the instance's workspace. */
  workspace: string;
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
  let st;
  try {
    st = await lstat(path);
  } catch (err) {
    const code = (err as NodeJS.ErrnoException).code;
    if (code === "ENOENT" || code === "ENOTDIR") return undefined;
    throw reject(`cannot be read (${code})`, "leave a readable regular file");
  }
  let real = path;
  // The engine's own path ($SWITCHYARD_OUTPUT) is read where it is unless it is a symlink; a
  // path inside the workspace may pass through symlinked folders, so it is always resolved.
  if (st.isSymbolicLink() || !o.ownPath) {
    try {
      real = await realpath(path);
    } catch {
      throw reject("is a symbolic link to nothing", "write a regular file instead");
    }
    const root = await realpath(o.workspace).catch(() => o.workspace);
    if (!inside(real, root))
      throw reject(
        `resolves to ${real}, outside the instance's workspace`,
        "the engine reads only files inside the workspace; copy the file there instead of linking to it",
      );
  }
  let fh;
  try {
    // O_NONBLOCK: a FIFO swapped in after the checks cannot block the engine; O_NOFOLLOW: nor can
    // a symlink swapped in for the resolved path.
    fh = await open(real, constants.O_RDONLY | constants.O_NONBLOCK | constants.O_NOFOLLOW);
  } catch (err) {
    const code = (err as NodeJS.ErrnoException).code;
    if (code === "ENOENT") return undefined;
    throw reject(`cannot be opened (${code})`, "leave a readable regular file");
  }
  try {
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

/**
 * A configuration file's text, read synchronously: only a regular file (a symlink to one is
 * fine: the person chose it), opened non-blocking, at most `limit` bytes, UTF-8. Throws an Error
 * whose `code` is a short reason ("ENOENT", "EISDIR", "ENOTREG", "EFBIG", "EILSEQ").
 */
export function readRegularFileSync(path: string, limit: number): string {
  const fd = openSync(path, constants.O_RDONLY | constants.O_NONBLOCK);
  try {
    const st = fstatSync(fd);
    if (st.isDirectory()) throw Object.assign(new Error("is a folder"), { code: "EISDIR" });
    if (!st.isFile()) throw Object.assign(new Error(`is ${kindOf(st)}`), { code: "ENOTREG" });
    if (st.size > limit) throw Object.assign(new Error(`is larger than ${megabytes(limit)}`), { code: "EFBIG" });
    const buf = Buffer.allocUnsafe(st.size + 1);
    let n = 0;
    while (n < buf.length) {
      const r = readSync(fd, buf, n, buf.length - n, n);
      if (r === 0) break;
      n += r;
    }
    if (n > limit) throw Object.assign(new Error(`is larger than ${megabytes(limit)}`), { code: "EFBIG" });
    try {
      return decoder.decode(buf.subarray(0, n));
    } catch {
      throw Object.assign(new Error("is not valid UTF-8 text"), { code: "EILSEQ" });
    }
  } finally {
    closeSync(fd);
  }
}
