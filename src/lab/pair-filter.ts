// Which pairs a report or a fit reads (docs/lab.md): the `--run`, `--since`, `--type` and
// `--model` filters, and the report-level dedupe by (kind, type, state digest, host label, model) — the
// same question about the same state answered the same way by the host is one piece of evidence,
// however many runs asked it. The dedupe keeps 8 bytes per distinct pair (a 64-bit hash in an
// open-addressing table), so a million pairs cost a few megabytes.

import { createHash } from "node:crypto";
import type { ShadowPair } from "../decide/pair.js";
import { itemAt } from "../shared/checked-index.js";

/** Which pairs a lab command reads: by run, judgement type and time, with or without duplicates. */
export interface PairFilters {
  /** Only pairs of these runs. */
  runs?: string[];
  /** Only pairs recorded at or after this time. */
  since?: Date;
  /** Only these judgement types. */
  types?: string[];
  /** Only pairs of these models, PROVIDER/MODEL (a lab that shadowed several candidates, H-6). */
  models?: string[];
  /** Keep duplicates (`--all`). */
  all?: boolean;
}

/** "shadow" unless the pair says it is an audit or a reviewed pair (older files have no kind). */
export function pairKind(pair: ShadowPair): "shadow" | "audit" | "reviewed" {
  return pair.kind === "audit" || pair.kind === "reviewed" ? pair.kind : "shadow";
}

/** The model a pair is about: `provider/model` of the answer or of the skip. */
export function pairModel(pair: ShadowPair): string {
  const who = pair.model ?? pair.skipped;
  return who ? `${who.provider}/${who.model}` : "";
}

/**
 * The line a calibration's pairs digest takes per labelled answer: `lab calibrate` records the
 * digest, and harvest recomputes it to tell whether a map was fitted on the pairs it reads.
 */
export function fitDigestLine(pair: ShadowPair, who: string, label: string, confidence: number): string {
  return (
    JSON.stringify([pair.run, pair.task, pair.key, pair.question.id, pair.state_digest, pair.host_label, who, label, confidence]) + "\n"
  );
}

/** A set of 64-bit keys: two Uint32Arrays, linear probing, doubled at half full. */
class HashSet64 {
  private hi = new Uint32Array(1024);
  private lo = new Uint32Array(1024);
  private used = new Uint8Array(1024);
  private size = 0;
  /** Adds the key; false when it was already there. */
  add(h: number, l: number): boolean {
    if (this.size * 2 >= this.used.length) this.grow();
    const mask = this.used.length - 1;
    for (let i = (l ^ h) & mask; ; i = (i + 1) & mask) {
      if (!this.used[i]) {
        this.used[i] = 1;
        this.hi[i] = h;
        this.lo[i] = l;
        this.size++;
        return true;
      }
      if (this.hi[i] === h && this.lo[i] === l) return false;
    }
  }
  private grow(): void {
    const { hi, lo, used } = this;
    this.hi = new Uint32Array(used.length * 2);
    this.lo = new Uint32Array(used.length * 2);
    this.used = new Uint8Array(used.length * 2);
    this.size = 0;
    for (let i = 0; i < used.length; i++) if (used[i]) this.add(itemAt(hi, i), itemAt(lo, i));
  }
}

/** A stateful filter over a pairs file read in order: keeps the pairs asked for and counts the duplicates it drops. */
export interface PairSelection {
  /** True for the pairs to read; call once per pair, in file order. */
  keep(pair: ShadowPair): boolean;
  /** Pairs dropped so far as duplicates of an earlier one. */
  readonly duplicates: number;
}

/** The filters and the dedupe, for one pass over a file. */
export function pairFilter(filters: PairFilters = {}): PairSelection {
  const runs = filters.runs && filters.runs.length > 0 ? new Set(filters.runs) : null;
  const types = filters.types && filters.types.length > 0 ? new Set(filters.types) : null;
  const models = filters.models && filters.models.length > 0 ? new Set(filters.models) : null;
  const since = filters.since?.getTime();
  const seen = filters.all ? null : new HashSet64();
  let duplicates = 0;
  return {
    keep(pair) {
      if (runs && !runs.has(pair.run)) return false;
      if (types && !types.has(pair.type)) return false;
      if (models && !models.has(pairModel(pair))) return false;
      if (since !== undefined) {
        const t = Date.parse(pair.time);
        if (!(t >= since)) return false;
      }
      if (!seen) return true;
      const d = createHash("sha256")
        .update(
          `${pairKind(pair)}\u0000${pair.type}\u0000${pair.state_digest}\u0000${pair.host_label}\u0000${pairModel(pair)}` +
            // Two people's different labels for one element are two pieces of evidence; the same one imported twice is one.
            (pair.kind === "reviewed" ? `\u0000${pair.reviewed?.label ?? ""}` : ""),
        )
        .digest();
      if (seen.add(d.readUInt32LE(0), d.readUInt32LE(4))) return true;
      duplicates++;
      return false;
    },
    get duplicates() {
      return duplicates;
    },
  };
}

/**
 * `--since`: an ISO 8601 date or time ("2026-12-01", "2026-12-01T09:00Z"), or an age such as
 * "90m", "36h", "7d" counted back from `now`. Undefined when the text is neither.
 */
export function parseSince(text: string, now: Date = new Date()): Date | undefined {
  const age = /^(\d+(?:\.\d+)?)(m|h|d|w)$/.exec(text.trim());
  if (age) {
    const unit = { m: 60_000, h: 3_600_000, d: 86_400_000, w: 604_800_000 }[age[2] as "m" | "h" | "d" | "w"];
    return new Date(now.getTime() - Number(age[1]) * unit);
  }
  if (!/^\d{4}-\d{2}-\d{2}/.test(text.trim())) return undefined;
  const t = Date.parse(text.trim());
  return Number.isNaN(t) ? undefined : new Date(t);
}
