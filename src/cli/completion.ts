// `switchyard completion bash|zsh|fish`: a shell completion script, generated from the
// command tree itself (so it never falls behind a new flag): command names, subcommands, each
// command's options, and run ids (from `switchyard runs --json`) where a command takes a run.

import type { Command, Option } from "commander";
import { UsageError } from "./common.js";
import { isOneOf } from "../shared/primitives.js";

const SHELLS = ["bash", "zsh", "fish"] as const;

interface Entry {
  /** "show", or "lab harvest" for a subcommand. */
  path: string;
  description: string;
  options: string[];
  takesRun: boolean;
}

function flagsOf(options: readonly Option[]): string[] {
  const out: string[] = [];
  for (const o of options) {
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
      out.push({ path, description: c.description(), options: flagsOf(c.options), takesRun: first === "run" });
      visit(c, path);
    }
  };
  visit(program, "");
  return out;
}

/** Run ids for completion, newest first; nothing when there is no state here. */
const RUN_IDS = `switchyard runs --json 2>/dev/null | sed -n 's/^ *"run": "\\([^"]*\\)".*/\\1/p'`;

function bash(list: Entry[]): string {
  const top = list.filter((e) => !e.path.includes(" ")).map((e) => e.path);
  const cases = list
    .map((e) => {
      const subs = list
        .filter((s) => s.path.startsWith(e.path + " ") && !s.path.slice(e.path.length + 1).includes(" "))
        .map((s) => s.path.slice(e.path.length + 1));
      return `    "${e.path}") opts="${[...subs, ...e.options].join(" ")}"; runs=${e.takesRun ? 1 : 0} ;;`;
    })
    .join("\n");
  return `# switchyard completion for bash: source <(switchyard completion bash)
_switchyard() {
  local cur="\${COMP_WORDS[COMP_CWORD]}" path="" w i opts="" runs=0
  for ((i = 1; i < COMP_CWORD; i++)); do
    w="\${COMP_WORDS[i]}"
    [[ "$w" == -* ]] && continue
    case "\${path:+$path }$w" in
${list.map((e) => `      "${e.path}") path="${e.path}" ;;`).join("\n")}
    esac
  done
  case "$path" in
    "") opts="${top.join(" ")} --help --version" ;;
${cases}
  esac
  if [[ "$cur" != -* && $runs == 1 ]]; then
    opts="$opts latest $(${RUN_IDS})"
  fi
  COMPREPLY=($(compgen -W "$opts" -- "$cur"))
}
complete -o default -F _switchyard switchyard
`;
}

function zsh(list: Entry[]): string {
  // zsh reads bash completion functions through bashcompinit, which keeps one generator.
  return `#compdef switchyard
# switchyard completion for zsh: source <(switchyard completion zsh)
autoload -U +X bashcompinit && bashcompinit
${bash(list).split("\n").slice(1).join("\n")}`;
}

function fishQuote(s: string): string {
  return `'${s.replace(/\\/g, "\\\\").replace(/'/g, "\\'")}'`;
}

function fish(list: Entry[]): string {
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
    if (e.takesRun) lines.push(`complete -c switchyard -n "${cond}" -a "latest (${RUN_IDS.replace(/"/g, '\\"')})"`);
  }
  return lines.join("\n") + "\n";
}

/** Adds `switchyard completion`: prints a completion script for bash, zsh or fish. */
export function register(program: Command): void {
  program
    .command("completion")
    .description("print a shell completion script (bash, zsh or fish)")
    .argument("<shell>", SHELLS.join(", "))
    .addHelpText(
      "after",
      `
Examples:
  source <(switchyard completion bash)                  # in ~/.bashrc
  source <(switchyard completion zsh)                   # in ~/.zshrc
  switchyard completion fish > ~/.config/fish/completions/switchyard.fish`,
    )
    .action((shell: string) => {
      if (!isOneOf(SHELLS, shell))
        throw new UsageError("usage", `no completion for the shell ${JSON.stringify(shell)}`, {
          hint: `choose one of ${SHELLS.join(", ")}`,
        });
      const list = entries(program);
      const script = { bash, zsh, fish }[shell](list);
      process.stdout.write(script);
    });
}
