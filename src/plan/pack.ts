// Packs (L-1, L-2): finding the playbook a path names, the pack's source files, their digest,
// pack.toml, and resolving `load` paths inside the pack (L-3).

import { createHash } from "node:crypto";
import { existsSync, readdirSync, readFileSync, realpathSync, statSync } from "node:fs";
import { basename, dirname, isAbsolute, join, posix, relative, resolve, sep } from "node:path";
import { parse, TomlError } from "smol-toml";
import { errorAt, nearestName, type Diagnostic } from "../lang/diagnostic.js";

/** What a path given to the compiler names: a pack folder, a .star playbook, or a .toml plan. */
export type PathKind = "pack" | "star" | "plan";

/** A resolved compile target: its kind, the pack root, and the playbook file when one was named. */
export interface PackTarget {
  kind: PathKind;
  /** Absolute pack root (the folder for a pack, the file's folder for .star / .toml). */
  root: string;
  /** Absolute path of the playbook (.star) or plan (.toml) file. */
  file: string;
  /** Playbook name: the file stem (L-1). */
  playbook: string;
}

/** The entry beside a missing path whose name is nearest to it (a mistyped pack or playbook), if any. */
function nearestSibling(abs: string): string | undefined {
  let names: string[];
  try {
    names = readdirSync(dirname(abs)).filter((n) => !n.startsWith("."));
  } catch {
    return undefined;
  }
  return nearestName(basename(abs), names);
}

/** Resolves what a user-given path names (L-2); diagnostics say why it names nothing usable. */
export function resolveTarget(path: string, playbook?: string): { target?: PackTarget; diagnostics: Diagnostic[] } {
  const abs = resolve(path);
  if (!existsSync(abs)) {
    const near = nearestSibling(abs);
    const hint = near ? `did you mean ${join(dirname(path), near)}?` : "give a pack folder, a .star playbook or a compiled plan .toml";
    return { diagnostics: [errorAt("pack-not-found", `${path} does not exist`, undefined, hint)] };
  }
  const st = statSync(abs);
  if (st.isDirectory()) {
    const books = playbooksIn(abs);
    const [only, ...others] = books;
    if (only === undefined)
      return {
        diagnostics: [
          errorAt(
            "no-playbook",
            `${path} has no playbook (no *.star file at its root)`,
            undefined,
            "add a playbook such as main.star at the pack root; lib/ holds modules",
          ),
        ],
      };
    let name = playbook;
    if (name === undefined) {
      if (others.length > 0)
        return {
          diagnostics: [
            errorAt(
              "ambiguous-playbook",
              `${path} has several playbooks: ${books.join(", ")}`,
              undefined,
              `choose one with --playbook NAME, e.g. --playbook ${only}`,
            ),
          ],
        };
      name = only;
    }
    const stem = name.endsWith(".star") ? name.slice(0, -5) : name;
    if (!books.includes(stem)) {
      const near = nearestName(stem, books);
      return {
        diagnostics: [
          errorAt(
            "unknown-playbook",
            `${path} has no playbook '${stem}' (playbooks: ${books.join(", ")})`,
            undefined,
            near ? `did you mean --playbook ${near}?` : undefined,
          ),
        ],
      };
    }
    return { target: { kind: "pack", root: abs, file: join(abs, stem + ".star"), playbook: stem }, diagnostics: [] };
  }
  if (abs.endsWith(".star"))
    return { target: { kind: "star", root: dirname(abs), file: abs, playbook: basename(abs, ".star") }, diagnostics: [] };
  if (abs.endsWith(".toml"))
    return { target: { kind: "plan", root: dirname(abs), file: abs, playbook: basename(abs, ".toml") }, diagnostics: [] };
  return { diagnostics: [errorAt("pack-not-found", `${path} is neither a pack folder, a .star playbook nor a plan .toml`, undefined)] };
}

/** Playbook names (file stems) of a pack folder, sorted. */
export function playbooksIn(root: string): string[] {
  return readdirSync(root, { withFileTypes: true })
    .filter((e) => e.isFile() && e.name.endsWith(".star") && e.name.length > 5)
    .map((e) => e.name.slice(0, -5))
    .sort();
}

/**
 * The pack's source files as sorted pack-relative paths (with "/"): root `*.star`, `lib/**\/*.star`
 * and `pack.toml`. Other files (scripts, data, compiled plans) are not sources of the plan.
 */
export function packSourceFiles(root: string): string[] {
  const out: string[] = [];
  for (const e of readdirSync(root, { withFileTypes: true })) {
    if (e.isFile() && (e.name.endsWith(".star") || e.name === "pack.toml")) out.push(e.name);
  }
  const walk = (dir: string, rel: string, depth: number) => {
    if (depth > 32) return;
    for (const e of readdirSync(dir, { withFileTypes: true })) {
      if (e.name.startsWith(".")) continue;
      const r = `${rel}/${e.name}`;
      if (e.isDirectory()) walk(join(dir, e.name), r, depth + 1);
      else if (e.isFile() && e.name.endsWith(".star")) out.push(r);
    }
  };
  const lib = join(root, "lib");
  if (existsSync(lib) && statSync(lib).isDirectory()) walk(lib, "lib", 0);
  return out.sort();
}

/** sha256 over the sorted pack-relative paths and contents of the pack's source files (C-20). */
export function packDigest(root: string): string {
  const h = createHash("sha256");
  for (const rel of packSourceFiles(root)) {
    const body = readFileSync(join(root, ...rel.split("/")));
    h.update(`${rel}\0${body.length}\0`);
    h.update(body);
  }
  return h.digest("hex");
}

/** The pack's own description from its pack.toml (name, version, description), all optional. */
export interface PackInfo {
  name?: string;
  version?: string;
  description?: string;
}

/** Reads the optional pack.toml (L-1). */
export function readPackToml(root: string, display: string): { info: PackInfo; diagnostics: Diagnostic[] } {
  const file = join(root, "pack.toml");
  if (!existsSync(file)) return { info: {}, diagnostics: [] };
  const text = readFileSync(file, "utf8");
  let doc: Record<string, unknown>;
  try {
    doc = parse(text);
  } catch (e) {
    if (e instanceof TomlError)
      return {
        info: {},
        diagnostics: [
          errorAt("pack-toml", `pack.toml is not valid TOML: ${e.message.split("\n")[0]}`, { file: display, line: e.line, col: e.column }),
        ],
      };
    throw e;
  }
  const diags: Diagnostic[] = [];
  const info: PackInfo = {};
  const pack = doc.pack;
  if (pack === undefined) return { info, diagnostics: [] };
  if (typeof pack !== "object" || pack === null || Array.isArray(pack)) {
    return { info, diagnostics: [errorAt("pack-toml", "pack.toml: [pack] must be a table", { file: display, line: 1, col: 1 })] };
  }
  for (const [k, v] of Object.entries(pack)) {
    if (k !== "name" && k !== "version" && k !== "description") {
      diags.push(
        errorAt("pack-toml", `pack.toml: unknown key pack.${k} (expected name, version, description)`, { file: display, line: 1, col: 1 }),
      );
    } else if (typeof v !== "string") {
      diags.push(errorAt("pack-toml", `pack.toml: pack.${k} must be a string`, { file: display, line: 1, col: 1 }));
    } else info[k] = v;
  }
  return { info, diagnostics: diags };
}

/** A `load` path resolved inside the pack, or why it cannot be (outside the pack, or missing). */
export type LoadPathResult =
  { ok: true; abs: string; rel: string } | { ok: false; code: "load-outside-pack" | "load-not-found"; message: string; hint?: string };

/** Resolves a `load` path relative to the pack root; it must stay inside the pack (L-3). */
export function resolveLoadPath(root: string, module: string): LoadPathResult {
  if (module.startsWith("/") || /^[A-Za-z]:[\\/]/.test(module) || module.includes("\\") || module.includes("\0")) {
    return {
      ok: false,
      code: "load-outside-pack",
      message: `load path ${JSON.stringify(module)} is not a pack-relative path`,
      hint: 'write paths from the pack root, e.g. "lib/util.star"',
    };
  }
  const norm = posix.normalize(module.replace(/^\/\/|^:/, ""));
  if (norm === ".." || norm.startsWith("../")) {
    return {
      ok: false,
      code: "load-outside-pack",
      message: `load path ${JSON.stringify(module)} leaves the pack`,
      hint: "modules live inside the pack, usually under lib/",
    };
  }
  if (!norm.endsWith(".star"))
    return {
      ok: false,
      code: "load-not-found",
      message: `load path ${JSON.stringify(module)} does not name a .star file`,
      hint: 'modules are .star files, e.g. "lib/util.star"',
    };
  const abs = join(root, ...norm.split("/"));
  if (!existsSync(abs) || !statSync(abs).isFile()) {
    const near = nearestName(
      norm,
      packSourceFiles(root).filter((f) => f.endsWith(".star")),
    );
    return {
      ok: false,
      code: "load-not-found",
      message: `module ${JSON.stringify(module)} not found in the pack`,
      hint: near
        ? `did you mean "${near}"? (paths are relative to the pack root)`
        : 'paths are relative to the pack root, e.g. "lib/util.star"',
    };
  }
  // A symlink may point outside the pack even when the path does not.
  const real = realpathSync(abs);
  const realRoot = realpathSync(root);
  if (real !== realRoot && !real.startsWith(realRoot + sep)) {
    return {
      ok: false,
      code: "load-outside-pack",
      message: `load path ${JSON.stringify(module)} resolves outside the pack (through a symbolic link)`,
    };
  }
  return { ok: true, abs, rel: norm };
}

/** How a file is named in diagnostics: relative to the current directory, as a user types it. */
export function displayPath(abs: string): string {
  const rel = relative(process.cwd(), abs);
  if (rel === "") return ".";
  // Outside the current directory an absolute path reads better than a climb of "../".
  if (rel === ".." || rel.startsWith(".." + sep) || isAbsolute(rel)) return abs;
  return rel.split(sep).join("/");
}
