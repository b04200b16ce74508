// The calibrations a harvest reports on (docs/lab.md): the maps of a calibration file (by
// default the lab folder's calibration.json, which `lab calibrate` writes), and those a machine
// config applies to its turned-on types. `lab harvest` and the web view's lab page both read them
// here, so the two show the same facts.

import { readFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { checkCalibrationFile } from "../decide/calibration-map.js";
import type { MachineConfig } from "../decide/config-types.js";
import type { KnownCalibration } from "./harvest.js";
import { messageOf, errnoCode } from "../shared/thrown.js";

const CALIBRATION_FILE = "calibration.json";

/** The calibration file `lab calibrate` writes for a pairs file by default: beside it. */
export function defaultCalibrationFile(pairsFile: string): string {
  return join(dirname(pairsFile), CALIBRATION_FILE);
}

/**
 * The maps of a calibration file, by judgement type. A missing file is no calibration unless
 * `required` (it was named on purpose); an unreadable or malformed one is a sentence saying why.
 */
export function readCalibrations(
  file: string,
  labId: string | null,
  required: boolean,
): { calibrations: Record<string, KnownCalibration> } | { error: string } {
  let value: unknown;
  try {
    value = JSON.parse(readFileSync(file, "utf8"));
  } catch (err) {
    if (!required && errnoCode(err) === "ENOENT") return { calibrations: {} };
    return { error: `cannot read the calibration file ${file}: ${messageOf(err)}` };
  }
  const checked = checkCalibrationFile(value);
  if ("error" in checked) return { error: `${file} is not a calibration file: ${checked.error}` };
  const out: Record<string, KnownCalibration> = {};
  for (const [type, c] of Object.entries(checked.types))
    out[type] = { calibration: { ...c, type }, file, lab: checked.lab ?? labId, applied: false };
  return { calibrations: out };
}

/** The maps a machine config applies (its `[decisions.types]` entries with a `calibration`). */
export function appliedCalibrations(config: MachineConfig): Record<string, KnownCalibration> {
  const out: Record<string, KnownCalibration> = {};
  for (const [type, s] of Object.entries(config.decisions.settings ?? {})) {
    if (!s.calibration) continue;
    const { file, ...calibration } = s.calibration;
    out[type] = { calibration, file, lab: null, applied: true };
  }
  return out;
}
