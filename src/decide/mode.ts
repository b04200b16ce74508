// Judgement modes (D-10) as written in the machine config and in `--decide TYPE=MODE` flags:
// `host`, `review` (D-60), `shadow:PROVIDER/MODEL[,PROVIDER/MODEL…]` (H-6: several candidates beside
// the host), or `PROVIDER/MODEL`. The model is everything after the first `/`, so model names that
// contain slashes (`meta-llama/Llama-3.1-8B` on a vLLM server) work; a comma separates candidates.

import { DiagnosticError, errorAt, type Position } from "../lang/diagnostic.js";
import type { JudgementMode, ModelRef } from "./config-types.js";

const PROVIDER_NAME = /^[A-Za-z0-9_-]+$/;

/** The forms of a mode, for messages that say what was expected. */
export const MODE_FORMS = "`host`, `review`, `shadow:PROVIDER/MODEL[,PROVIDER/MODEL…]` or `PROVIDER/MODEL`";

/** One `PROVIDER/MODEL` of the mode `t`, or a sentence saying what is wrong with it. */
function modelRef(t: string, text: string, shadow: boolean): ModelRef | { error: string } {
  const slash = text.indexOf("/");
  if (slash < 0) {
    if (shadow && text === "host") return { error: `"${t}": shadow mode needs a model to shadow the host with, "shadow:PROVIDER/MODEL"` };
    return { error: `"${t}" is not a mode: ${shadow ? `"${text}" is not PROVIDER/MODEL` : "a model is written PROVIDER/MODEL"}` };
  }
  const provider = text.slice(0, slash);
  const model = text.slice(slash + 1);
  if (!PROVIDER_NAME.test(provider)) return { error: `"${t}": "${provider}" is not a provider name (letters, digits, "_" and "-")` };
  if (model.length === 0 || /\s/.test(model)) return { error: `"${t}": the model after "${provider}/" is empty or has spaces` };
  return { provider, model };
}

/** The shadow candidates of `shadow:LIST` (H-6): one or more distinct models, comma-separated. */
function shadowModels(t: string, list: string): ModelRef[] | { error: string } {
  const models: ModelRef[] = [];
  for (const part of list.split(",")) {
    const text = part.trim();
    if (text.length === 0)
      return { error: `"${t}": the list of shadow models has an empty entry (write shadow:PROVIDER/MODEL,PROVIDER/MODEL)` };
    const ref = modelRef(t, text, true);
    if ("error" in ref) return ref;
    if (models.some((m) => m.provider === ref.provider && m.model === ref.model))
      return { error: `"${t}" names ${ref.provider}/${ref.model} twice: each shadow model is asked once per question, list it once` };
    models.push(ref);
  }
  return models;
}

/** The mode, or a sentence saying what is wrong with the text. */
export function parseMode(text: string): JudgementMode | { error: string } {
  const t = text.trim();
  if (t === "host") return { kind: "host" };
  if (t === "review") return { kind: "review" };
  if (t.startsWith("shadow:")) {
    const models = shadowModels(t, t.slice("shadow:".length));
    return "error" in models ? models : { kind: "shadow", models };
  }
  if (/^[A-Za-z]+:/.test(t)) {
    return { error: `"${t}" has an unknown prefix "${t.slice(0, t.indexOf(":") + 1)}" (the only prefix is "shadow:")` };
  }
  if (t.includes(","))
    return { error: `"${t}" lists several models, but a turned-on mode has one; only a shadow mode lists candidates (shadow:A/M1,B/M2)` };
  const ref = modelRef(t, t, false);
  return "error" in ref ? ref : { kind: "model", ...ref };
}

/** The models a mode asks: none for host and review, its model, or each shadow candidate. */
export function modelsOf(mode: JudgementMode): ModelRef[] {
  if (mode.kind === "host" || mode.kind === "review") return [];
  return mode.kind === "shadow" ? mode.models : [{ provider: mode.provider, model: mode.model }];
}

/** A mode as written in the config and in `--decide`: `host`, `shadow:P/M[,P/M…]` or `P/M`. */
export function formatMode(mode: JudgementMode): string {
  if (mode.kind === "host" || mode.kind === "review") return mode.kind;
  const targets = modelsOf(mode).map((m) => `${m.provider}/${m.model}`);
  return mode.kind === "shadow" ? `shadow:${targets.join(",")}` : targets.join(",");
}

/** One `--decide TYPE=MODE` flag, parsed. */
export interface ModeOverride {
  type: string;
  mode: JudgementMode;
}

/** One `--decide TYPE=MODE` flag; throws DiagnosticError (config-bad-override, config-bad-mode). */
export function parseModeOverride(text: string, pos?: Position): ModeOverride {
  const eq = text.indexOf("=");
  const type = eq < 0 ? "" : text.slice(0, eq).trim();
  if (eq < 0 || type.length === 0) {
    throw new DiagnosticError(
      errorAt(
        "config-bad-override",
        `--decide "${text}" is not TYPE=MODE`,
        pos,
        `write e.g. --decide triage.gate.exploitable=shadow:PROVIDER/MODEL; MODE is ${MODE_FORMS}`,
      ),
    );
  }
  const mode = parseMode(text.slice(eq + 1));
  if ("error" in mode) {
    throw new DiagnosticError(errorAt("config-bad-mode", `--decide ${type}: ${mode.error}`, pos, `MODE is ${MODE_FORMS}`));
  }
  return { type, mode };
}

/** Every `--decide` flag, later flags for the same type winning. */
export function parseModeOverrides(flags: readonly string[]): Record<string, JudgementMode> {
  const out: Record<string, JudgementMode> = {};
  const errors = [];
  for (const f of flags) {
    try {
      const { type, mode } = parseModeOverride(f);
      out[type] = mode;
    } catch (err) {
      if (err instanceof DiagnosticError) errors.push(...err.diagnostics);
      else throw err;
    }
  }
  if (errors.length > 0) throw new DiagnosticError(errors);
  return out;
}

/** The mode of a judgement type (D-10): a --decide override, then [decisions.types], then default. */
export function modeFor(
  type: string,
  decisions: { default: JudgementMode; types: Record<string, JudgementMode> },
  overrides: Record<string, JudgementMode> = {},
): JudgementMode {
  const override = Object.hasOwn(overrides, type) ? overrides[type] : undefined;
  const typed = Object.hasOwn(decisions.types, type) ? decisions.types[type] : undefined;
  return override ?? typed ?? decisions.default;
}
