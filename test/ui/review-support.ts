// What the review page's tests share: a pack whose route asks a command provider about N elements
// and escalates the ones it is unsure of (every third, computed here independently of switchyard)
// to review, a CLI bound to its state folder, and a POST to `switchyard ui` with exactly the
// headers a test names (fetch would add its own).

import { spawnSync } from "node:child_process";
import { request } from "node:http";
import { join } from "node:path";
import { TempDir } from "../run/helpers.js";
import { BIN } from "./support.js";

/** Elements e1 … eN; the model is unsure of every third (confidences 0.6 and 0.55 < escalate_below 0.7). */
export const unsure = (k: string): boolean => Number(k.slice(1)) % 3 === 0;
/** The model's answer: yes for even numbers. */
export const modelYes = (k: string): boolean => Number(k.slice(1)) % 2 === 0;

// Two questions per element, so that a form holds two choices: whether it is exploitable (gating
// the fix) and how it is reached.
const playbook = (fixLog: string) => `
playbook(description = "review from the web", concurrency = 4)

members = command(name = "members", run = """cp $SWITCHYARD_PACK/members.json $SWITCHYARD_OUTPUT""", emits = {"members": "list"})

triage = route(name = "gate", depends_on = [members], over = members.members, max_fanout = 1000, questions = {
    "exploitable": noul(ask = "Is it exploitable?", type = "triage", drop = ["no", "uncertain"]),
    "reach": choice(ask = "How is it reached?", options = {"local": "needs an account on the machine", "network": "from anywhere"},
        type = "triage", drop = ["local", "network", "uncertain"]),
})

fix = command(name = "fix", depends_on = [triage], over = members.members, max_fanout = 1000,
    when = triage.exploitable, answers = "yes", run = """echo "$SWITCHYARD_KEY" >> ${fixLog}""")
`;

/** A command provider (System One on stdin/stdout): unsure of both questions for every third element. */
const decider = `#!/bin/sh
key=$(cat | grep -o '"key":"e[0-9]*"' | head -n 1 | cut -d '"' -f 4)
n=\${key#e}
if [ $((n % 3)) -eq 0 ]; then p=0.6; q=0.55; r=0.45; elif [ $((n % 2)) -eq 0 ]; then p=0.95; q=0.9; r=0.1; else p=0.05; q=0.1; r=0.9; fi
echo "{\\"model\\": \\"m1\\", \\"answers\\": {\\"exploitable\\": {\\"type\\": \\"noul\\", \\"noul\\": $p}, \\"reach\\": {\\"type\\": \\"choice\\", \\"probabilities\\": {\\"local\\": $q, \\"network\\": $r}}}}"
`;

/** A pack of N elements with its machine config, and the CLI run in its folder (SQLite state in state/). */
export interface ReviewPack {
  dir: TempDir;
  state: string;
  keys: string[];
  fixLog: string;
  env: NodeJS.ProcessEnv;
  cli(...args: string[]): { status: number | null; stdout: string; stderr: string };
  /** The waiting questions as `review --list --json` lists them: KEY:QUESTION, sorted. */
  waiting(): string[];
}

/** Both questions of each element, as `waiting()` lists them. */
export const both = (keys: string[]): string[] => keys.flatMap((k) => [`${k}:exploitable`, `${k}:reach`]).sort();

/** Writes the pack and config for N elements. */
export function reviewPack(n: number): ReviewPack {
  const dir = new TempDir("sy-ui-review-");
  const keys = Array.from({ length: n }, (_, i) => `e${i + 1}`);
  const fixLog = join(dir.path, "fixed.log");
  dir.file("pack/main.star", playbook(fixLog));
  dir.file("pack/members.json", JSON.stringify({ members: keys }));
  const script = dir.file("decide.sh", decider, 0o755);
  dir.file(
    "xdg/switchyard/config.toml",
    `[providers.cmd]\nkind = "command"\nvendor = "inhouse"\nmodels = ["m1"]\ncommand = ["${script}"]\n\n[decisions.types]\n"triage" = { mode = "cmd/m1", escalate_below = 0.7 }\n`,
  );
  const state = join(dir.path, "state");
  const env: NodeJS.ProcessEnv = { ...process.env, SWITCHYARD_HOME: state, XDG_CONFIG_HOME: join(dir.path, "xdg") };
  delete env.SWITCHYARD_STORE;
  const cli = (...args: string[]) => spawnSync(process.execPath, [BIN, ...args], { cwd: dir.path, env, encoding: "utf8", timeout: 120000 });
  const waiting = () =>
    cli("review", "latest", "--list", "--json")
      .stdout.split("\n")
      .filter(Boolean)
      .map((l) => JSON.parse(l) as { key: string; question: { id: string } })
      .map((p) => `${p.key}:${p.question.id}`)
      .sort();
  return { dir, state, keys, fixLog, env, cli, waiting };
}

/** The origin and token of the address `switchyard ui` printed (http://127.0.0.1:PORT/#token=…). */
export function tokenOf(printed: string): { origin: string; token: string } {
  const u = new URL(printed);
  const m = /^#token=([A-Za-z0-9_-]+)$/.exec(u.hash);
  if (!m) throw new Error(`no #token= in ${printed}`);
  return { origin: u.origin, token: m[1]! };
}

/** A POST with exactly these headers and a JSON body; the status and the parsed body. */
export function post(
  base: string,
  path: string,
  headers: Record<string, string>,
  body: unknown,
): Promise<{ status: number; body: { error?: { code: string; message: string; hint?: string } } & Record<string, unknown> }> {
  const u = new URL(base);
  const text = typeof body === "string" ? body : JSON.stringify(body);
  return new Promise((done, fail) => {
    const req = request(
      // A connection of its own (no keep-alive): a pooled socket the server closed while this
      // process was blocked in a spawnSync would be handed out dead and fail with ECONNRESET.
      { host: u.hostname, port: u.port, path, method: "POST", agent: false, headers: { "content-type": "application/json", ...headers } },
      (res) => {
        let got = "";
        res.on("data", (d: Buffer) => (got += d.toString()));
        res.on("end", () => done({ status: res.statusCode!, body: JSON.parse(got) }));
      },
    );
    req.on("error", fail);
    req.end(text);
  });
}
