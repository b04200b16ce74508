// The state of one compilation of one playbook: the tasks declared so far, the problems found,
// the run-wide settings, and which file's top level is executing (for L-4).

import { errorAt, type Diagnostic, type Position } from "../lang/diagnostic.js";
import { DEFAULT_SETTINGS, type DeclSettings, type DeclTask } from "./declared.js";
import type { ProblemSink } from "./values.js";

/** What one compilation of one playbook collects. */
export class CompileContext implements ProblemSink {
  readonly diagnostics: Diagnostic[] = [];
  /** Every task declared, inline ones included, in declaration order. */
  readonly tasks: DeclTask[] = [];
  settings: DeclSettings = { ...DEFAULT_SETTINGS };
  playbookCall?: Position;
  /** A load failed: names loaded from it are unknown values (BrokenValue). */
  unknownValues = false;
  /** A helper from a module with errors was called with tasks: it may have declared tasks gated on them. */
  unknownTasks = false;
  /** Files whose top level is executing, innermost last (display paths). */
  readonly executing: string[] = [];
  private nextId = 0;

  constructor(
    /** Display path of the playbook file: tasks may be declared only while it is the innermost executing file (L-4). */
    readonly playbookFile: string,
    /** Display path → pack-relative path, for the plan. */
    readonly packRelative: (display: string) => string,
    /** Display path → source text. */
    private readonly sources: ReadonlyMap<string, string>,
  ) {}

  isAttributeSyntax(pos: Position, name: string): boolean {
    const text = this.sources.get(pos.file);
    if (text === undefined) return true;
    const line = text.split("\n", pos.line)[pos.line - 1] ?? "";
    if (line.slice(pos.col - 1, pos.col - 1 + name.length) !== name) return false;
    return /\.\s*$/.test(line.slice(0, pos.col - 1));
  }

  report(code: string, message: string, pos: Position | undefined, hint?: string): void {
    this.diagnostics.push(errorAt(code, message, pos, hint));
  }
  newId(): number {
    return this.nextId++;
  }
  /** L-4: the innermost executing file is a module, not the playbook. */
  inModuleTopLevel(): string | undefined {
    const top = this.executing[this.executing.length - 1];
    return top !== undefined && top !== this.playbookFile ? top : undefined;
  }
  topLevelTasks(): DeclTask[] {
    return this.tasks.filter((t) => !t.inlineIn);
  }
}
