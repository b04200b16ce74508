// Whether the process recorded as executing a run still exists: a live one owns the run, so
// neither `resume` nor `cancel` may touch it.

/** Is a run's recorded process still alive (so another invocation must not touch it)? */
export function processAlive(pid: number | null | undefined): boolean {
  if (!pid || pid === process.pid) return false;
  try {
    process.kill(pid, 0);
    return true;
  } catch (err) {
    return (err as NodeJS.ErrnoException).code === "EPERM";
  }
}
