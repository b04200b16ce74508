// `switchyard completion bash|zsh|fish`: a shell completion script, generated from the
// command tree itself (so it never falls behind a new flag): command names, subcommands, each
// command's options, and run ids (from `switchyard runs --json`) where a command takes a run;
// after a run, a task's name (`--task`), an element's key (`--key`) and an instance TASK[KEY]
// (`logs RUN`, `explain RUN`, `show RUN --why`), from the run's records through the hidden
// `switchyard completion --names WHAT --run RUN [--prefix P]`, in bash and zsh as in fish.

import { Option, type Command } from "commander";
import { UsageError } from "./common.js";
import { isOneOf } from "../shared/primitives.js";
import { findRun, openForReading } from "./run-lookup.js";

const SHELLS = ["bash", "zsh", "fish"] as const;

interface Entry {
  /** "show", or "lab harvest" for a subcommand. */
  path: string;
  description: string;
  options: string[];
  takesRun: boolean;
  /** Takes TASK[KEY] after the run (`logs`, `explain`). */
  takesInstance: boolean;
}

function flagsOf(options: readonly Option[]): string[] {
  const out: string[] = [];
  for (const o of options) {
    if (o.hidden) continue;
    if (o.long) out.push(o.long);
    if (o.short) out.push(o.short);
  }
  return [...out, "--help"];
}

function entries(program: Command): Entry[] {
  const out: Entry[] = [];
  const visit = (cmd: Command, prefix: string) => {
    for (const c of cmd.commands) {
      const path = prefix ? `${prefix} ${c.name()}` : c.name();
      const first = c.registeredArguments[0]?.name();
      const second = c.registeredArguments[1]?.name();
      out.push({
        path,
        description: c.description(),
        options: flagsOf(c.options),
        takesRun: first === "run",
        takesInstance: second === "instance",
      });
      visit(c, path);
    }
  };
  visit(program, "");
  return out;
}

/** Run ids for completion, newest first; nothing when there is no state here. */
const RUN_IDS = `switchyard runs --json 2>/dev/null | sed -n 's/^ *"run": "\\([^"]*\\)".*/\\1/p'`;

/** Every option that takes a value, in any command: its value is not a positional word. */
function valued(program: Command): string[] {
  const out = new Set<string>();
  const visit = (cmd: Command) => {
    for (const o of cmd.options) if (o.required || o.optional) for (const f of [o.long, o.short]) if (f) out.add(f);
    for (const c of cmd.commands) visit(c);
  };
  visit(program);
  return [...out].sort();
}

/** Task names, keys or instances of the run in $run, for the option or positional before the cursor. */
const NAMES = `  if [[ -n "$run" ]]; then
    local what=""
    case "$prev" in
      --task) what=tasks ;;
      --key) what=keys ;;
      --why) what=instances ;;
      *) [[ "$cur" != -* && $inst == 1 && $nth == 1 ]] && what=instances ;;
    esac
    if [[ -n "$what" ]]; then
      local IFS=$'\\n'
      COMPREPLY=($(compgen -W "$(switchyard completion --names "$what" --run "$run" --prefix "$cur" 2>/dev/null)" -- "$cur"))
      [[ \${#COMPREPLY[@]} == 1 && "\${COMPREPLY[0]}" == *"[" ]] && compopt -o nospace 2>/dev/null
      return
    fi
  fi`;

function bash(list: Entry[], valuedFlags: string[]): string {
  const top = list.filter((e) => !e.path.includes(" ")).map((e) => e.path);
  const cases = list
    .map((e) => {
      const subs = list
        .filter((s) => s.path.startsWith(e.path + " ") && !s.path.slice(e.path.length + 1).includes(" "))
        .map((s) => s.path.slice(e.path.length + 1));
      const inst = e.takesInstance ? 1 : 0;
      return `    "${e.path}") opts="${[...subs, ...e.options].join(" ")}"; runs=${e.takesRun ? 1 : 0}; inst=${inst} ;;`;
    })
    .join("\n");
  return `# switchyard completion for bash: source <(switchyard completion bash)
_switchyard() {
  local cur="\${COMP_WORDS[COMP_CWORD]}" prev="\${COMP_WORDS[COMP_CWORD-1]}" path="" w i opts="" runs=0 inst=0 run="" nth=0
  for ((i = 1; i < COMP_CWORD; i++)); do
    w="\${COMP_WORDS[i]}"
    [[ "$w" == -* ]] && continue
    case " ${valuedFlags.join(" ")} " in *" \${COMP_WORDS[i-1]} "*) continue ;; esac
    case "\${path:+$path }$w" in
${list.map((e) => `      "${e.path}") path="${e.path}"; nth=0 ;;`).join("\n")}
      *) [[ -z "$run" ]] && run="$w"; nth=$((nth + 1)) ;;
    esac
  done
  case "$path" in
    "") opts="${top.join(" ")} --help --version" ;;
${cases}
  esac
${NAMES}
  if [[ "$cur" != -* && $runs == 1 ]]; then
    opts="$opts latest $(${RUN_IDS})"
  fi
  COMPREPLY=($(compgen -W "$opts" -- "$cur"))
}
complete -o default -F _switchyard switchyard
`;
}

function zsh(list: Entry[], valuedFlags: string[]): string {
  // zsh reads bash completion functions through bashcompinit, which keeps one generator.
  return `#compdef switchyard
# switchyard completion for zsh: source <(switchyard completion zsh)
autoload -U +X bashcompinit && bashcompinit
${bash(list, valuedFlags).split("\n").slice(1).join("\n")}`;
}

function fishQuote(s: string): string {
  return `'${s.replace(/\\/g, "\\\\").replace(/'/g, "\\'")}'`;
}

/**
 * fish's side of the task names, keys and TASK[KEY] (as NAMES does for bash): the words before the
 * cursor are read into the command's path, its run and how many positionals follow it, skipping
 * flags and the values of flags that take one.
 */
function fishNames(list: Entry[], valuedFlags: string[]): string[] {
  const words = (xs: string[]) => xs.map(fishQuote).join(" ");
  return [
    `set -g __switchyard_paths ${words(list.map((e) => e.path))}`,
    `set -g __switchyard_runs ${words(list.filter((e) => e.takesRun).map((e) => e.path))}`,
    `set -g __switchyard_inst ${words(list.filter((e) => e.takesInstance).map((e) => e.path))}`,
    `set -g __switchyard_valued ${words(valuedFlags)}`,
    `function __switchyard_parse
    set -l toks (commandline -opc)
    set -g __switchyard_path ''
    set -g __switchyard_run ''
    set -g __switchyard_nth 0
    set -l before ''
    for w in $toks[2..-1]
        set -l flag $before
        set before $w
        string match -q -- '-*' $w; and continue
        contains -- $flag $__switchyard_valued; and continue
        set -l next (string trim -- "$__switchyard_path $w")
        if contains -- $next $__switchyard_paths
            set -g __switchyard_path $next
            set -g __switchyard_nth 0
        else
            test -z "$__switchyard_run"; and set -g __switchyard_run $w
            set -g __switchyard_nth (math $__switchyard_nth + 1)
        end
    end
end`,
    `function __switchyard_wants_run
    __switchyard_parse
    contains -- $__switchyard_path $__switchyard_runs; and test -z "$__switchyard_run"
end`,
    `function __switchyard_names
    __switchyard_parse
    test -n "$__switchyard_run"; or return
    contains -- $__switchyard_path $__switchyard_runs $__switchyard_inst; or return
    set -l toks (commandline -opc)
    set -l cur (commandline -ct)
    set -l what ''
    switch $toks[-1]
        case --task
            set what tasks
        case --key
            set what keys
        case --why
            set what instances
        case '*'
            if not string match -q -- '-*' "$cur"; and contains -- $__switchyard_path $__switchyard_inst; and test $__switchyard_nth -eq 1
                set what instances
            end
    end
    test -n "$what"; or return
    switchyard completion --names $what --run $__switchyard_run --prefix "$cur" 2>/dev/null
end`,
    `complete -c switchyard -a "(__switchyard_names)"`,
  ];
}

function fish(list: Entry[], valuedFlags: string[]): string {
  const lines = ["# switchyard completion for fish: switchyard completion fish | source", "complete -c switchyard -f"];
  const top = list.filter((e) => !e.path.includes(" "));
  const topNames = top.map((e) => e.path).join(" ");
  for (const e of top)
    lines.push(`complete -c switchyard -n "not __fish_seen_subcommand_from ${topNames}" -a ${e.path} -d ${fishQuote(e.description)}`);
  for (const e of list) {
    const words = e.path.split(" ");
    const cond = words.map((w) => `__fish_seen_subcommand_from ${w}`).join("; and ");
    if (words.length > 1) continue;
    for (const sub of list.filter((s) => s.path.startsWith(e.path + " ")))
      lines.push(`complete -c switchyard -n "${cond}" -a ${sub.path.split(" ").at(-1)} -d ${fishQuote(sub.description)}`);
  }
  for (const e of list) {
    const cond = e.path
      .split(" ")
      .map((w) => `__fish_seen_subcommand_from ${w}`)
      .join("; and ");
    for (const o of e.options.filter((x) => x.startsWith("--"))) lines.push(`complete -c switchyard -n "${cond}" -l ${o.slice(2)}`);
    if (e.takesRun)
      lines.push(`complete -c switchyard -n "${cond}; and __switchyard_wants_run" -a "latest (${RUN_IDS.replace(/"/g, '\\"')})"`);
  }
  return [...lines, ...fishNames(list, valuedFlags)].join("\n") + "\n";
}

/** Adds `switchyard completion`: prints a completion script for bash, zsh or fish. */
export function register(program: Command): void {
  program
    .command("completion")
    .description("print a shell completion script (bash, zsh or fish)")
    .argument("[shell]", SHELLS.join(", "))
    .addOption(new Option("--names <what>", "tasks, keys or instances of --run, for the scripts").hideHelp())
    .addOption(new Option("--run <id>").hideHelp())
    .addOption(new Option("--prefix <text>").hideHelp())
    .addHelpText(
      "after",
      `
Examples:
  source <(switchyard completion bash)                  # in ~/.bashrc
  source <(switchyard completion zsh)                   # in ~/.zshrc
  switchyard completion fish > ~/.config/fish/completions/switchyard.fish`,
    )
    .action((shell: string | undefined, opts: { names?: string; run?: string; prefix?: string }) => {
      if (opts.names !== undefined) {
        printNames(opts.names, opts.run, opts.prefix ?? "");
        return;
      }
      if (shell === undefined || !isOneOf(SHELLS, shell))
        throw new UsageError("usage", `no completion for the shell ${JSON.stringify(shell)}`, {
          hint: `choose one of ${SHELLS.join(", ")}`,
        });
      const list = entries(program);
      const script = { bash, zsh, fish }[shell](list, valued(program));
      process.stdout.write(script);
    });
}

/**
 * `--names`: one word a line — the run's task names (`tasks`), its keys (`keys`), or (`instances`)
 * unmapped tasks and mapped tasks as `TASK[` until the prefix names a task and a bracket, then
 * that task's `TASK[KEY]`. Nothing (and no error) when there is no state or no such run.
 */
function printNames(what: string, id: string | undefined, prefix: string): void {
  const store = openForReading(undefined);
  if (!store || id === undefined) return;
  try {
    let run: string;
    try {
      run = findRun(store, id);
    } catch {
      return;
    }
    const tasks = store.tasks(run);
    let words: string[];
    if (what === "tasks") words = tasks.map((t) => t.task);
    else if (what === "keys") words = [...new Set(store.instances(run).flatMap((i) => (i.key !== null ? [i.key] : [])))];
    else {
      const open = prefix.indexOf("[");
      const task = open >= 0 ? tasks.find((t) => t.task === prefix.slice(0, open)) : undefined;
      words = task
        ? store.instances(run, task.task).map((i) => `${task.task}[${i.key}]`)
        : tasks.map((t) => (t.mapped ? `${t.task}[` : t.task));
    }
    process.stdout.write(words.map((w) => w + "\n").join(""));
  } finally {
    store.close();
  }
}
