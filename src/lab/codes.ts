// The lab's error codes (H-1 … H-3), for `switchyard explain CODE` and docs/lab.md.

import type { CodeEntry } from "../lang/diagnostic.js";
export type { CodeEntry };

/** Every code the lab layer emits, with its rule and explanation. */
export const LAB_CODES: CodeEntry[] = [
  {
    code: "lab-none",
    rule: "H-1",
    summary: "there is no lab in the state folder yet",
    explain:
      "A lab is a folder labs/LAB_ID/ in the state folder holding the shadow pairs of one experiment. " +
      "None exists yet: run `switchyard lab new --note TEXT` to make one, or run a playbook with a judgement " +
      "type in shadow mode, which creates a lab on its first pair. Check --state-dir / $SWITCHYARD_HOME if you " +
      "expected labs to exist.",
  },
  {
    code: "lab-unknown",
    rule: "H-1",
    summary: "no lab with that id",
    explain:
      "The lab named on the command line is not a folder under labs/ in the state folder. " +
      "`switchyard lab list` shows the labs that exist; omit the id to use the current lab.",
  },
  {
    code: "lab-invalid-pair",
    rule: "H-1",
    summary: "a line of pairs.jsonl in the middle of the file is not a valid shadow pair",
    explain:
      "Pairs are appended one whole line at a time, so a crash can only tear the write in progress; " +
      "harvest skips a torn last line, or a torn fragment that a later pair was appended onto, with a warning. " +
      "Any other invalid line means the file was " +
      "edited or damaged. The error names the line: fix or delete it (for example with `sed -i 'Nd' FILE`) " +
      "and harvest again.",
  },
  {
    code: "lab-pairs-missing",
    rule: "H-1",
    summary: "the lab has no pairs.jsonl",
    explain:
      "Each lab folder holds a pairs.jsonl; this one has none (it was removed, or the folder was not made by " +
      "switchyard). Make a new lab with `switchyard lab new`, or harvest another lab.",
  },
  {
    code: "lab-bad-target",
    rule: "H-2",
    summary: "--target must be a number between 0 and 1",
    explain:
      "`lab harvest --target T` asks for the lowest confidence threshold whose agreement with the host " +
      "reaches T; T is a fraction such as 0.95, greater than 0 and at most 1.",
  },
  {
    code: "lab-compare-model",
    rule: "H-2",
    summary: "lab compare cannot tell which model's answers to compare, or found none",
    explain:
      "`lab compare` pairs two models' answers to the same elements of one judgement type. Each side needs " +
      "answered shadow pairs of the type; when a side's pairs hold several models, name the one to compare " +
      "(PROVIDER/MODEL as `lab harvest` lists it under the type). Check --type and the lab ids, or name the models.",
  },
  {
    code: "lab-labels-file",
    rule: "H-1",
    summary: "a labels file given to lab import has a line that cannot be read",
    explain:
      "`lab import LAB FILE` reads a file written by `lab export` (CSV or JSONL) after people filled in its " +
      "`label` column. Each row needs its `element` id as exported and a label that is one of the question's " +
      "labels; rows with an empty label are skipped. The error names the line: fix it, or export again.",
  },
];

/** The lab layer's codes, for checking that each emitted code is catalogued. */
export const LAB_CODE_SET: ReadonlySet<string> = new Set(LAB_CODES.map((c) => c.code));
