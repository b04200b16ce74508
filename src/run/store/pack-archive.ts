// The pack snapshot as one archive, for stores shared by many machines: a worker that has
// no access to the coordinator's state folder fetches the archive from the store and unpacks it
// into its own. The format is ours and simple: gzip of, per file, its relative path, its mode and
// its bytes, each length-prefixed. Unpacking refuses any path that would leave the folder.

import { chmodSync, mkdirSync, readdirSync, readFileSync, statSync, writeFileSync } from "node:fs";
import { dirname, join, normalize, relative, sep } from "node:path";
import { gunzipSync, gzipSync } from "node:zlib";

function files(root: string, dir: string, out: string[]): void {
  for (const name of readdirSync(dir).sort()) {
    const p = join(dir, name);
    const st = statSync(p);
    if (st.isDirectory()) files(root, p, out);
    else if (st.isFile()) out.push(relative(root, p));
  }
}

/** Archives the snapshot folder `dir` (already bounded to 50 MB by snapshot.ts). */
export function archivePack(dir: string): Buffer {
  const rels: string[] = [];
  files(dir, dir, rels);
  const parts: Buffer[] = [];
  for (const rel of rels) {
    const p = join(dir, rel);
    const body = readFileSync(p);
    const name = Buffer.from(rel.split(sep).join("/"));
    const head = Buffer.alloc(12);
    head.writeUInt32BE(name.length, 0);
    head.writeUInt32BE(statSync(p).mode & 0o777, 4);
    head.writeUInt32BE(body.length, 8);
    parts.push(head, name, body);
  }
  return gzipSync(Buffer.concat(parts));
}

/** Unpacks an archive made by archivePack into the folder `dest`. */
export function extractPack(archive: Buffer, dest: string): void {
  const buf = gunzipSync(archive);
  let at = 0;
  while (at < buf.length) {
    if (at + 12 > buf.length) throw new Error("the pack archive is truncated");
    const nameLen = buf.readUInt32BE(at);
    const mode = buf.readUInt32BE(at + 4);
    const size = buf.readUInt32BE(at + 8);
    at += 12;
    const rel = buf.subarray(at, at + nameLen).toString("utf8");
    at += nameLen;
    const body = buf.subarray(at, at + size);
    at += size;
    if (body.length !== size) throw new Error("the pack archive is truncated");
    const clean = normalize(rel);
    if (clean.startsWith("..") || clean.startsWith("/") || clean.includes("\0"))
      throw new Error(`the pack archive holds a path outside the pack: ${rel}`);
    const target = join(dest, clean);
    mkdirSync(dirname(target), { recursive: true });
    writeFileSync(target, body);
    chmodSync(target, mode);
  }
}
