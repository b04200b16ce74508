// Signalling a process group by its id. The id comes from a spawned child, the launcher's
// reply or a row of the store, so it is checked first: kill(-0) would signal our own group
// (the test runner, the CI job) and kill(-1) every process we may signal. Only an id that can
// name another process's group (an integer above 1) is ever signalled.

/** Sends `sig` to the process group `pgid`; false when the id is not one or the group is gone. */
export function signalGroup(pgid: number, sig: NodeJS.Signals | 0): boolean {
  if (!Number.isInteger(pgid) || pgid <= 1) return false;
  try {
    process.kill(-pgid, sig);
    return true;
  } catch (err) {
    // EPERM: the group exists but is not ours to signal.
    return (err as NodeJS.ErrnoException).code === "EPERM" && sig === 0;
  }
}
