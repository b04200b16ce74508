// `command` instances (T-1): `/bin/sh -c RUN` in a fresh workspace per attempt, input JSON in
// $SWITCHYARD_INPUT, the output object read back from $SWITCHYARD_OUTPUT and checked against
// `emits`; stdout and stderr go to the attempt's log.

import { closeSync, mkdirSync, openSync, rmSync, writeFileSync } from "node:fs";
import { dirname } from "node:path";
import { failedOutcome, type AttemptContext, type InstanceInput, type Outcome } from "./context.js";
import { runProcess, type ProcessResult } from "../process/index.js";
import { checkEmits, isPlainObject } from "../values/index.js";
import { inputJson } from "./shared-json.js";
import type { FieldType, TaskOf } from "../../plan/plan.js";
import {
  checkWorkspaceSync,
  DEFAULT_MAX_FILE_BYTES,
  pinWorkspace,
  readUntrustedFile,
  UntrustedFileError,
  type WorkspaceRoot,
} from "../process/index.js";
import { parseUntrustedJson } from "../process/index.js";
import { folderFault } from "../store/index.js";
import { errnoCode } from "../../shared/thrown.js";

/** The files of an attempt: its workspace, its input and output files, and its log. */
export interface AttemptFiles {
  workspace: string;
  input: string;
  output: string;
  log: string;
  /** The workspace folder as made, before anything ran in it (checked before every read). */
  root?: WorkspaceRoot;
}

/** Parent folders (`work/TASK`) known to exist, so an attempt folder is one mkdir, not a walk. */
const knownParents = new Set<string>();

/**
 * Creates the attempt's fresh workspace (the folder `stem`), writes the input beside it
 * (`stem.input.json`) and creates the empty log (`stem.log`); output, usage and prompt go beside
 * it likewise. The engine does this for queued commands while every slot is busy (see `prefetch`
 * in engine.ts), so a freed slot starts its process at once.
 *
 * The calls are synchronous on purpose: they are a handful of short system calls, and handing
 * each to libuv's thread pool cost more than the calls themselves (measured on 500 commands:
 * about 0.3 ms of extra CPU per attempt and a slower run on a busy 2-core machine).
 *
 * A folder that already exists belongs to an attempt whose start was never recorded (the process
 * died before the `instance_started` commit, or a prepared attempt never started): the attempt
 * number is reused, so its leftovers (workspace, output, usage) are removed first and the log is
 * truncated. Every attempt that runs therefore starts from an empty workspace.
 *
 * A write that fails because of the folder (a full disk, a read-only or immutable folder) rejects
 * with a StorageFault naming the folder: the engine stops the run as when a commit fails.
 */
export async function prepareAttempt(stem: string, input: InstanceInput): Promise<AttemptFiles> {
  return writingRunFiles(dirname(stem), () => prepareAttemptFiles(stem, input));
}

/** Runs `write`; an error that is the folder's fault (folderFault) is thrown as a StorageFault. */
export function writingRunFiles<T>(folder: string, write: () => T): T {
  try {
    return write();
  } catch (err) {
    throw folderFault(err, folder) ?? err;
  }
}

function prepareAttemptFiles(stem: string, input: InstanceInput): AttemptFiles {
  const files: AttemptFiles = { workspace: stem, input: `${stem}.input.json`, output: `${stem}.output.json`, log: `${stem}.log` };
  const parent = dirname(stem);
  if (!knownParents.has(parent)) {
    mkdirSync(parent, { recursive: true });
    knownParents.add(parent);
  }
  try {
    mkdirSync(stem);
  } catch (err) {
    const code = errnoCode(err);
    if (code === "ENOENT") {
      // The parent was removed after it was remembered: create it again.
      mkdirSync(parent, { recursive: true });
      mkdirSync(stem);
    } else if (code === "EEXIST") {
      rmSync(stem, { recursive: true, force: true });
      rmSync(files.output, { force: true });
      rmSync(`${stem}.usage.json`, { force: true });
      mkdirSync(stem);
    } else throw err;
  }
  files.root = pinWorkspace(stem);
  writeFileSync(files.input, inputJson.input(input));
  closeSync(openSync(files.log, "w"));
  return files;
}

/** The environment of an instance's process: the engine's (secrets removed) plus the SWITCHYARD_* variables. */
export function instanceEnv(ctx: AttemptContext, files: AttemptFiles, extra: Record<string, string>): NodeJS.ProcessEnv {
  return { ...ctx.env.baseEnv, ...instanceVars(ctx, files, extra) };
}

/** What an instance adds to the base environment. */
function instanceVars(ctx: AttemptContext, files: AttemptFiles, extra: Record<string, string>): Record<string, string> {
  return {
    ...extra,
    SWITCHYARD_RUN: ctx.env.run,
    SWITCHYARD_TASK: ctx.recordTask,
    SWITCHYARD_KEY: ctx.key ?? "",
    SWITCHYARD_INPUT: files.input,
    SWITCHYARD_OUTPUT: files.output,
    SWITCHYARD_WORKSPACE: files.workspace,
    SWITCHYARD_PACK: ctx.env.packDir,
  };
}

/** Interprets how a process ended; null when it exited 0. */
export function processProblem(r: ProcessResult, what: string, ctx: AttemptContext, logFile: string): Outcome | null {
  if (r.aborted) return { status: "interrupted" };
  if (r.spawnError) {
    return failedOutcome("command-failed", `${what} could not be started: ${r.spawnError.code ?? r.spawnError.message}`);
  }
  if (r.timedOut) {
    return failedOutcome("timeout", `${what} ran longer than its timeout of ${ctx.task.timeout_seconds}s and was killed (log: ${logFile})`);
  }
  if (r.code !== 0) {
    const how = r.signal ? `was killed by ${r.signal}` : `exited with status ${r.code}`;
    return failedOutcome("command-failed", `${what} ${how} (log: ${logFile})`);
  }
  return null;
}

/** An untrusted file's refusal as a failed outcome; any other error is rethrown. */
export function rejected(err: unknown): Outcome & { status: "failed" } {
  if (err instanceof UntrustedFileError) return failedOutcome(err.code, err.message);
  throw err;
}

/** The untrusted-file reading rules for a file of this attempt (untrusted-file.ts). */
export function fileRules(ctx: AttemptContext, files: AttemptFiles, what: string, ownPath = false) {
  return {
    workspace: files.workspace,
    limit: ctx.env.maxFileBytes ?? DEFAULT_MAX_FILE_BYTES,
    what,
    ownPath,
    ...(files.root ? { root: files.root } : {}),
  };
}

/**
 * Reads $SWITCHYARD_OUTPUT. A missing file is {} only when no field is declared. `exists` is
 * false when the runner already saw that no file was left (no need to try opening it). The file
 * is untrusted: a FIFO, a device, a symlink out of the workspace, an oversized file, text that is
 * not UTF-8 or JSON nested too deep fail the instance (untrusted-file.ts, untrusted-json.ts), and
 * so does a workspace folder that was replaced (by a link, say) while it ran.
 */
export async function readOutput(
  path: string,
  emits: Record<string, FieldType>,
  who: string,
  missingOk: boolean,
  exists: boolean | undefined,
  rules: ReturnType<typeof fileRules>,
): Promise<Outcome> {
  let text: string | undefined;
  try {
    // readUntrustedFile checks the workspace itself before it reads.
    if (rules.root && exists === false) checkWorkspaceSync(rules.root);
    text = exists === false ? undefined : await readUntrustedFile(path, rules);
  } catch (err) {
    return rejected(err);
  }
  if (text === undefined) {
    if (Object.keys(emits).length === 0 || missingOk) return { status: "passed", output: {} };
    return failedOutcome(
      "output-missing",
      `${who} exited 0 but wrote no output to $SWITCHYARD_OUTPUT; it declares ${Object.keys(emits).join(", ")} (T-1)`,
    );
  }
  let output: unknown;
  try {
    output = parseUntrustedJson(text, `what ${who} wrote to $SWITCHYARD_OUTPUT`);
  } catch (err) {
    return rejected(err);
  }
  if (!isPlainObject(output)) {
    const problem = checkEmits(output, emits)!;
    return failedOutcome("output-invalid", problem);
  }
  return { status: "passed", output };
}

/**
 * Runs one attempt. `prepared` is the attempt's files when the engine already started preparing
 * them (prepareAttempt for `ctx.dir` with this same input).
 */
export async function runCommand(
  ctx: AttemptContext<TaskOf<"command">>,
  input: InstanceInput,
  prepared?: Promise<AttemptFiles>,
): Promise<Outcome> {
  const spec = ctx.task.command;
  const files = await (prepared ?? prepareAttempt(ctx.dir, input));
  const extraEnv = instanceVars(ctx, files, spec.env);
  const proc = {
    argv: ["/bin/sh", "-c", spec.run],
    cwd: files.workspace,
    extraEnv,
    logFile: files.log,
    outputFile: files.output,
    timeoutMs: ctx.task.timeout_seconds * 1000,
    signal: ctx.signal,
    ...(ctx.groups ? { groups: ctx.groups } : {}),
  };
  const launcher = ctx.env.launcher?.();
  // A launcher adds extraEnv to its own environment: the whole one is built only to spawn here.
  const r =
    launcher && launcher.accepts(extraEnv, proc.argv)
      ? await launcher.run(proc)
      : await runProcess({ ...proc, env: { ...ctx.env.baseEnv, ...extraEnv } });
  const problem = processProblem(r, "the command", ctx, files.log);
  if (problem) return problem;
  const out = await readOutput(
    files.output,
    ctx.task.emits,
    "the command",
    false,
    r.outputExists,
    fileRules(ctx, files, "the command's $SWITCHYARD_OUTPUT", true),
  );
  if (out.status !== "passed") return out;
  const bad = checkEmits(out.output, ctx.task.emits);
  if (bad) return failedOutcome("output-invalid", bad);
  return out;
}
