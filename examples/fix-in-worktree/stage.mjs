// Stages the fix run from tickets.json in this pack: one element per ticket, with the file it
// names and its problem, keyed by ticket id. Replace tickets.json with your own tickets (or make
// this script read them from your tracker) to run the fix stage against your repository.
//
// Contract: write one JSON object to $SWITCHYARD_OUTPUT with the fields `prepare` emits.
import { readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";

const tickets = JSON.parse(readFileSync(join(process.env.SWITCHYARD_PACK, "tickets.json"), "utf8"));
const out = { members: [], files: {}, problems: {} };
for (const t of tickets) {
  out.members.push(t.id);
  out.files[t.id] = t.file;
  out.problems[t.id] = t.problem;
}
writeFileSync(process.env.SWITCHYARD_OUTPUT, JSON.stringify(out));
