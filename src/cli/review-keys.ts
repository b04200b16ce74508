// One keypress at a time from the terminal, for the review walk (D-63): the terminal in raw mode
// (no Enter, no echo; Ctrl-C arrives as a key, not a signal, so the walk leaves cleanly), Node's
// readline turning bytes into keys, and a line of text (a note) read with readline's own editing.
// Keys that arrive in the same read as the one that answered (a key held down, a paste) are
// dropped, not carried over to answer the next question unseen.

import { createInterface, emitKeypressEvents } from "node:readline";

/** A key: the character it types (`"1"`, `"u"`), or `"ctrl-c"` / `"ctrl-d"`, or its name (`"escape"`). */
export type KeyName = string;

interface ReadlineKey {
  name?: string;
  ctrl?: boolean;
  meta?: boolean;
}

/** What a keypress means to the walk. */
function keyName(str: string | undefined, key: ReadlineKey | undefined): KeyName {
  if (key?.ctrl && (key.name === "c" || key.name === "d")) return `ctrl-${key.name}`;
  if (str !== undefined && str.length === 1 && !key?.ctrl && !key?.meta) return str.toLowerCase();
  return key?.name ?? str ?? "";
}

/** The terminal's keyboard while the walk runs; close() gives the terminal back as it was. */
export class Keyboard {
  private waiter: ((key: KeyName) => void) | undefined;
  private listening = true;
  private readonly onKey = (str: string | undefined, key: ReadlineKey | undefined): void => {
    if (!this.listening) return;
    const w = this.waiter;
    this.waiter = undefined;
    w?.(keyName(str, key));
  };

  constructor(
    private readonly input: NodeJS.ReadStream,
    private readonly output: NodeJS.WriteStream,
  ) {
    emitKeypressEvents(input);
    input.on("keypress", this.onKey);
    this.raw();
  }

  private raw(): void {
    this.input.setRawMode(true);
    this.input.resume();
  }

  /** The next key pressed from now on. */
  next(): Promise<KeyName> {
    return new Promise((resolve) => (this.waiter = resolve));
  }

  /** A line typed after `prompt` (readline's editing: arrows, backspace), or null for Ctrl-C or Ctrl-D. */
  line(prompt: string): Promise<string | null> {
    this.listening = false;
    const rl = createInterface({ input: this.input, output: this.output, terminal: true });
    return new Promise<string | null>((resolve) => {
      let answer: string | null = null;
      rl.on("SIGINT", () => rl.close());
      rl.on("close", () => {
        if (answer === null) this.output.write("\n");
        this.listening = true;
        this.raw();
        resolve(answer);
      });
      rl.question(prompt, (text) => {
        answer = text;
        rl.close();
      });
    });
  }

  /** Gives the terminal back: cooked mode, stdin no longer read. */
  close(): void {
    this.input.off("keypress", this.onKey);
    this.input.setRawMode(false);
    this.input.pause();
  }
}
