// `review_notify = ["cmd", "args"…]` (D-66): run without a shell when questions start waiting for
// review and when the queue empties, with a JSON summary on stdin. A notifier that fails or hangs
// never holds up the run: its failure is a warning, and it is killed after 30 seconds.

import { spawn } from "node:child_process";
import type { ReviewQueueChange } from "../run/engine/index.js";

const NOTIFY_TIMEOUT_MS = 30_000;

/** The handler the engine calls for each queue change; undefined when no command is configured. */
export function reviewNotifier(
  command: readonly string[] | undefined,
  warn: (message: string) => void = (m) => process.stderr.write(`switchyard: warning: ${m}\n`),
): ((change: ReviewQueueChange) => void) | undefined {
  const [file, ...args] = command ?? [];
  if (file === undefined) return undefined;
  return (change) => {
    const child = spawn(file, args, { stdio: ["pipe", "ignore", "pipe"], timeout: NOTIFY_TIMEOUT_MS });
    let err = "";
    child.stderr.setEncoding("utf8").on("data", (d: string) => (err = (err + d).slice(-2000)));
    child.stdin.on("error", () => undefined); // a command that does not read its stdin
    child.stdin.end(JSON.stringify(change) + "\n");
    child.on("error", (e) => warn(`review_notify ${file} could not start: ${e.message}`));
    child.on("close", (code, signal) => {
      if (code !== 0 && code !== null) warn(`review_notify ${file} exited ${code}${err ? `: ${err.trim()}` : ""}`);
      else if (signal) warn(`review_notify ${file} was stopped by ${signal}`);
    });
  };
}
