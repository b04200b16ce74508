// Reading the files an instance leaves behind, on real files, folders, FIFOs, sockets and symbolic
// links in a temporary folder: the size limit exactly met and one byte past it, the limit's wording
// (a whole number of MB, else bytes), a path that only shares its first letters with the workspace,
// a workspace reached through a link, and every way the workspace folder itself can be replaced.
// The expected messages are written out by hand from the rules in the reader's header comment.
// The checks that differ where there is no /proc run twice: once as on Linux, once with a copy of
// the reader that finds no /proc (as on macOS). The second locks (a file or folder swapped between
// a check and the open) are tested through untrusted-file-seams.ts, which does the swap on the real
// file system exactly between the two system calls; and every read must close what it opened.

import { test } from "node:test";
import assert from "node:assert/strict";
import { spawnSync } from "node:child_process";
import {
  closeSync,
  existsSync,
  lstatSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readSync,
  realpathSync,
  renameSync,
  rmSync,
  symlinkSync,
  writeFileSync,
} from "node:fs";
import { createServer } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import * as withProc from "../../src/run/process/untrusted-file.js";
import {
  DEFAULT_MAX_FILE_BYTES,
  openBeneathSync,
  pinWorkspace,
  readFolderBeneathSync,
  readRegularFileSync,
  readUntrustedFile,
  UntrustedFileError,
  workspaceReplaced,
} from "../../src/run/process/untrusted-file.js";
import { openDescriptors, readerWithoutProc, withHooks } from "./untrusted-file-seams.js";

const noProc = await readerWithoutProc();
/** The reader as on Linux, and a copy of it that finds no /proc: the name's suffix, the module. */
const readers = [
  ["", withProc],
  [" (without /proc)", noProc],
] as const;
const hasProc = existsSync("/proc/self/fd");

/** A fresh folder (its real path: the temp folder may be reached through a link) with a workspace `ws` in it. */
function scratch(): { top: string; ws: string } {
  const top = realpathSync(mkdtempSync(join(tmpdir(), "sy-untrusted-file-")));
  const ws = join(top, "ws");
  mkdirSync(ws);
  return { top, ws };
}

const mkfifo = (path: string): void => {
  const r = spawnSync("mkfifo", [path]);
  assert.equal(r.status, 0, `mkfifo failed: ${String(r.stderr)}`);
};

/** An assert.rejects validator: an UntrustedFileError with exactly this code and message. */
const coded =
  (code: string, message: string) =>
  (err: unknown): boolean => {
    const ours = err instanceof UntrustedFileError || err instanceof noProc.UntrustedFileError;
    assert.ok(ours && err instanceof Error && "code" in err, `not an UntrustedFileError: ${String(err)}`);
    assert.deepEqual({ code: err.code, message: err.message }, { code, message });
    return true;
  };
const rejected = (message: string) => coded("file-rejected", message);
const tooBig = (size: number, limit: string) =>
  rejected(`NOTE.txt is ${size} bytes, more than the limit of ${limit}; write less, or raise the limit with SWITCHYARD_MAX_FILE_MB`);
const outside = (real: string) =>
  rejected(
    `NOTE.txt resolves to ${real}, outside the instance's workspace; the engine reads only files inside the workspace; copy the file there instead of linking to it`,
  );

test("T-1: a file of exactly the limit is read whole; one byte more is refused, naming its size and the limit", async () => {
  const { top, ws } = scratch();
  try {
    const o = { workspace: ws, limit: 10, what: "NOTE.txt" };
    writeFileSync(join(ws, "ten"), "0123456789");
    assert.equal(await readUntrustedFile(join(ws, "ten"), o), "0123456789");
    writeFileSync(join(ws, "eleven"), "0123456789A");
    await assert.rejects(readUntrustedFile(join(ws, "eleven"), o), tooBig(11, "10 bytes"));
    writeFileSync(join(ws, "empty"), "");
    assert.equal(await readUntrustedFile(join(ws, "empty"), o), "");
    // A limit of a whole number of MB is said in MB; 1 MB is 1048576 bytes, so 1048577 is over it.
    const mb = { workspace: ws, limit: 1048576, what: "NOTE.txt" };
    writeFileSync(join(ws, "mb"), Buffer.alloc(1048576, 0x61));
    assert.equal((await readUntrustedFile(join(ws, "mb"), mb))?.length, 1048576);
    writeFileSync(join(ws, "mb1"), Buffer.alloc(1048577, 0x61));
    await assert.rejects(readUntrustedFile(join(ws, "mb1"), mb), tooBig(1048577, "1 MB"));
    await assert.rejects(readUntrustedFile(join(ws, "mb1"), { ...mb, limit: 1048575 }), tooBig(1048577, "1048575 bytes"));
    // A multi-byte file read across several reads of the buffer comes back whole.
    const text = "é✓".repeat(50000);
    writeFileSync(join(ws, "utf8"), text);
    assert.equal(await readUntrustedFile(join(ws, "utf8"), { ...mb, limit: 16 * 1048576 }), text);
  } finally {
    rmSync(top, { recursive: true, force: true });
  }
});

test("T-1: text is UTF-8: a leading byte-order mark is dropped, an invalid byte is output-invalid", async () => {
  const { top, ws } = scratch();
  try {
    const o = { workspace: ws, limit: 100, what: "NOTE.txt" };
    writeFileSync(join(ws, "bom"), Buffer.from([0xef, 0xbb, 0xbf, 0x68, 0x69]));
    assert.equal(await readUntrustedFile(join(ws, "bom"), o), "hi");
    writeFileSync(join(ws, "latin1"), Buffer.from([0x63, 0x61, 0x66, 0xe9]));
    await assert.rejects(
      readUntrustedFile(join(ws, "latin1"), o),
      coded("output-invalid", "NOTE.txt is not valid UTF-8 text; write UTF-8 (T-1)"),
    );
  } finally {
    rmSync(top, { recursive: true, force: true });
  }
});

test("no file is undefined (also below a file); a FIFO, a folder, a socket are refused without blocking", async () => {
  const { top, ws } = scratch();
  try {
    const o = { workspace: ws, limit: 100, what: "NOTE.txt" };
    assert.equal(await readUntrustedFile(join(ws, "absent"), o), undefined);
    // A name longer than a folder entry can be is not "no file": it cannot be looked at.
    await assert.rejects(
      readUntrustedFile(join(ws, "n".repeat(300)), o),
      rejected("NOTE.txt cannot be read (ENAMETOOLONG); leave a readable regular file"),
    );
    writeFileSync(join(ws, "file"), "x");
    assert.equal(await readUntrustedFile(join(ws, "file", "below"), o), undefined);
    mkfifo(join(ws, "fifo"));
    await assert.rejects(readUntrustedFile(join(ws, "fifo"), o), rejected("NOTE.txt is a FIFO; write a regular file"));
    mkdirSync(join(ws, "dir"));
    await assert.rejects(readUntrustedFile(join(ws, "dir"), o), rejected("NOTE.txt is a folder; write a regular file"));
    const server = createServer();
    await new Promise<void>((done) => server.listen(join(ws, "sock"), done));
    try {
      await assert.rejects(
        readUntrustedFile(join(ws, "sock"), o),
        rejected("NOTE.txt cannot be opened (ENXIO); leave a readable regular file"),
      );
    } finally {
      await new Promise((done) => server.close(done));
    }
  } finally {
    rmSync(top, { recursive: true, force: true });
  }
});

for (const [where, r] of readers)
  test(`a symbolic link is followed only to a file inside the workspace, never to a folder that merely starts with its name${where}`, async () => {
    const { top, ws } = scratch();
    try {
      const o = { workspace: ws, limit: 100, what: "NOTE.txt" };
      writeFileSync(join(ws, "real.txt"), "inside");
      symlinkSync("real.txt", join(ws, "link"));
      assert.equal(await r.readUntrustedFile(join(ws, "link"), o), "inside");
      symlinkSync("/dev/null", join(ws, "null"));
      await assert.rejects(r.readUntrustedFile(join(ws, "null"), o), outside("/dev/null"));
      // ws2 shares "ws" as the first letters of its path, but is not inside ws.
      mkdirSync(join(top, "ws2"));
      writeFileSync(join(top, "ws2", "secret"), "outside");
      symlinkSync("../ws2/secret", join(ws, "sibling"));
      await assert.rejects(r.readUntrustedFile(join(ws, "sibling"), o), outside(join(top, "ws2", "secret")));
      symlinkSync("nowhere", join(ws, "dangling"));
      await assert.rejects(
        r.readUntrustedFile(join(ws, "dangling"), o),
        rejected("NOTE.txt is a symbolic link to nothing; write a regular file instead"),
      );
      // The workspace itself is the bound, not a file in it: a link to the workspace folder is a folder.
      symlinkSync(".", join(ws, "self"));
      await assert.rejects(r.readUntrustedFile(join(ws, "self"), o), rejected("NOTE.txt is a folder; write a regular file"));
    } finally {
      rmSync(top, { recursive: true, force: true });
    }
  });

for (const [where, r] of readers)
  test(`the workspace's real path is the bound: named through a link it still holds its files; a missing one holds nothing${where}`, async () => {
    const { top, ws } = scratch();
    try {
      writeFileSync(join(ws, "f"), "via link");
      symlinkSync("ws", join(top, "ws-link"));
      const viaLink = { workspace: join(top, "ws-link"), limit: 100, what: "NOTE.txt" };
      assert.equal(await r.readUntrustedFile(join(top, "ws-link", "f"), viaLink), "via link");
      // A workspace path that does not exist bounds nothing: a file elsewhere is outside it.
      const missing = { workspace: join(top, "gone"), limit: 100, what: "NOTE.txt" };
      await assert.rejects(r.readUntrustedFile(join(ws, "f"), missing), outside(join(ws, "f")));
      // The root folder as the workspace holds every file (its path already ends with "/").
      assert.equal(await r.readUntrustedFile(join(ws, "f"), { workspace: "/", limit: 100, what: "NOTE.txt" }), "via link");
      // A pinned workspace's real path wins over the path given.
      const pinned = { workspace: join(top, "gone"), root: r.pinWorkspace(ws), limit: 100, what: "NOTE.txt" };
      assert.equal(await r.readUntrustedFile(join(ws, "f"), pinned), "via link");
    } finally {
      rmSync(top, { recursive: true, force: true });
    }
  });

test("the engine's own path ($SWITCHYARD_OUTPUT) is read where it is, outside the workspace, unless it is a symbolic link", async () => {
  const { top, ws } = scratch();
  try {
    const own = { workspace: ws, limit: 100, what: "NOTE.txt", ownPath: true };
    writeFileSync(join(top, "output.json"), "{}");
    assert.equal(await readUntrustedFile(join(top, "output.json"), own), "{}");
    symlinkSync("/dev/null", join(top, "linked.json"));
    await assert.rejects(readUntrustedFile(join(top, "linked.json"), own), outside("/dev/null"));
    writeFileSync(join(ws, "in.json"), "[]");
    symlinkSync(join(ws, "in.json"), join(top, "to-ws.json"));
    assert.equal(await readUntrustedFile(join(top, "to-ws.json"), own), "[]");
  } finally {
    rmSync(top, { recursive: true, force: true });
  }
});

test("a file that grows past the limit while it is read is refused (a /proc file: size 0 when looked at, bytes when read)", async (t) => {
  if (!existsSync("/proc/self/status")) return t.skip("no /proc");
  const own = { workspace: "/proc/self", limit: 0, what: "NOTE.txt", ownPath: true };
  await assert.rejects(
    readUntrustedFile("/proc/self/status", own),
    rejected("NOTE.txt grew past the limit of 0 MB while it was read; write less, or raise the limit with SWITCHYARD_MAX_FILE_MB"),
  );
  assert.throws(() => readRegularFileSync("/proc/self/status", 0), { code: "EFBIG", message: "is larger than 0 MB" });
});

for (const [where, r] of readers)
  test(`the workspace folder replaced while the instance ran: by a link, a file, a socket, another folder, a link above it${where}`, async () => {
    const { top, ws } = scratch();
    try {
      const root = r.pinWorkspace(ws);
      assert.deepEqual([root.path, root.real], [ws, ws]);
      assert.equal(await r.workspaceReplaced(root), undefined);
      await r.checkWorkspace(root);
      const away = join(top, "away");
      renameSync(ws, away);
      assert.equal(await r.workspaceReplaced(root), undefined, "a removed workspace holds nothing to read");
      symlinkSync("/etc", ws);
      assert.equal(await r.workspaceReplaced(root), "was replaced by a symbolic link to /etc");
      await assert.rejects(
        r.checkWorkspace(root),
        coded(
          "workspace-replaced",
          `the instance's workspace folder ${ws} was replaced by a symbolic link to /etc while the instance ran; nothing is read from it. A command or agent must leave its workspace folder in place (work inside it)`,
        ),
      );
      await assert.rejects(r.readUntrustedFile(join(ws, "passwd"), { workspace: ws, root, limit: 100, what: "NOTE.txt" }), {
        code: "workspace-replaced",
      });
      rmSync(ws);
      writeFileSync(ws, "a file");
      assert.equal(await r.workspaceReplaced(root), "was replaced by not a regular file");
      rmSync(ws);
      mkfifo(ws);
      assert.equal(await r.workspaceReplaced(root), "was replaced by a FIFO");
      rmSync(ws);
      const server = createServer();
      await new Promise<void>((done) => server.listen(ws, done));
      assert.equal(await r.workspaceReplaced(root), "was replaced by a socket");
      await new Promise((done) => server.close(done));
      rmSync(ws, { force: true });
      // The original still exists (moved away), so the new folder cannot reuse its inode.
      mkdirSync(ws);
      assert.equal(await r.workspaceReplaced(root), "was replaced by another folder");
      rmSync(ws, { recursive: true });
      renameSync(away, ws);
      assert.equal(await r.workspaceReplaced(root), undefined, "the very folder put back is the workspace again");
      // A folder above the workspace swapped for a link to where the workspace was moved.
      const parent = join(top, "p");
      mkdirSync(join(parent, "ws"), { recursive: true });
      const deep = r.pinWorkspace(join(parent, "ws"));
      renameSync(parent, join(top, "q"));
      symlinkSync("q", parent);
      assert.equal(await r.workspaceReplaced(deep), `now resolves to ${join(top, "q", "ws")} (a folder above it was replaced by a link)`);
      // A folder above it replaced by a file: the path cannot even be looked at.
      rmSync(parent);
      writeFileSync(parent, "");
      assert.equal(await r.workspaceReplaced(deep), "cannot be looked at (ENOTDIR)");
    } finally {
      rmSync(top, { recursive: true, force: true });
    }
  });

for (const [where, r] of readers)
  test(`openBeneathSync: each part a real folder, no link, no '', '.', '..', '/' or NUL; the last a file (or a folder when asked)${where}`, () => {
    const { top, ws } = scratch();
    try {
      mkdirSync(join(ws, "a", "b"), { recursive: true });
      writeFileSync(join(ws, "a", "b", "f.txt"), "hello");
      symlinkSync("a", join(ws, "link"));
      symlinkSync("b/f.txt", join(ws, "a", "flink"));
      mkfifo(join(ws, "a", "fifo"));
      const opened = r.openBeneathSync(ws, ["a", "b", "f.txt"]);
      assert.ok(opened);
      try {
        assert.equal(opened.path, join(ws, "a", "b", "f.txt"));
        assert.equal(opened.st.size, 5);
        const buf = Buffer.alloc(5);
        readSync(opened.fd, buf, 0, 5, 0);
        assert.equal(buf.toString(), "hello");
      } finally {
        closeSync(opened.fd);
      }
      // The base may itself be named through a link (it is trusted); the path is its real path.
      symlinkSync("ws", join(top, "ws-link"));
      const viaBase = r.openBeneathSync(join(top, "ws-link"), ["a", "b", "f.txt"]);
      assert.equal(viaBase?.path, join(ws, "a", "b", "f.txt"));
      if (viaBase) closeSync(viaBase.fd);
      const folder = r.openBeneathSync(ws, ["a", "b"], true);
      assert.ok(folder?.st.isDirectory());
      if (folder) closeSync(folder.fd);
      for (const parts of [
        ["a", "b"],
        ["link", "b", "f.txt"],
        ["a", "flink"],
        ["a", "fifo"],
        ["a", "b", "f.txt", "x"],
        ["a", "missing"],
        [],
        ["", "a", "b", "f.txt"],
        [".", "a", "b", "f.txt"],
        ["a", "..", "a", "b", "f.txt"],
        ["a/b", "f.txt"],
        ["a", "b", "f.txt\0"],
      ])
        assert.equal(r.openBeneathSync(ws, parts), undefined, JSON.stringify(parts));
      assert.equal(r.openBeneathSync(ws, ["a", "b", "f.txt"], true), undefined);
      assert.equal(r.openBeneathSync(ws, [], true), undefined);
      assert.equal(r.openBeneathSync(join(top, "absent"), ["a"]), undefined);
    } finally {
      rmSync(top, { recursive: true, force: true });
    }
  });

for (const [where, r] of readers)
  test(`readFolderBeneathSync lists a folder's entries by name, links as links; a link or a file is no folder to list${where}`, () => {
    const { top, ws } = scratch();
    try {
      mkdirSync(join(ws, "d", "sub"), { recursive: true });
      writeFileSync(join(ws, "d", "b.txt"), "b");
      writeFileSync(join(ws, "d", "a.txt"), "aa");
      symlinkSync("/etc", join(ws, "d", "c-link"));
      symlinkSync("d", join(ws, "dlink"));
      const list = r.readFolderBeneathSync(ws, ["d"]);
      assert.deepEqual(
        list?.map((e) => [e.name, e.st.isFile(), e.st.isDirectory(), e.st.isSymbolicLink(), e.st.isFile() ? e.st.size : -1]),
        [
          ["a.txt", true, false, false, 2],
          ["b.txt", true, false, false, 1],
          ["c-link", false, false, true, -1],
          ["sub", false, true, false, -1],
        ],
      );
      assert.deepEqual(r.readFolderBeneathSync(ws, ["d", "sub"]), []);
      assert.equal(r.readFolderBeneathSync(ws, ["dlink"]), undefined);
      assert.equal(r.readFolderBeneathSync(ws, ["d", "a.txt"]), undefined);
      assert.equal(r.readFolderBeneathSync(ws, ["none"]), undefined);
    } finally {
      rmSync(top, { recursive: true, force: true });
    }
  });

test("readRegularFileSync: exactly the limit read, one byte more EFBIG; a folder, a FIFO, a device, bad UTF-8 each coded", () => {
  const { top, ws } = scratch();
  try {
    writeFileSync(join(ws, "ten"), "0123456789");
    assert.equal(readRegularFileSync(join(ws, "ten"), 10), "0123456789");
    assert.throws(() => readRegularFileSync(join(ws, "ten"), 9), { code: "EFBIG", message: "is larger than 9 bytes" });
    writeFileSync(join(ws, "mb1"), Buffer.alloc(2 * 1048576 + 1, 0x61));
    assert.throws(() => readRegularFileSync(join(ws, "mb1"), 2 * 1048576), { code: "EFBIG", message: "is larger than 2 MB" });
    assert.equal(readRegularFileSync(join(ws, "mb1"), 2 * 1048576 + 1).length, 2 * 1048576 + 1);
    writeFileSync(join(ws, "bom"), Buffer.from([0xef, 0xbb, 0xbf, 0x6f, 0x6b]));
    assert.equal(readRegularFileSync(join(ws, "bom"), 5), "ok");
    writeFileSync(join(ws, "bad"), Buffer.from([0x61, 0xc3]));
    assert.throws(() => readRegularFileSync(join(ws, "bad"), 100), { code: "EILSEQ", message: "is not valid UTF-8 text" });
    assert.throws(() => readRegularFileSync(ws, 100), { code: "EISDIR", message: "is a folder" });
    mkfifo(join(ws, "fifo"));
    assert.throws(() => readRegularFileSync(join(ws, "fifo"), 100), { code: "ENOTREG", message: "is a FIFO" });
    assert.throws(() => readRegularFileSync("/dev/null", 100), { code: "ENOTREG", message: "is a device" });
    // A block device too (a disk), where the machine has one to look at.
    const disk = readdirSync("/dev")
      .map((name) => join("/dev", name))
      .find((path) => lstatSync(path).isBlockDevice());
    if (disk) assert.throws(() => readRegularFileSync(disk, 100), { code: "ENOTREG", message: "is a device" });
    assert.throws(() => readRegularFileSync(join(ws, "absent"), 100), { code: "ENOENT" });
    // A link to a regular file is fine: the person chose it.
    symlinkSync("ten", join(ws, "link"));
    assert.equal(readRegularFileSync(join(ws, "link"), 10), "0123456789");
  } finally {
    rmSync(top, { recursive: true, force: true });
  }
});

test("T-1: the default limit on one file is 16 MB: 16 777 216 bytes (16 × 2^20)", () => {
  assert.equal(DEFAULT_MAX_FILE_BYTES, 16_777_216);
});

test("readFolderBeneathSync lists names in JavaScript's order (UTF-16 code units), not the file system's (UTF-8 bytes)", () => {
  const { top, ws } = scratch();
  try {
    // "\u{1F600}" is the code units D83D DE00 and the bytes F0 9F 98 80; "\uFF21" (a full-width A)
    // is FF21 and EF BC A1: by code units the emoji comes first, by bytes (what readdir gives) last.
    mkdirSync(join(ws, "d"));
    for (const name of ["\uFF21", "\u{1F600}", "a"]) writeFileSync(join(ws, "d", name), "");
    assert.deepEqual(
      readFolderBeneathSync(ws, ["d"])?.map((e) => e.name),
      ["a", "\u{1F600}", "\uFF21"],
    );
  } finally {
    rmSync(top, { recursive: true, force: true });
  }
});

test("every read closes what it opened, whether it reads or refuses", { skip: !hasProc && "no /proc" }, async () => {
  const { top, ws } = scratch();
  // The count of this process's open descriptors, the same after `f` as before it.
  const closes = async (what: string, f: () => unknown): Promise<void> => {
    const before = openDescriptors();
    try {
      await f();
    } catch {
      // refusals are checked elsewhere; here only what they leave open
    }
    assert.equal(openDescriptors(), before, what);
  };
  try {
    const o = { workspace: ws, limit: 10, what: "NOTE.txt" };
    writeFileSync(join(ws, "ten"), "0123456789");
    writeFileSync(join(ws, "eleven"), "0123456789A");
    mkfifo(join(ws, "fifo"));
    mkdirSync(join(ws, "d"));
    await closes("a file read", async () => assert.equal(await readUntrustedFile(join(ws, "ten"), o), "0123456789"));
    await closes("a file too large", () => readUntrustedFile(join(ws, "eleven"), o));
    await closes("a FIFO", () => readUntrustedFile(join(ws, "fifo"), o));
    await closes("a workspace pinned", () => pinWorkspace(ws));
    await closes("a workspace checked", async () => assert.equal(await workspaceReplaced(pinWorkspace(ws)), undefined));
    await closes("a folder listed", () => assert.deepEqual(readFolderBeneathSync(ws, ["d"]), []));
    await closes("a configuration file read", () => assert.equal(readRegularFileSync(join(ws, "ten"), 10), "0123456789"));
    await closes("a configuration file too large", () => readRegularFileSync(join(ws, "ten"), 9));
  } finally {
    rmSync(top, { recursive: true, force: true });
  }
});

test(
  "on Linux the workspace check is one open: a folder swapped in for it during the check is caught",
  { skip: !hasProc && "no /proc" },
  async () => {
    const { top, ws } = scratch();
    try {
      const root = pinWorkspace(ws);
      const away = join(top, "away");
      // Right after the check's first look at the path (whichever call that is), the workspace moves
      // away and another folder takes its place. What was opened is the moved folder: the kernel
      // names it by where it is now.
      const swap = (): void => {
        renameSync(ws, away);
        mkdirSync(ws);
      };
      const why = await withHooks(
        [
          { mod: "fs", fn: "openSync", path: ws, when: "after", swap },
          { mod: "fs", fn: "lstatSync", path: ws, when: "after", swap },
        ],
        () => workspaceReplaced(root),
      );
      assert.equal(why, `now resolves to ${away} (a folder above it was replaced by a link)`);
    } finally {
      rmSync(top, { recursive: true, force: true });
    }
  },
);

test("without /proc a workspace that vanishes between its look and its real path resolves to nothing", async () => {
  const { top, ws } = scratch();
  try {
    const root = noProc.pinWorkspace(ws);
    const swap = (): void => renameSync(ws, join(top, "away"));
    const why = await withHooks([{ mod: "fs", fn: "lstatSync", path: ws, when: "after", swap }], () => noProc.workspaceReplaced(root));
    assert.equal(why, "now resolves to nothing (a folder above it was replaced by a link)");
  } finally {
    rmSync(top, { recursive: true, force: true });
  }
});

for (const [where, r] of readers)
  test(`a workspace replaced by a link that is gone before it can be read names an unreadable target${where}`, async () => {
    const { top, ws } = scratch();
    try {
      const root = r.pinWorkspace(ws);
      renameSync(ws, join(top, "away"));
      symlinkSync("/etc", ws);
      // Right after the link is looked at, a plain file takes its place: readlink fails.
      const swap = (): void => {
        rmSync(ws);
        writeFileSync(ws, "");
      };
      const why = await withHooks([{ mod: "fs", fn: "lstatSync", path: ws, when: "after", swap }], () => r.workspaceReplaced(root));
      assert.equal(why, "was replaced by a symbolic link to an unreadable target");
    } finally {
      rmSync(top, { recursive: true, force: true });
    }
  });

for (const [where, r] of readers)
  test(`a file removed between the checks and the open is no file, not a refusal${where}`, async () => {
    const { top, ws } = scratch();
    try {
      const file = join(ws, "f");
      writeFileSync(file, "x");
      const swap = (): void => rmSync(file);
      const got = await withHooks([{ mod: "fs/promises", fn: "open", path: file, when: "before", swap }], () =>
        r.readUntrustedFile(file, { workspace: ws, limit: 100, what: "NOTE.txt" }),
      );
      assert.equal(got, undefined);
    } finally {
      rmSync(top, { recursive: true, force: true });
    }
  });

test(
  "on Linux a folder on the way swapped for a link out of the workspace just before the open is caught",
  { skip: !hasProc && "no /proc" },
  async () => {
    const { top, ws } = scratch();
    try {
      mkdirSync(join(ws, "sub"));
      writeFileSync(join(ws, "sub", "f.txt"), "inside");
      mkdirSync(join(top, "out"));
      writeFileSync(join(top, "out", "f.txt"), "outside");
      const file = join(ws, "sub", "f.txt");
      // After the real path was checked, sub becomes a link to a folder outside the workspace:
      // O_NOFOLLOW guards only the last part, so the open follows it.
      const swap = (): void => {
        renameSync(join(ws, "sub"), join(top, "sub-away"));
        symlinkSync(join(top, "out"), join(ws, "sub"));
      };
      const o = { workspace: ws, root: pinWorkspace(ws), limit: 100, what: "NOTE.txt" };
      await assert.rejects(
        withHooks([{ mod: "fs/promises", fn: "open", path: file, when: "before", swap }], () => readUntrustedFile(file, o)),
        outside(join(top, "out", "f.txt")),
      );
    } finally {
      rmSync(top, { recursive: true, force: true });
    }
  },
);

for (const [where, r] of readers)
  test(`openBeneathSync refuses a file replaced by another between its look and its open, and closes it${where}`, async (t) => {
    const { top, ws } = scratch();
    try {
      mkdirSync(join(ws, "a"));
      const file = join(ws, "a", "f.txt");
      writeFileSync(file, "checked");
      // The other file exists before the first is replaced, so it cannot reuse the first's inode.
      writeFileSync(join(ws, "a", "other"), "swapped in");
      const swap = (): void => renameSync(join(ws, "a", "other"), file);
      const before = hasProc ? openDescriptors() : 0;
      const got = await withHooks([{ mod: "fs", fn: "openSync", path: file, when: "before", swap }], () =>
        r.openBeneathSync(ws, ["a", "f.txt"]),
      );
      assert.equal(got, undefined);
      if (hasProc) assert.equal(openDescriptors(), before, "the refused descriptor is closed");
      else t.diagnostic("no /proc: descriptors not counted");
    } finally {
      rmSync(top, { recursive: true, force: true });
    }
  });

test(
  "on Linux openBeneathSync refuses a folder on the way swapped for a link just before the open (the same file)",
  { skip: !hasProc && "no /proc" },
  async () => {
    const { top, ws } = scratch();
    try {
      mkdirSync(join(ws, "a", "b"), { recursive: true });
      const file = join(ws, "a", "b", "f.txt");
      writeFileSync(file, "hello");
      // The very file is opened (its device and inode match), but through a link: /proc names it
      // by its place outside the workspace.
      const swap = (): void => {
        renameSync(join(ws, "a"), join(top, "a-away"));
        symlinkSync(join(top, "a-away"), join(ws, "a"));
      };
      const before = openDescriptors();
      const got = await withHooks([{ mod: "fs", fn: "openSync", path: file, when: "before", swap }], () =>
        openBeneathSync(ws, ["a", "b", "f.txt"]),
      );
      assert.equal(got, undefined);
      assert.equal(openDescriptors(), before, "the refused descriptor is closed");
    } finally {
      rmSync(top, { recursive: true, force: true });
    }
  },
);

for (const [where, r] of readers)
  test(`readFolderBeneathSync leaves out an entry removed between the listing and its look${where}`, async () => {
    const { top, ws } = scratch();
    try {
      mkdirSync(join(ws, "d"));
      for (const name of ["a.txt", "b.txt", "c.txt"]) writeFileSync(join(ws, "d", name), name);
      // The listing is read through /proc/self/fd/N on Linux, through the path without /proc.
      const listing = (p: unknown): boolean => typeof p === "string" && (p === join(ws, "d") || p.startsWith("/proc/self/fd/"));
      const swap = (): void => rmSync(join(ws, "d", "b.txt"));
      const list = await withHooks([{ mod: "fs", fn: "readdirSync", path: listing, when: "after", swap }], () =>
        r.readFolderBeneathSync(ws, ["d"]),
      );
      assert.deepEqual(
        list?.map((e) => e.name),
        ["a.txt", "c.txt"],
      );
    } finally {
      rmSync(top, { recursive: true, force: true });
    }
  });

test("readFolderBeneathSync, the folder moved away between its open and its listing: on Linux the opened folder is listed; without /proc nothing", async () => {
  for (const [where, r] of readers) {
    const { top, ws } = scratch();
    try {
      mkdirSync(join(ws, "d"));
      writeFileSync(join(ws, "d", "a.txt"), "a");
      // Another (empty) folder takes its place: what the path names now is not what was opened.
      const swap = (): void => {
        renameSync(join(ws, "d"), join(top, "moved"));
        mkdirSync(join(ws, "d"));
      };
      const listing = (p: unknown): boolean => typeof p === "string" && (p === join(ws, "d") || p.startsWith("/proc/self/fd/"));
      const list = await withHooks([{ mod: "fs", fn: "readdirSync", path: listing, when: "before", swap }], () =>
        r.readFolderBeneathSync(ws, ["d"]),
      );
      if (r === noProc) assert.equal(list, undefined, where);
      else if (hasProc)
        assert.deepEqual(
          list?.map((e) => e.name),
          ["a.txt"],
          where,
        );
    } finally {
      rmSync(top, { recursive: true, force: true });
    }
  }
});
