// The names people reach for when they mean one of the playbook built-ins: edit
// distance finds typos, but not `yesno` for `noul` or `shell` for `command`. An undefined name
// found here gets the built-in it stands for as its "did you mean", with a word on why.

import type { Diagnostic } from "../lang/diagnostic.js";

const ALIASES: Record<string, { name: string; why: string }> = {
  yesno: { name: "noul", why: "a yes/no question is `noul`: its answer is yes, no or uncertain" },
  yes_no: { name: "noul", why: "a yes/no question is `noul`: its answer is yes, no or uncertain" },
  boolean: { name: "noul", why: "a yes/no question is `noul`: its answer is yes, no or uncertain" },
  predicate: { name: "noul", why: "a yes/no question is `noul`: its answer is yes, no or uncertain" },
  select: { name: "choice", why: "a question with named options is `choice`" },
  classify: { name: "choice", why: "a question with named options is `choice`" },
  rating: { name: "score", why: "a question answered on ordered levels is `score`" },
  scale: { name: "score", why: "a question answered on ordered levels is `score`" },
  shell: { name: "command", why: "a shell step is `command`" },
  run: { name: "command", why: "a shell step is `command`" },
  llm: { name: "agent", why: "a turn of an agent CLI is `agent`" },
  decide: { name: "route", why: "a task that asks questions per element is `route`" },
  gate: { name: "route", why: "a task that asks questions per element is `route`" },
  loop: { name: "revise", why: "a body-and-reviewer loop is `revise`" },
};

/** An `undefined-name` diagnostic for a known alias, with the built-in it stands for. */
export function suggestBuiltin(d: Diagnostic): Diagnostic {
  if (d.code !== "undefined-name" || /did you mean/.test(d.message)) return d;
  const m = /^undefined name '([^']+)'$/.exec(d.message);
  const alias = m && Object.hasOwn(ALIASES, m[1]!) ? ALIASES[m[1]!] : undefined;
  if (!alias) return d;
  return { ...d, message: `${d.message} (did you mean '${alias.name}'?)`, hint: d.hint ?? alias.why };
}
