// Where benchmarks keep their state: under the working directory (as a user's .switchyard/ is),
// not the system temp folder, whose file-creation cost can differ by 5x or more from the disk a
// project lives on (measured here: 1,500 creates took ~1.3 s in /tmp and ~0.2 s under /work).
// Override with SWITCHYARD_BENCH_DIR.

import { mkdirSync, mkdtempSync } from "node:fs";
import { join, resolve } from "node:path";

export function scratchDir(prefix: string): string {
  const base = resolve(process.env.SWITCHYARD_BENCH_DIR ?? ".bench-scratch");
  mkdirSync(base, { recursive: true });
  return mkdtempSync(join(base, prefix));
}
