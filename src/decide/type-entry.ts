// The table form of a `[decisions.types]` entry (D-33, D-34):
//   "t" = { mode = "prov/model", calibration = "cal.json", min_confidence = 0.82, audit = 0.1 }
// The plain-string form ("t" = "prov/model") stays a mode alone. The calibration file is read and
// checked here, when the config loads: a missing file, a file without a map for the type, or a
// map fitted for another model is a config error, never a surprise at run time.

import { readFileSync } from "node:fs";
import { resolve } from "node:path";
import { checkCalibrationFile } from "./calibration-map.js";
import type { JudgementMode, TypeSettings } from "./config-types.js";
import { formatMode } from "./mode.js";
import { messageOf, errnoCode } from "../shared/thrown.js";
import { reviewTimeout } from "./review-config.js";

/** The keys of a table-form `[decisions.types]` entry. */
export const TYPE_ENTRY_KEYS = ["mode", "calibration", "min_confidence", "audit", "escalate_below", "review_timeout"];

/** What reading a `[decisions.types]` entry needs from the config reader: where to report problems, how to resolve a mode, and the folder relative calibration paths start from. */
export interface EntryContext {
  /** Reports a problem at the key (or, atValue, at its value). */
  error(code: string, path: readonly string[], message: string, hint?: string, atValue?: boolean): void;
  wrongType(path: readonly string[], value: unknown, expected: string): void;
  known(table: Record<string, unknown>, path: readonly string[], allowed: readonly string[]): void;
  /** Parses and resolves a mode; reports and returns undefined when it is not usable. */
  mode(text: string, path: readonly string[], name: string): JudgementMode | undefined;
  /** The config file's folder: relative calibration paths start there. */
  baseDir: string;
}

function fraction(
  ctx: EntryContext,
  body: Record<string, unknown>,
  path: readonly string[],
  key: string,
  name: string,
  what: string,
): number | undefined {
  const v = body[key];
  if (v === undefined) return undefined;
  const p = [...path, key];
  if (typeof v !== "number" && typeof v !== "bigint") {
    ctx.wrongType(p, v, `a number from 0 to 1 (${what})`);
    return undefined;
  }
  const x = Number(v);
  if (!(x >= 0 && x <= 1)) {
    ctx.error(
      "config-bad-value",
      p,
      `${name}.${key} = ${x} is not between 0 and 1`,
      `${key} is ${what}, e.g. ${key} = ${key === "audit" ? "0.1" : "0.82"}`,
      true,
    );
    return undefined;
  }
  return x;
}

/** The mode and settings of one table-form entry, or undefined when it has errors (reported). */
// eslint-disable-next-line max-lines-per-function -- a table: one [decisions.types] entry read key by key
export function typeEntry(
  type: string,
  body: Record<string, unknown>,
  path: readonly string[],
  name: string,
  ctx: EntryContext,
): TypeSettings | undefined {
  ctx.known(body, path, TYPE_ENTRY_KEYS);
  if (body.mode === undefined) {
    ctx.error(
      "config-missing-key",
      path,
      `${name} has no "mode"`,
      `write e.g. ${JSON.stringify(type)} = { mode = "PROVIDER/MODEL", min_confidence = 0.8 }`,
    );
    return undefined;
  }
  if (typeof body.mode !== "string") {
    ctx.wrongType([...path, "mode"], body.mode, "a mode string");
    return undefined;
  }
  const mode = ctx.mode(body.mode, [...path, "mode"], `${name}.mode`);
  const minConfidence = fraction(ctx, body, path, "min_confidence", name, "the confidence under which the answer is uncertain");
  const audit = fraction(ctx, body, path, "audit", name, "the fraction of decisions the host is asked about as well");
  const escalate = fraction(ctx, body, path, "escalate_below", name, "the confidence under which a person reviews the answer");
  const timeout = reviewTimeout(ctx, body.review_timeout, [...path, "review_timeout"], `${name}.review_timeout`);
  if (mode === undefined) return undefined;
  const settings: TypeSettings = { mode };
  if (minConfidence !== undefined) settings.min_confidence = minConfidence;
  if (audit !== undefined && audit > 0) settings.audit = audit;
  if (escalate !== undefined && escalate > 0) settings.escalate_below = escalate;
  if (timeout !== undefined) settings.review_timeout_ms = timeout;
  // Keys that only a mode with a model reads: written beside `host` they would do nothing.
  const onlyTurnedOn = (key: string): boolean => {
    if (body[key] === undefined || mode.kind === "model") return true;
    ctx.error(
      "config-bad-value",
      [...path, key],
      `${name}.${key} does nothing in mode "${formatMode(mode)}"`,
      `${key} applies only to a turned-on mode (PROVIDER/MODEL)${key === "min_confidence" ? " or a shadow one" : ""}; remove it, or change the mode`,
    );
    return false;
  };
  const calOk = onlyTurnedOn("calibration");
  let ok = onlyTurnedOn("audit") && calOk;
  ok = onlyTurnedOn("escalate_below") && ok;
  if ((mode.kind === "host" || mode.kind === "review") && body.min_confidence !== undefined) ok = onlyTurnedOn("min_confidence") && ok;
  // A timeout needs a queue to wait in: review mode, or a turned-on type that escalates (D-64).
  if (timeout !== undefined && mode.kind !== "review" && settings.escalate_below === undefined) {
    ctx.error(
      "config-bad-value",
      [...path, "review_timeout"],
      `${name}.review_timeout does nothing: no question of this type goes to review`,
      'review_timeout applies with mode = "review", or with a turned-on mode and escalate_below; remove it, or add one of them',
    );
    ok = false;
  }
  const cal = body.calibration;
  if (cal !== undefined && mode.kind === "model") {
    if (typeof cal !== "string") {
      ctx.wrongType([...path, "calibration"], cal, "a path to a calibration file (written by `switchyard lab calibrate`)");
      return undefined;
    }
    const file = resolve(ctx.baseDir, cal);
    const at = [...path, "calibration"];
    const bad = (message: string, hint: string): undefined => {
      ctx.error("config-bad-calibration", at, `${name}.calibration: ${message}`, hint, true);
      return undefined;
    };
    let value: unknown;
    try {
      value = JSON.parse(readFileSync(file, "utf8"));
    } catch (err) {
      const code = errnoCode(err);
      if (code === "ENOENT")
        return bad(
          `${file} does not exist`,
          "fit one with `switchyard lab calibrate -o FILE`; a relative path is relative to this config file",
        );
      return bad(`${file} cannot be read as JSON (${code ?? messageOf(err)})`, "write it with `switchyard lab calibrate -o FILE`");
    }
    const checked = checkCalibrationFile(value);
    if ("error" in checked)
      return bad(`${file} is not a calibration file: ${checked.error}`, "write it with `switchyard lab calibrate -o FILE`");
    const entry = Object.hasOwn(checked.types, type) ? checked.types[type] : undefined;
    if (!entry) {
      const has = Object.keys(checked.types);
      return bad(
        `${file} has no map for judgement type "${type}"`,
        has.length > 0 ? `it has maps for: ${has.join(", ")}` : "it has no maps: calibrate a lab with pairs of this type",
      );
    }
    const target = `${mode.provider}/${mode.model}`;
    if (entry.model !== target) {
      return bad(
        `the map for "${type}" in ${file} was fitted for model ${entry.model}, not ${target}`,
        "a map says how one model's confidence relates to agreement; fit one for this model (shadow it, then `switchyard lab calibrate`)",
      );
    }
    settings.calibration = { ...entry, type, file };
  }
  return ok ? settings : undefined;
}
