// Finding the state folder and the machine config from any folder (R-2), as git finds
// `.git`: the flag, else the environment variable, else the nearest `.switchyard/` in the working
// directory or a parent, else a default. The rules are written out in docs/runs.md ("The state
// folder") and docs/providers.md ("Where the machine config is read from").
//
// As git has GIT_CEILING_DIRECTORIES, $SWITCHYARD_CEILING_DIRECTORIES lists folders the upward
// search never enters: the test runner sets it to its temp folder, so a test never finds (and
// writes runs into) a `.switchyard/` that `npm start` left at the top of the checkout.

import { accessSync, constants, existsSync, mkdirSync, realpathSync, statSync, writeFileSync } from "node:fs";
import { homedir } from "node:os";
import { delimiter, dirname, isAbsolute, join, resolve } from "node:path";
import { CodedError } from "../shared/coded-error.js";

/** The name of the state folder a run creates or looks for. */
export const STATE_FOLDER = ".switchyard";

/** How a state folder was chosen. */
export type StateSource = "flag" | "env" | "found" | "new" | "user";

/** The state folder a command uses, and how it was chosen (for messages). */
export interface StateLocation {
  dir: string;
  /** How it was chosen: --state-dir, $SWITCHYARD_HOME, a `.switchyard/` found upward, a new `./.switchyard/`, the per-user folder. */
  source: StateSource;
}

/** The per-user state folder: `$XDG_STATE_HOME/switchyard`, else `~/.local/state/switchyard`. */
export function userStateDir(env: NodeJS.ProcessEnv = process.env): string {
  const xdg = env.XDG_STATE_HOME;
  return xdg ? join(resolve(xdg), "switchyard") : join(homedir(), ".local", "state", "switchyard");
}

/** A path with its symlinks resolved when it exists (so /tmp and its real path compare equal). */
function real(path: string): string {
  try {
    return realpathSync(path);
  } catch {
    return resolve(path);
  }
}

/**
 * The folders of $SWITCHYARD_CEILING_DIRECTORIES (separated by `:`, `;` on Windows), each as
 * written and with its symlinks resolved (the working directory is a real path); as with git's
 * GIT_CEILING_DIRECTORIES, entries that are not absolute are ignored.
 */
export function ceilingDirectories(env: NodeJS.ProcessEnv = process.env): Set<string> {
  const list = (env.SWITCHYARD_CEILING_DIRECTORIES ?? "").split(delimiter).filter((d) => d !== "" && isAbsolute(d));
  return new Set(list.flatMap((d) => [resolve(d), real(d)]));
}

/**
 * The nearest `.switchyard/` folder in `from` or one of its parents. The search never enters a
 * ceiling folder ($SWITCHYARD_CEILING_DIRECTORIES) from below, nor goes above one: `from` itself
 * is always looked in, its parents only up to (not including) the first ceiling.
 */
export function nearestStateFolder(from = process.cwd(), env: NodeJS.ProcessEnv = process.env): string | undefined {
  const ceilings = ceilingDirectories(env);
  for (let dir = resolve(from); ; dir = dirname(dir)) {
    const candidate = join(dir, STATE_FOLDER);
    try {
      if (statSync(candidate).isDirectory()) return candidate;
    } catch {
      // not here; look in the parent
    }
    if (dirname(dir) === dir || ceilings.has(dir) || ceilings.has(dirname(dir))) return undefined;
  }
}

function writable(dir: string): boolean {
  try {
    accessSync(dir, constants.W_OK);
    return true;
  } catch {
    return false;
  }
}

/**
 * Where the state is. Commands that only read take the per-user folder when nothing is found;
 * `run` (forNewRun) starts a `./.switchyard/` in the working directory instead, unless that is
 * the home folder, the filesystem root or not writable.
 */
export function locateState(
  flag: string | undefined,
  opts: { forNewRun?: boolean } = {},
  env: NodeJS.ProcessEnv = process.env,
): StateLocation {
  if (flag) return { dir: resolve(flag), source: "flag" };
  if (env.SWITCHYARD_HOME) return { dir: resolve(env.SWITCHYARD_HOME), source: "env" };
  const found = nearestStateFolder(process.cwd(), env);
  if (found) return { dir: found, source: "found" };
  const cwd = process.cwd();
  if (opts.forNewRun && cwd !== homedir() && dirname(cwd) !== cwd && writable(cwd)) return { dir: join(cwd, STATE_FOLDER), source: "new" };
  return { dir: userStateDir(env), source: "user" };
}

/** Creates the state folder if it is new, with a `.gitignore` of `*` so it is never committed. */
export function prepareStateFolder(dir: string): void {
  if (existsSync(dir)) {
    if (!statSync(dir).isDirectory())
      throw new StateFolderError("state-folder", `the state folder ${dir} is a file, not a folder`, { hint: STATE_FOLDER_HINT });
    return;
  }
  makeFolder(dir);
  writeFileSync(join(dir, ".gitignore"), "# switchyard's state (runs, events, labs): never committed\n*\n");
}

/** A state folder that cannot be made; the CLI reports it as a usage error. */
export class StateFolderError extends CodedError {}

const STATE_FOLDER_HINT = "point --state-dir (or $SWITCHYARD_HOME) at a folder that can be made";

/**
 * mkdir -p, one level at a time: Node's recursive mkdir never returns under /proc, and fails
 * with a bare ENOTDIR under a regular file; here either is a clear error naming the culprit.
 */
function makeFolder(dir: string): void {
  const missing: string[] = [];
  let d = resolve(dir);
  while (!existsSync(d)) {
    missing.push(d);
    const parent = dirname(d);
    if (parent === d) break;
    d = parent;
  }
  if (existsSync(d) && !statSync(d).isDirectory())
    throw new StateFolderError("state-folder", `the state folder ${dir} cannot be made: ${d} is a file, not a folder`, {
      hint: STATE_FOLDER_HINT,
    });
  for (const m of missing.reverse()) {
    try {
      mkdirSync(m);
    } catch (err) {
      const code = (err as NodeJS.ErrnoException).code;
      if (code === "EEXIST") continue;
      throw new StateFolderError(
        "state-folder",
        `the state folder ${dir} cannot be made: creating ${m} failed (${code})${m.startsWith("/proc/") || m.startsWith("/sys/") ? `; ${m.split("/")[1] === "proc" ? "/proc" : "/sys"} is a virtual filesystem` : ""}`,
        { hint: STATE_FOLDER_HINT },
      );
    }
  }
}

/** Where `no runs` looked, for the message. */
export function describeSearch(flag: string | undefined, env: NodeJS.ProcessEnv = process.env): string {
  const loc = locateState(flag, {}, env);
  if (loc.source === "flag") return `--state-dir ${loc.dir}`;
  if (loc.source === "env") return `$SWITCHYARD_HOME (${loc.dir})`;
  if (loc.source === "found") return loc.dir;
  return `${loc.dir} (no ${STATE_FOLDER}/ in ${process.cwd()} or its parents, and $SWITCHYARD_HOME is not set)`;
}

/**
 * The machine config to read: --config, else $SWITCHYARD_CONFIG, else `config.toml` in the nearest
 * `.switchyard/`, else undefined (the per-user `$XDG_CONFIG_HOME/switchyard/config.toml`).
 */
export function locateConfig(flag: string | undefined, env: NodeJS.ProcessEnv = process.env): string | undefined {
  if (flag) return flag;
  if (env.SWITCHYARD_CONFIG) return env.SWITCHYARD_CONFIG;
  const found = nearestStateFolder(process.cwd(), env);
  if (found && existsSync(join(found, "config.toml"))) return join(found, "config.toml");
  return undefined;
}
