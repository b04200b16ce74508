// Output to a reader that has gone (`switchyard run PACK | head -3`, a closed terminal) is
// dropped, and nothing else changes: the command carries on to its end — a run is executed and
// recorded to its end — and exits with its own status. Exiting at the first EPIPE, as before,
// left the run recorded `running` and made a failed run exit 0. Node ignores SIGPIPE, so a write
// to a closed pipe fails with EPIPE; the stream then destroys itself and later writes are dropped
// without another error. The rule is written in docs/runs.md ("Output, pipes and exit status").

let guarded = false;
let stdoutGone = false;

/** Installs, once, the handlers that drop output to a closed stdout or stderr. */
export function dropOutputToClosedReaders(): void {
  if (guarded) return;
  guarded = true;
  for (const stream of [process.stdout, process.stderr])
    stream.on("error", (err: NodeJS.ErrnoException) => {
      if (err.code !== "EPIPE") throw err;
      if (stream === process.stdout) stdoutGone = true;
    });
}

/** Whether stdout's reader has gone: a command that only prints as it follows something may stop. */
export function stdoutReaderGone(): boolean {
  return stdoutGone;
}
