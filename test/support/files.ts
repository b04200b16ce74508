// Reading what a run left on disk, for tests that search a whole state folder (e.g. for a key).

import { readdirSync, statSync } from "node:fs";
import { join } from "node:path";

/** Every file below `dir`, at any depth. */
export function filesUnder(dir: string): string[] {
  const out: string[] = [];
  for (const name of readdirSync(dir)) {
    const p = join(dir, name);
    if (statSync(p).isDirectory()) out.push(...filesUnder(p));
    else out.push(p);
  }
  return out;
}
