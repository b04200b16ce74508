// The catalog of every diagnostic code src/decide emits: the machine config (D-50), judgement
// modes (D-10), the resolver (D-30) and the providers (D-21, D-22). `switchyard explain CODE` and
// docs/decisions.md read it. Shared by several files of this layer: only ever APPEND entries.

import type { CodeEntry } from "../lang/diagnostic.js";
export type { CodeEntry };

/** Every code the decision layer emits (machine config, modes, providers, decisions), with its rule and explanation. */
export const DECIDE_CODES: CodeEntry[] = [
  // --- the machine config (D-50), src/decide/config.ts ---
  {
    code: "config-not-found",
    usage: true,
    rule: "D-50",
    summary: "the machine config file given with --config does not exist",
    explain:
      "`--config FILE` must name an existing TOML file. Without `--config`, switchyard reads `$XDG_CONFIG_HOME/switchyard/config.toml` (else `~/.config/switchyard/config.toml`), and a missing default file simply means every default applies. Check the path, or drop `--config`.",
  },
  {
    code: "config-unreadable",
    usage: true,
    rule: "D-50",
    summary: "the machine config file exists but cannot be read",
    explain:
      "The file could not be read: permissions, or it is not a regular file (a folder, a FIFO, a device: it is never waited on), larger than 1 MB, or not UTF-8 text. Make it a readable UTF-8 TOML file (a symlink to one is fine).",
  },
  {
    code: "config-syntax",
    usage: true,
    rule: "D-50",
    summary: "the machine config is not valid TOML",
    explain:
      "The file failed to parse as TOML 1.0 at the position shown: a missing quote, a duplicate key, or a table defined twice are the usual causes. Fix the syntax there.",
  },
  {
    code: "config-unknown-key",
    usage: true,
    rule: "D-50",
    summary: "the machine config has a key switchyard does not know",
    explain:
      "Every table of the machine config accepts a fixed set of keys (listed in the message and in docs/decisions.md): top level `agents`, `providers`, `decisions`; `[agents.NAME]` `command`, `env`; `[providers.NAME]` `kind`, `vendor`, `base_url`, `api_key_env`, `models`, `logprob_models`, `context_window`, `command`, `protocol`, `timeout`, `max_retries`; `[decisions]` `default`, `deny_vendors`, `fallback_on_refusal`, `host`, `types`. A key outside these is most likely a typo: the message suggests the nearest known key.",
  },
  {
    code: "config-bad-type",
    usage: true,
    rule: "D-50",
    summary: "a machine config value has the wrong type",
    explain:
      'The key exists but its value has the wrong TOML type, e.g. `models = "m1"` where a list of strings (`models = ["m1"]`) is expected, or `max_retries = "3"` where an integer is. The message names the type expected.',
  },
  {
    code: "config-missing-key",
    usage: true,
    rule: "D-50",
    summary: "a required machine config key is missing",
    explain:
      "Some keys are required: every provider needs `kind`, `vendor` and `models`; a `systemone` provider needs `base_url`; a `command` provider and every agent runner need `command`. Add the key the message names.",
  },
  {
    code: "config-bad-value",
    usage: true,
    rule: "D-50",
    summary: "a machine config value is not one of those accepted",
    explain:
      'The value has the right type but is not accepted: an unknown provider `kind` (accepted: systemone, openai, command), an empty `models` list, a `timeout` that is not a duration such as "30s" or "500ms", a `context_window` that is not a positive integer, an `api_key_env` that is not an environment variable name, an empty `command`, or a `protocol` other than "once" and "lines". The message says what is accepted.',
  },
  {
    code: "config-key-not-for-kind",
    usage: true,
    rule: "D-21",
    summary: "a provider key does not apply to the provider's kind",
    explain:
      '`command` and `protocol` apply only to `kind = "command"`; `base_url` and `api_key_env` only to `systemone` and `openai`; `logprob_models` only to `openai`. Remove the key, or change the provider\'s kind.',
  },
  {
    code: "config-bad-mode",
    usage: true,
    rule: "D-10",
    summary: "a judgement mode is not host, review, shadow:PROVIDER/MODEL[,PROVIDER/MODEL…] or PROVIDER/MODEL",
    explain:
      "`[decisions] default`, each entry of `[decisions.types]` and each `--decide TYPE=MODE` take one of these modes: `host` (the host answers), `review` (people answer from the review queue), `shadow:PROVIDER/MODEL` (the host answers and is used; the model answers beside it for the lab) — or `shadow:PROVIDER/MODEL,PROVIDER/MODEL` with two or more different candidate models, each answering beside the host —, or `PROVIDER/MODEL` (the model answers, the host is the fallback; one model only). PROVIDER is the name of a `[providers.NAME]` block and MODEL one of its `models` (everything after the first `/`). A candidate listed twice, an empty entry in the list, or a comma in a turned-on mode is this error.",
  },
  {
    code: "config-unknown-provider",
    usage: true,
    rule: "D-10",
    summary: "a judgement mode names a provider that is not configured",
    explain:
      "The PROVIDER part of a mode must be the name of a `[providers.NAME]` block of the machine config. Add the block, or fix the name (the message suggests the nearest configured provider).",
  },
  {
    code: "config-unlisted-model",
    usage: true,
    rule: "D-30",
    summary: "a model is not in its provider's `models` allowlist",
    explain:
      "Only the models a provider lists in `models` may be asked (D-30). A mode, a `logprob_models` entry or a `context_window` key named a model that is not listed. Add it to the provider's `models`, or fix the name.",
  },
  {
    code: "config-unknown-agent",
    usage: true,
    rule: "D-20",
    summary: "`[decisions] host` names no agent runner",
    explain:
      "The host (who answers in `host` mode, in shadow mode and on fallback) is either `tty` (a person at the terminal) or the name of an `[agents.NAME]` block of the machine config. Add the agent block, or fix the name.",
  },
  {
    code: "config-denied-vendor",
    usage: true,
    rule: "D-30",
    summary: "a judgement type is routed to a provider whose vendor is denied",
    explain:
      "`[decisions] deny_vendors` lists vendors whose models are never asked, whatever the provider lists. A mode routes a judgement type to a provider of a denied vendor; at run time the run would refuse to start. Route the type elsewhere, or remove the vendor from `deny_vendors`.",
  },
  {
    code: "config-bad-override",
    usage: true,
    rule: "D-10",
    summary: "a --decide flag is not TYPE=MODE",
    explain:
      "`--decide` takes `TYPE=MODE`, e.g. `--decide triage.gate.exploitable=shadow:local/decider-2b`, and may be repeated. TYPE is a judgement type (Q-5) and MODE one of `host`, `review`, `shadow:PROVIDER/MODEL[,PROVIDER/MODEL…]`, `PROVIDER/MODEL`.",
  },
  {
    code: "config-undeclared-type",
    usage: true,
    rule: "D-50",
    summary: "the config routes a judgement type that no playbook of the pack declares",
    explain:
      "A warning of `switchyard config check PACK`: `[decisions.types]` (or a `--decide` flag) names a judgement type that no question of the pack asks, so the routing has no effect for this pack. It is often a typo (the message suggests the nearest declared type); it is harmless when the machine config also serves other packs.",
  },
  {
    code: "config-key-unset",
    usage: true,
    rule: "D-21",
    summary: "a routed provider's api_key_env variable is not set",
    explain:
      "A warning of `switchyard config check`: a judgement type is routed to a provider whose `api_key_env` names an environment variable that is not set in this shell, so a run from here would fail its calls (turned on: fall back to the host; shadow: skipped pairs). Export the variable before running. The key itself never goes in the config.",
  },
  // --- the router, src/decide/router.ts (failures of one element's decision) ---
  {
    code: "host-failed",
    rule: "D-20",
    summary: "the host could not answer a decision",
    explain:
      "The host (an agent runner, or a person at the terminal) failed to answer: the runner could not start, exited non-zero, timed out, or gave no answer for a question; or the terminal could not be opened. The element's decision fails and its downstream work is not taken; other elements are unaffected. In turned-on mode this is the fallback failing too, after the model could not answer. Check the runner named by `[decisions] host` (its command, and its stderr in the message).",
  },
  {
    code: "decision-cancelled",
    rule: "D-1",
    summary: "the decision was cancelled with its run",
    explain:
      "The run was cancelled (or timed out) while the decision was being asked; nothing was recorded for the element and no fallback was asked. Resume the run to ask it again.",
  },
  // --- answers and the host, src/decide/answer.ts and src/decide/providers/host.ts ---
  {
    code: "invalid-answer",
    rule: "Q-10",
    summary: "a provider's answer is not a valid distribution over the question's labels",
    explain:
      "Every answer is derived from the returned probabilities (Q-10): each of the question's labels must be present, each value a number in [0, 1], and their sum positive (a sum more than 1e-3 away from 1 is normalised). The message names what was wrong — a missing label, a label not asked about, a negative, NaN or above-1 probability, a sum of 0, or no answer at all for a question. The element's decision fails (turned on: the host answers instead, with a receipt); other elements are unaffected. It points at the provider or model server: check what it returns for this question, e.g. with the test servers of docs/providers.md.",
  },
  {
    code: "host-unparseable",
    rule: "D-20",
    summary: "the host's reply could not be read as one label, twice",
    explain:
      "The host is asked to answer with exactly one label. Its reply is read as a label when it is one (give or take case, quotes, emphasis and a final full stop), when its last line is one, or when exactly one label occurs in it as a whole word; at the terminal an option's number is accepted too. A reply that is none of these is asked once more, saying why; a second unreadable reply fails the element's decision. Make the agent runner reply with the label alone (the prompt asks for it), or answer at the terminal with a listed label or its number.",
  },
  // --- calibration maps in the machine config (D-33), src/decide/type-entry.ts ---
  {
    code: "config-bad-calibration",
    usage: true,
    rule: "D-33",
    summary: "a type's calibration file is missing, invalid, or fitted for another type or model",
    explain:
      "A table-form `[decisions.types]` entry may name a calibration file (`calibration = \"cal.json\"`, relative to the config file) written by `switchyard lab calibrate`. The file must exist, be a calibration file of a version this switchyard reads, hold a map for that judgement type, and that map must have been fitted on pairs of the very model the entry's mode names: a map says how one model's confidence relates to agreement with the host, so it means nothing for another. Fit a map for this type and model (run it in shadow, then `switchyard lab calibrate`), or fix the path.",
  },
  // --- the review queue (D-60 … D-66), src/decide/review-queue.ts ---
  {
    code: "review-not-waiting",
    usage: true,
    rule: "D-63",
    summary: "the element or question named does not wait for review",
    explain:
      "`switchyard review RUN --key K --answer QUESTION=LABEL` answers a question that waits in the run's review queue. The element has no waiting question (it was never sent to review, or it was answered already: an answer is given once and never asked again), or the question named is not one of its waiting questions. `switchyard review RUN --list` lists what waits; to ask a decided element again, rerun its route.",
  },
  {
    code: "review-bad-label",
    usage: true,
    rule: "D-63",
    summary: "the answer given is not one of the question's labels",
    explain:
      "A review answer must be one of the question's labels (choice options, `yes`/`no`, score levels) or `uncertain`. The message lists them.",
  },
  {
    code: "config-unquoted-type",
    usage: true,
    rule: "D-50",
    summary: "a judgement type with dots is written without quotes in [decisions.types]",
    explain:
      'A judgement type has dots (`triage.match.package`), and a bare TOML key with dots is a path of nested tables, so `triage.match.package = "host"` sets nothing for that type. Quote the whole type: `"triage.match.package" = "host"`.',
  },
  {
    code: "config-unrouted-type",
    usage: true,
    rule: "D-50",
    summary: "a question's judgement type has no entry, and an unused entry looks meant for it",
    explain:
      "A warning of `switchyard config check PACK` and of the start of `run`: the type this question asks has no entry in `[decisions.types]` (nor a `--decide` flag), so its decisions go to `[decisions] default` (usually the host), while an entry no question asks has a name close to it: the other half of a typo. Correct the misspelt entry. A type left to the default with no such entry nearby is not warned about: leaving types to the default is common.",
  },
];
