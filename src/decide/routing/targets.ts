// Step 1 of a judgement: where each question goes. A host-mode question goes to the host; a shadow
// question to the host and to its shadow model; a turned-on question to its model, batched with the
// other questions of the same instance that share that model (D-11), and to the host as well when
// it is sampled for audit (D-34). A calibrated type (D-33) is asked with no threshold: the
// threshold is tested later, on the calibrated confidence.

import type { JudgeRequest, ResolvedQuestion } from "../../run/kinds/index.js";
import { auditSampled } from "../audit.js";
import type { JudgementMode, MachineConfig, TypeSettings } from "../config-types.js";
import { formatMode, modelsOf } from "../mode.js";

/** One model and the questions of an instance it is asked in one request (D-11). */
export interface Target {
  provider: string;
  model: string;
  questions: ResolvedQuestion[];
}

/** A calibrated question's settings and the threshold its calibrated confidence must reach (D-33). */
export interface Calibration {
  settings: TypeSettings;
  min_confidence: number;
}

/** Where one judgement's questions go (planTargets): the host, turned-on models, shadow models. */
export interface Targets {
  /** Question id → the mode its judgement type runs in. */
  modes: Map<string, JudgementMode>;
  /** The questions the host is asked, in request order (host, shadow and audited questions). */
  forHost: ResolvedQuestion[];
  /** PROVIDER/MODEL → the turned-on questions that model answers. */
  turnedOn: Map<string, Target>;
  /** PROVIDER/MODEL → the shadow questions that model is asked alongside the host (each candidate of a type, H-6). */
  shadows: Map<string, Target>;
  /** Turned-on questions the host is asked about as well (D-34). */
  audited: Set<string>;
  /** Turned-on questions whose confidence is calibrated (D-33), with their threshold. */
  calibrations: Map<string, Calibration>;
  /** Review-mode questions (D-60): nobody is asked now; they go to the review queue. */
  forReview: ResolvedQuestion[];
  /** Turned-on questions that go to review when the model's confidence is below this (D-61). */
  escalations: Map<string, number>;
  /** Turned-on and shadow questions → the min_confidence their models' answers are tested against (recorded). */
  thresholds: Map<string, number>;
}

/**
 * A table-form `[decisions.types]` entry's settings, while the type runs in the mode they were
 * written beside: a `--decide` override to another mode drops them (its calibration was fitted on
 * another model, its audit rate chosen for another mode).
 */
export function settingsFor(config: MachineConfig, overrides: Record<string, JudgementMode>, type: string): TypeSettings | undefined {
  const s = config.decisions.settings?.[type];
  if (!s) return undefined;
  const override = Object.hasOwn(overrides, type) ? overrides[type] : undefined;
  return override !== undefined && formatMode(override) !== formatMode(s.mode) ? undefined : s;
}

/** Which questions go to the host, to which model, and which are audited or calibrated. */
export function planTargets(
  req: Pick<JudgeRequest, "run" | "task" | "key" | "questions">,
  modeOf: (type: string) => JudgementMode,
  settingsOf: (type: string) => TypeSettings | undefined,
): Targets {
  const modes = new Map<string, JudgementMode>();
  const forHost: ResolvedQuestion[] = [];
  const turnedOn = new Map<string, Target>();
  const shadows = new Map<string, Target>();
  const audited = new Set<string>();
  const calibrations = new Map<string, Calibration>();
  const forReview: ResolvedQuestion[] = [];
  const escalations = new Map<string, number>();
  const thresholds = new Map<string, number>();
  for (const q of req.questions) {
    const mode = modeOf(q.type);
    modes.set(q.id, mode);
    if (mode.kind === "host" || mode.kind === "review") {
      (mode.kind === "host" ? forHost : forReview).push(q);
      continue;
    }
    const settings = settingsOf(q.type);
    if (mode.kind === "model" && settings?.escalate_below !== undefined) escalations.set(q.id, settings.escalate_below);
    // The machine config's min_confidence wins over the playbook's (D-33).
    let asked = settings?.min_confidence === undefined ? q : { ...q, min_confidence: settings.min_confidence };
    thresholds.set(q.id, asked.min_confidence);
    if (mode.kind === "shadow") forHost.push(q);
    else if (settings) {
      if (settings.calibration) {
        // The threshold is tested on the calibrated confidence, later; the model's own label stands.
        calibrations.set(q.id, { settings, min_confidence: asked.min_confidence });
        asked = { ...asked, min_confidence: 0 };
      }
      if (settings.audit !== undefined && auditSampled(settings.audit, req.run, req.task, req.key, q.id)) {
        audited.add(q.id);
        forHost.push(q);
      }
    }
    // A shadow question goes to each of its candidates (H-6), each batched per model.
    const groups = mode.kind === "shadow" ? shadows : turnedOn;
    for (const ref of modelsOf(mode)) {
      const key = `${ref.provider}/${ref.model}`;
      const t = groups.get(key) ?? { provider: ref.provider, model: ref.model, questions: [] };
      t.questions.push(asked);
      groups.set(key, t);
    }
  }
  return { modes, forHost, turnedOn, shadows, audited, calibrations, forReview, escalations, thresholds };
}

/**
 * The host's failure fails the element only when a host or shadow question needed it; an audit
 * answer is extra evidence, and the model still gates without it.
 */
export function needsHost(t: Pick<Targets, "forHost" | "audited">): boolean {
  return t.forHost.some((q) => !t.audited.has(q.id));
}
