// The run engine's error codes (`switchyard explain CODE`). Each run-time failure message starts
// with or names its code, so a person can look up what it means and how to fix it.

import type { CodeEntry } from "../../lang/diagnostic.js";
export type { CodeEntry };

/** Every code the run layer emits, with its rule and explanation. */
export const RUN_CODES: CodeEntry[] = [
  {
    code: "bad-element",
    rule: "M-1",
    summary: "an `over` list element is not a string or an integer, or its key is malformed",
    explain:
      "A mapped task runs one instance per element of its `over` list. Each element must be a string or an integer (its key is the decimal text), 1 to 256 characters long, with no NUL or control characters. The whole mapped task fails before any instance starts. Fix the producer so it emits plain string or integer keys.",
  },
  {
    code: "duplicate-key",
    rule: "M-1",
    summary: "an `over` list holds the same key twice",
    explain:
      "Keys identify elements everywhere (instance names, the event log, resume, decisions), so they must be unique in the list. The mapped task fails before any instance starts. Deduplicate the list in its producer.",
  },
  {
    code: "over-max-fanout",
    rule: "M-1",
    summary: "an `over` list is longer than the task's `max_fanout`",
    explain:
      "`max_fanout` bounds how many instances (and decision requests) a mapped task may expand to. A longer list fails the mapped task before any instance starts. Raise `max_fanout` (at most 10000) or shorten the list.",
  },
  {
    code: "over-value-not-list",
    rule: "M-1",
    summary: "the value a task maps over is not a list at run time",
    explain:
      "The producer's output did not hold a list under the `over` field (a field declared `any` can hold anything; a compiled plan edited by hand can map over a mapped task, whose output is a fold). The mapped task fails before any instance starts. Fix the producer's output, or declare the field `list` so the compiler and the producer's output check catch it.",
  },
  {
    code: "keyed-missing",
    rule: "M-3",
    summary: "a `keyed` object has no entry for an element",
    explain:
      "`keyed = [producer.field]` narrows an object keyed by element to the instance's own entry. An element with no entry fails that instance only. Make the producer emit an entry for every element of the list.",
  },
  {
    code: "keyed-value-not-object",
    rule: "M-3",
    summary: "the value of a `keyed` field is not an object at run time",
    explain:
      "A `keyed` field must hold an object keyed by element; the producer's output held something else (possible when the field is declared `any`). Fix the producer's output, or declare the field `object`.",
  },
  {
    code: "output-missing",
    rule: "T-1",
    summary: "a command or agent declared fields but wrote no output file",
    explain:
      "A command writes its output object as JSON to the file named by $SWITCHYARD_OUTPUT. When the task declares `emits`, a missing file fails the instance. A task with no declared fields may leave it out (its output is then {}).",
  },
  {
    code: "output-invalid",
    rule: "T-12",
    summary: "an output is not a JSON object, or a declared field is missing or has the wrong type",
    explain:
      "Every field declared in `emits` must be present with its declared type (string, number, bool, list, object, any) when the producer finishes. Extra fields are kept. The JSON must be UTF-8 text (a leading byte-order mark is accepted), nest arrays and objects at most 256 deep, and hold no integer beyond 2^53 (9007199254740991), which a number cannot keep exactly: write such an id as a string. Fix what the task writes to $SWITCHYARD_OUTPUT, or its `emits`.",
  },
  {
    code: "file-rejected",
    summary: "a file a command or agent left is not a regular file inside its workspace, or is too large",
    explain:
      "Files that commands and agents leave ($SWITCHYARD_OUTPUT, $SWITCHYARD_USAGE, an agent's `files`) are untrusted. The engine reads only a regular file at the path it named, or inside the instance's workspace (a symlink is followed only when it resolves inside the workspace), at most 16 MB by default (set SWITCHYARD_MAX_FILE_MB to change the limit). A FIFO, a device, a socket, a folder, a symlink to nothing or out of the workspace, or a larger file fails that element only; nothing of it is recorded. Write a regular file into the workspace (copy, do not link).",
  },
  {
    code: "workspace-replaced",
    summary: "a command or agent replaced its workspace folder itself (by a link, a file or another folder)",
    explain:
      "The engine makes each attempt's workspace folder and notes which folder it is (device and inode) before the command or agent starts. When the attempt ends, the path must still name that very folder: a workspace removed and replaced by a symbolic link (to /etc, say), a file or another folder fails the instance, and nothing is read from it (no `files`, no output), staged (a worktree agent's change) or shown by `switchyard ui`. A folder that was only removed is no escape and fails nothing by itself. Work inside $SWITCHYARD_WORKSPACE; never remove or replace the folder.",
  },
  {
    code: "command-failed",
    rule: "T-1",
    summary: "a command exited with a non-zero status or was killed",
    explain: "The command's stdout and stderr are in the instance's log (runs/RUN/work/TASK/KEY/aN/log).",
  },
  {
    code: "timeout",
    summary: "an instance ran longer than its `timeout`",
    explain: "The instance's process group was killed. Raise the task's `timeout` or make the work faster.",
  },
  {
    code: "agent-runner-missing",
    rule: "D-40",
    summary: "an agent names a runner the machine config does not define",
    explain:
      "Agents run through `[agents.NAME] command = [...]` in the machine config (D-50). Add the runner, or change the task's `runner`.",
  },
  {
    code: "agent-runner-failed",
    rule: "D-40",
    summary: "an agent runner could not be started, or exited non-zero without a report of its own",
    explain:
      "Check the runner's command in the machine config: it must exist and be executable. For a preset, the tool exited non-zero without printing its turn report (a usage error, an untrusted folder, a crash): the message ends with the last line of its stderr, and names the files holding its stdout and its log. A flag the tool no longer accepts can be taken out with `remove_args` or replaced with `base_args` (docs/agents/).",
  },
  {
    code: "agent-file-missing",
    rule: "T-2",
    summary: "an agent did not leave a file listed in its `files`",
    explain: "The agent is expected to write each listed file into its workspace. The prompt should ask for it.",
  },
  {
    code: "agent-output-invalid",
    rule: "D-40",
    summary: "an agent CLI's machine-readable reply could not be read",
    explain:
      "A runner with a `preset` (claude-code, codex, gemini, aider) is read through the tool's own output format: Claude Code's JSON result, Codex's JSONL events, Gemini CLI's JSON, aider's token report lines. The tool's own report is read before its exit status: when it reports an error (a turn limit, an API error), the message names the tool, its message in its words and its exit status, and the usage it reported is still charged. Output that is empty, cut short or not the documented shape fails that instance too; the message names the tool and the file holding its stdout. Only that instance fails. Check that the tool's version is one the preset was verified with (docs/agents/), and that `args` does not change the output format. A rate limit the tool reports (HTTP 429 or 529, \"rate limit\", \"overloaded\") is retried after its delay and fails with this code only after 20 in a row.",
  },
  {
    code: "agent-preflight",
    summary: "a run was refused before any work: its agent tasks cannot run",
    explain:
      'Before the first decision or turn, `run` (and `config check PACK`) checks that every agent task names a runner defined in the machine config, that each runner\'s executable is on PATH (or at its path), that a host of "tty" has a terminal when some judgement type is answered by the host (host or shadow mode), and that a `workspace = "worktree"` task has a git repository without uncommitted changes (`--repo PATH`, default the one containing the working directory). It reads each preset runner\'s `--version` once and refuses a version known not to work with its preset (for example Codex CLI older than 0.145.0, or a `--full-auto` passed to Codex CLI 0.147.0 or later), naming the versions and the fix; a version outside the verified range is a warning. `resume` checks the same against the run\'s recorded plan (all but the terminal), and that the repository and base commit the run recorded still exist. Nothing was run, asked or recorded; each line of the message names the fix.',
  },
  {
    code: "worktree-failed",
    summary: "a git worktree for an agent could not be created or its change captured",
    explain:
      "An agent with `workspace = \"worktree\"` runs in its own `git worktree` of the run's repository at the recorded base commit. The message carries git's own error; check that the repository and the base commit still exist (`git cat-file -t BASE`).",
  },
  {
    code: "evaluate-failed",
    rule: "T-4",
    summary: "an evaluate function failed or did not return a dict",
    explain: "The function is called with the instance's input dict and must return a dict. The message carries the evaluation error.",
  },
  {
    code: "route-label-unknown",
    rule: "T-3",
    summary: "an output-decided route's source holds a label its question does not declare",
    explain: 'With decide = "output", the `source` object must hold, per question name, one of the question\'s declared labels.',
  },
  {
    code: "route-source-missing",
    rule: "T-3",
    summary: "an output-decided route's source has no entry for an element or a question",
    explain: "The `source` field must be an object (keyed by element for a mapped route) holding a label per question.",
  },
  {
    code: "dynamic-options",
    rule: "Q-31",
    summary: "a dynamic choice's options are malformed for an element",
    explain:
      'A dynamic choice reads its options per element: a list of at most 64 entries, each a label or {"value": label, "description": text}. Labels must be identifiers and not `uncertain`; at least two distinct options must remain. Only that element\'s decision fails.',
  },
  {
    code: "decision-failed",
    rule: "D-22",
    summary: "the decision layer could not answer an element's questions",
    explain: "The message says what was wrong (a malformed response, an unparseable host reply, ...). Only that element fails.",
  },
  {
    code: "no-judge",
    rule: "D-1",
    summary: "a model-decided route ran without a decision layer",
    explain: "The run was started without a judge; model-decided routes need one (the CLI wires the machine config's decision layer).",
  },
  {
    code: "preflight",
    rule: "D-30",
    summary: "the decision layer refused the run's judgement types before it started",
    explain:
      "A judgement type of the plan cannot be decided as configured: a --decide flag names a provider that does not exist or a type no question asks, a provider's api_key_env variable is not set, a shadow mode has no lab, or [decisions] host names no agent runner. The message names the type and what to fix in the machine config or the flags. (An unlisted model or a denied vendor does not refuse the run: it is reported as a warning and the host answers with fallback receipts, D-31.)",
  },
  {
    code: "revise-failed",
    rule: "T-5",
    summary: "a revise loop did not get `accept` within max_rounds, or its reviewer emitted a bad verdict",
    explain: 'The reviewer must emit `verdict` = "accept" or "revise". After max_rounds revisions without acceptance the loop fails.',
  },
  {
    code: "pack-too-large",
    rule: "R-1",
    summary: "the pack folder is larger than 50 MB",
    explain: "A run snapshots every pack file (hidden folders and node_modules excepted). Move large data out of the pack.",
  },
  {
    code: "ceiling-reached",
    rule: "R-6",
    summary: "the run stopped at its max_duration or budget_usd",
    explain:
      "Nothing new starts once a ceiling is reached; running instances finish. Resume with a raised ceiling: `switchyard resume RUN --max-duration 4h` or `--budget-usd 20`.",
  },
  {
    code: "run-busy",
    rule: "R-4",
    summary: "another process is executing the run",
    explain:
      "A run is executed by one process at a time; `run`, `resume` and `rerun` claim it before they read its log, and the losers of a race exit 1 having changed nothing. The owner is recorded by pid, process start time, boot id and host. If it is alive, wait for it or stop it with `switchyard cancel RUN`, then resume. A recorded owner whose pid is gone or was reused by another program never blocks a resume. One that cannot be verified (recorded on another host, or no /proc to compare start times) does: if no switchyard process is executing the run, `switchyard resume RUN --force` takes it over.",
  },
  {
    code: "snapshot-missing",
    rule: "R-1",
    summary: "a run's pack snapshot is gone, so it cannot be resumed",
    explain:
      "A run executes the copy of the pack taken when it was admitted (runs/RUN/pack), never the current files. If the run folder was deleted, the run cannot continue faithfully, and `resume` refuses instead of guessing (the machine config the run was started with is kept in the state database, so it is never silently swapped either). Start a new run from the pack.",
  },
  {
    code: "state-unwritable",
    summary: "the state database cannot be written (disk full, a file-size limit, read-only)",
    explain:
      "A commit to switchyard.db failed, or an attempt's files (workspace, input, log) could not be written into the run folder. The run stops as a cancel does: nothing new starts, running instances are stopped, and everything recorded before stays recorded (the events of the failed commit are tried once more at the end). The command exits 1 naming the file and the fault. Free space, lift the limit or fix the permissions, then `switchyard resume RUN` continues the run.",
  },
  {
    code: "state-corrupt",
    summary: "the state database is corrupt, truncated or not a database",
    explain:
      "Every command that opens switchyard.db says so instead of failing with a stack. The event log in it is the record of every run: restore the file from a backup if you have one. `switchyard runs --rebuild` rebuilds the runs, tasks and instances tables from the events, so it repairs damage to those tables only, never to the events themselves. To start afresh, move switchyard.db (and its -wal and -shm files) aside; the run folders stay, but a run is resumable only with its events.",
  },
  {
    code: "sqlite-driver",
    summary: "the SQLite driver (better-sqlite3) has no native build for this Node",
    explain:
      "The SQLite store uses better-sqlite3, whose install script builds a native binary for the Node that ran `npm install`. Every command that opens a SQLite store needs it; `switchyard check`, `compile` and `explain` do not. It is missing when the script did not run (npm 12 runs a dependency's install script only if the project's package.json allows it in `allowScripts`: switchyard's does; a global install from a tarball needs `npm install -g --allow-scripts=better-sqlite3`) or failed (a build needs python3, make and a C++ compiler where no prebuilt binary can be downloaded), and it is refused when Node was upgraded or switched after the install (a NODE_MODULE_VERSION mismatch). The message names the folder: `npm rebuild better-sqlite3` there builds it for the Node you run now. A PostgreSQL store (`--store postgres://…`) does not use it.",
  },
  {
    code: "store-unreachable",
    summary: "the PostgreSQL store cannot be reached (server down, wrong address, connection lost or too slow)",
    explain:
      "A command given `--store postgres://…` (or $SWITCHYARD_STORE) could not connect to the server, lost its connection, or got no answer within 60 seconds. The message names the server and database, never the password. A run that was executing stops as a cancel does: nothing new starts, running instances are stopped, and every batch the server confirmed stays committed (commits are durable, synchronous_commit on). The connection is not re-opened behind the run's back, because the run's lock in the store went with it. Start the server or fix the connection string, then `switchyard resume RUN --store …` continues the run, from this machine or any other.",
  },
  {
    code: "store-url",
    summary: "the --store value (or $SWITCHYARD_STORE) is not a store",
    explain:
      "A store is `sqlite:PATH` (an SQLite state database file) or a PostgreSQL connection string `postgres://USER[:PASSWORD]@HOST[:PORT]/DATABASE`, optionally with `?schema=NAME` (a lower-case SQL name; `switchyard` by default) to keep several independent stores in one database. Prefer a password in ~/.pgpass or $PGPASSWORD to one in the URL: switchyard never prints it, but your shell history keeps it.",
  },
  {
    code: "dependency-failed",
    rule: "G-5",
    summary: "an instance is blocked: a dependency it waits for under an `all` join failed or was blocked",
    explain:
      'With `join = "all"` (the default) an instance runs only when every dependency passed or was not taken; on a mapped edge that is judged per element. A failed or blocked dependency blocks it, and the block travels down the chain. `switchyard show RUN` names the dependency; fix it and `switchyard resume RUN` runs the failed dependency again and then the blocked instances. Use `join = "settled"` for a task that should run whatever its dependencies\' outcome.',
  },
  {
    code: "gate-unanswered",
    rule: "G-1",
    summary: "an instance is blocked: its gate's route has no answer for it",
    explain:
      "A task gated by `when` runs only on a recorded answer. When the route instance that answers for the element failed or was blocked, or recorded no answer to the question, the gated instance cannot know whether to run, so it is blocked rather than guessed. `switchyard show RUN` names the route; fix what made it fail and `switchyard resume RUN`.",
  },
  {
    code: "bad-plan",
    summary: "the plan names something the engine cannot run (an unknown dependency or task kind)",
    explain: "Plans come from `switchyard compile`; a hand-edited plan may break its rules. Recompile the playbook.",
  },
  {
    code: "report-too-large",
    summary: "a worker's result for an instance is larger than it may send back",
    explain:
      "In workers mode (`--executor workers`) an instance's output travels back to the coordinator through the store, capped at the same size as any file an instance leaves (16 MB, or $SWITCHYARD_MAX_FILE_MB on the worker). The attempt fails. Keep large artefacts in files the next step reads from a shared place, and emit their names instead.",
  },
  {
    code: "internal",
    summary: "switchyard itself failed while running an instance",
    explain:
      "A bug in switchyard, not in the playbook. The message carries the details; please report it. The instance can be run again with `switchyard resume`.",
  },
  {
    code: "unknown-run",
    summary: "no run with that id in the state folder",
    explain:
      "List runs with `switchyard runs`; a unique prefix of an id is enough. The state folder is --state-dir, else $SWITCHYARD_HOME, else the nearest `.switchyard/` in the working directory or a parent, else the per-user folder ($XDG_STATE_HOME/switchyard, else ~/.local/state/switchyard).",
  },
];
