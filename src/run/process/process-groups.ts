// The process groups of a run's instances. Every command and agent runs in its
// own process group; when the owner is killed (kill -9, a lost terminal) those groups live on.
// So each group is recorded while it runs — its id, its leader's start time, the owner that
// started it and the instance — and whoever next claims the run from a dead owner (resume,
// rerun, cancel) stops them, and waits until they are gone, before anything runs again: an
// instance never runs twice at once.
//
// A command's group is recorded before the command runs: the launcher's child that will lead it
// waits for the engine's go, sent once the row is committed (launcher.ts), so a killed owner never
// leaves a command running that nobody can find. A process spawned directly (process.ts: agents,
// and commands where no launcher works) is recorded in the same synchronous step as its spawn. The recorded leader may not have made its group
// yet (the shell launcher's child calls setsid only once it has the go): such a lone leader, with
// the recorded start time, is signalled as a process.
//
// A recorded group is signalled only when it can still be the one recorded: its leader is alive
// with the recorded start time, or no process has the leader's pid (Linux does not hand out a
// pid while a process group of that id exists, so the group's members are the originals).
// Groups recorded on another host are never touched.

import type { Store } from "../store/index.js";
import {
  ensureProcessGroupTable,
  forgetOthersProcessGroups,
  forgetProcessGroup,
  othersProcessGroups,
  pidExists,
  processStartTime,
  recordProcessGroup,
  type OwnerCheck,
  type ProcessGroupRow,
} from "../store/index.js";
import { signalGroup } from "./signal-group.js";

/** What process.ts and launcher.ts report about the group of the process they start. */
export interface GroupHooks {
  started(pgid: number): void;
  ended(pgid: number): void;
}

/** How long a stopped group gets between SIGTERM and SIGKILL, and how long it is waited for. */
const TERM_GRACE_MS = 1000;
const GONE_WAIT_MS = 5000;

/** Records the groups one owner starts. */
export class GroupRecorder {
  constructor(
    private readonly store: Store,
    private readonly run: string,
    private readonly owner: string,
  ) {
    ensureProcessGroupTable(store);
  }

  /** The hooks for one attempt of an instance. */
  hooks(task: string, key: string | null, attempt: number): GroupHooks {
    return {
      started: (pgid) =>
        this.write(() =>
          recordProcessGroup(this.store, { run: this.run, pgid, started: processStartTime(pgid), owner: this.owner, task, key, attempt }),
        ),
      ended: (pgid) => this.write(() => forgetProcessGroup(this.store, { run: this.run, pgid, owner: this.owner, task, key, attempt })),
    };
  }

  private write(f: () => void): void {
    try {
      f();
    } catch {
      // A database that cannot take the row (locked for long, full) must not fail the instance:
      // the group is then only stopped by this owner, as before groups were recorded.
    }
  }
}

function groupAlive(pgid: number): boolean {
  return signalGroup(pgid, 0);
}

/** Whether the recorded leader is alive with the recorded start time. */
function sameLeader(g: ProcessGroupRow): boolean {
  return g.started !== null && pidExists(g.pgid) && processStartTime(g.pgid) === g.started;
}

/** Whether the recorded group, or its leader before it made the group, can still be the one its row names. */
function stillOurs(g: ProcessGroupRow): boolean {
  if (!groupAlive(g.pgid)) return sameLeader(g);
  return !pidExists(g.pgid) || sameLeader(g);
}

function signal(g: ProcessGroupRow, sig: NodeJS.Signals): void {
  if (!signalGroup(g.pgid, sig) && sameLeader(g)) {
    try {
      process.kill(g.pgid, sig);
    } catch {
      // gone meanwhile
    }
  }
}

/**
 * Stops the process groups that owners other than `self` recorded for the run, when the
 * previous owner is verifiably gone on this host, and waits until they are gone. Returns how
 * many groups were signalled. Rows of groups that cannot be ours any more are dropped.
 */
export async function stopOrphanedGroups(store: Store, run: string, self: string, previous: OwnerCheck | undefined): Promise<number> {
  if (previous && previous.state !== "gone") return 0; // on another host, or unverifiable
  let rows: ProcessGroupRow[];
  try {
    ensureProcessGroupTable(store);
    rows = othersProcessGroups(store, run, self);
  } catch {
    return 0;
  }
  const ours = rows.filter(stillOurs);
  for (const g of ours) signal(g, "SIGTERM");
  const t0 = Date.now();
  let killed = false;
  // A group found gone is dropped for good: its id is free, and the SIGKILL must not reach a
  // program that was given it meanwhile.
  let left = ours;
  while ((left = left.filter(stillOurs)).length > 0) {
    const waited = Date.now() - t0;
    if (!killed && waited >= TERM_GRACE_MS) {
      for (const g of left) signal(g, "SIGKILL");
      killed = true;
    }
    if (waited >= GONE_WAIT_MS) break;
    await new Promise((r) => setTimeout(r, 20));
  }
  try {
    forgetOthersProcessGroups(store, run, self);
  } catch {
    // read-only or failing database: the rows are recognised as stale next time
  }
  return ours.length;
}
