// The `tty` host shares the terminal with whatever draws there (the CLI's live progress): before
// a question is written the drawer is asked to clear its block and hold it, and after the answer
// to draw again, so the question is never overwritten. The decision layer only
// announces; the CLI registers what to do.

/** How a person's turn at the terminal pauses and resumes whatever else draws there (the run's progress line). */
export interface TerminalTurns {
  pause(): void;
  resume(): void;
}

let current: TerminalTurns | null = null;

/** Registers the drawer to pause (null unregisters). */
export function shareTerminal(turns: TerminalTurns | null): void {
  current = turns;
}

/** Runs a dialogue at the terminal with the drawer paused. */
export async function atTerminal<T>(dialogue: () => Promise<T>): Promise<T> {
  current?.pause();
  try {
    return await dialogue();
  } finally {
    current?.resume();
  }
}
