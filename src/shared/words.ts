// Words for people: the rule ids of switchyard's specification (G-8, D-30, "Q-30 …
// Q-32") are for its tests and code comments. Messages are written to say the rule in words and
// carry an error code that `switchyard explain` describes, so at the edge — what a person reads on
// the terminal or in the web view — a parenthesised rule id adds nothing they can look up, and is
// left out. `switchyard explain RULE` still answers for a rule id someone has seen in a record.

const RULE = String.raw`[A-Z]-\d+[a-z]?`;
/** " (G-8)", " (SPEC D-30)", " (G-3, G-5, G-6)", " (Q-30 … Q-32)", " (H-1, H-2)". */
const CITATION = new RegExp(String.raw`\s?\((?:SPEC |see )?${RULE}(?:(?:,\s*|\s*(?:…|\.\.\.|-|–|and|or)\s*|\s*/\s*)${RULE})*\)`, "g");
/** A rule id as a whole word, e.g. "G-8" or "g-2a". */
export const RULE_ID = new RegExp(`^${RULE}$`, "i");

/** "D-20: the host is tty but …": a rule id leading a message (or a line of one). */
const LEADING = new RegExp(
  String.raw`(^|
|: )${RULE}: `,
  "g",
);

/** The text without rule-id citations. */
export function forPeople(text: string): string {
  return text.replace(CITATION, "").replace(LEADING, "$1");
}
