// `--store URL` / $SWITCHYARD_STORE: which store holds the runs' records. Without it,
// the state folder's switchyard.db; `sqlite:PATH` names another SQLite file; a postgres:// URL
// a PostgreSQL database shared by many machines. The state folder still holds the local run
// folders (snapshots, attempt workspaces, logs) and labs.

import type { Command } from "commander";
import { existsSync } from "node:fs";
import { openStore, type Store } from "../run/index.js";
import { parseStoreSpec, type StoreSpec } from "../run/store/index.js";
import { UsageError } from "./common.js";

/** The help of `--store`. */
export const STORE_HELP =
  "the store of the runs' records: sqlite:PATH, or postgres://USER@HOST:PORT/DATABASE[?schema=NAME] (default: $SWITCHYARD_STORE, else the state folder's switchyard.db)";

/** Adds `--store` to a command. */
export function addStoreOption<C extends Command>(cmd: C): C {
  return cmd.option("--store <url>", STORE_HELP) as C;
}

/** The store a command names (--store, else $SWITCHYARD_STORE), or undefined for the state folder's own. */
export function namedStore(flag: string | undefined, stateDir: string): StoreSpec | undefined {
  const spec = flag ?? process.env.SWITCHYARD_STORE;
  if (spec === undefined || spec === "") return undefined;
  try {
    return parseStoreSpec(spec, stateDir);
  } catch (err) {
    throw new UsageError("store-url", (err as Error).message, {
      hint: "see `switchyard explain store-url`; $SWITCHYARD_STORE takes the same values as --store",
    });
  }
}

/** Opens the named store; for reading, an SQLite file that does not exist has no runs (null). */
export function openNamed(spec: StoreSpec, stateDir: string, forReading: boolean): Store | null {
  if (forReading && spec.kind === "sqlite" && !existsSync(spec.file)) return null;
  return openStore(spec, stateDir);
}
