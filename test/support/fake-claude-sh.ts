// A fake `claude` as a few lines of /bin/sh, for campaigns that start hundreds of agent turns
// (test/queue/faults): the Node fake (fake-agent-cli.ts) costs a Node start-up per turn, about
// 0.1 s of CPU, where this costs a shell's few milliseconds.
//
// It replays the same recording the Node fake replays for a successful turn —
// test/fixtures/real-agents/claude-2.1.197-success.{stdout,stderr,exit}.txt, its `result`
// replaced by "Edited PATHS." or "Nothing to edit." — and does the same work (prompt lines
// `WRITE path` create the file, `EDIT path` append to it), so its output is byte for byte the
// Node fake's (test/run/fake-claude-sh checks that). It handles only that common case: any other
// call — `--version`, an argv the Node fake would refuse, a FAKE_AGENT_* setting, a path outside
// [A-Za-z0-9._/-] — is handed to the Node fake unchanged (the prompt included), so it cannot
// answer differently from it.

import { chmodSync, mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { join, resolve } from "node:path";

const RECORDING = resolve("test/fixtures/real-agents/claude-2.1.197-success");

/** `s` as one single-quoted shell word. */
const quoted = (s: string) => `'${s.replaceAll("'", `'\\''`)}'`;

/** The recorded success split around its `result` string: what comes before it and after it. */
function recordedAround(): { before: string; after: string; stderr: string; exit: number } {
  const mark = "\u0000result\u0000";
  const j = JSON.parse(readFileSync(`${RECORDING}.stdout.txt`, "utf8")) as Record<string, unknown>;
  j.result = mark;
  const [before, after, ...rest] = `${JSON.stringify(j)}\n`.split(JSON.stringify(mark));
  if (before === undefined || after === undefined || rest.length) throw new Error("the recording's result is not one JSON string");
  return {
    before,
    after,
    stderr: readFileSync(`${RECORDING}.stderr.txt`, "utf8"),
    exit: Number(readFileSync(`${RECORDING}.exit.txt`, "utf8").trim()),
  };
}

function script(): string {
  const node = JSON.stringify(process.execPath);
  const nodeFake = JSON.stringify(join(process.cwd(), "dist", "test", "support", "fake-agent-cli.js"));
  const r = recordedAround();
  return `#!/bin/sh
# A fake claude: see test/support/fake-claude-sh.ts.
slow() { exec ${node} ${nodeFake} claude "$@"; }
if [ -n "$FAKE_AGENT_MODE$FAKE_AGENT_MODES$FAKE_AGENT_RATE_LIMITS$FAKE_AGENT_LOG$FAKE_AGENT_SLEEP_MS$FAKE_AGENT_REPLY$FAKE_AGENT_VERSION" ]; then
  [ "$FAKE_AGENT_MODE" = ok ] && [ -z "$FAKE_AGENT_MODES$FAKE_AGENT_RATE_LIMITS$FAKE_AGENT_LOG$FAKE_AGENT_SLEEP_MS$FAKE_AGENT_REPLY$FAKE_AGENT_VERSION" ] || slow "$@"
fi
# What the Node fake checks before it reads the prompt: -p, --output-format json,
# --permission-mode acceptEdits (each pair adjacent), --effort with a known level.
p= f= m= e= prev=
for a; do
  [ "$a" = -p ] && p=1
  case "$prev" in
    --output-format) [ "$a" = json ] && f=1 ;;
    --permission-mode) [ "$a" = acceptEdits ] && m=1 ;;
    --effort) case "$e$a" in low | medium | high | xhigh | max) e=1 ;; *) [ -z "$e" ] && e=0 ;; esac ;;
  esac
  prev=$a
done
[ "$p$f$m$e" = 1111 ] || slow "$@"
prompt=$(cat; echo .)
prompt=\${prompt%.}
# Paths the shell handles as JSON needs no escaping for; anything else goes to the Node fake.
while IFS= read -r line; do
  case "$line" in
    "EDIT "* | "WRITE "*)
      case "\${line#* }" in "" | *[!A-Za-z0-9._/-]*)
        printf '%s' "$prompt" | slow "$@"
        exit $? ;;
      esac ;;
  esac
done <<EOF
$prompt
EOF
edited=
while IFS= read -r line; do
  case "$line" in "EDIT "* | "WRITE "*) ;; *) continue ;; esac
  path=\${line#* }
  dir=\${path%/*}
  [ "$dir" != "$path" ] && [ -n "$dir" ] && mkdir -p "$dir"
  case "$line" in
    EDIT*) printf 'fixed by claude\\n' >>"$path" ;;
    *) printf 'written by claude\\n' >"$path" ;;
  esac
  edited="\${edited:+$edited, }$path"
done <<EOF
$prompt
EOF
printf '%s' ${quoted(r.before)}
if [ -n "$edited" ]; then printf '"Edited %s."' "$edited"; else printf '"Nothing to edit."'; fi
printf '%s' ${quoted(r.after)}
printf '%s' ${quoted(r.stderr)} >&2
exit ${r.exit}
`;
}

/** Creates DIR/bin/claude, the shell fake above; returns the bin folder. */
export function fakeClaudeShBin(dir: string): string {
  const bin = join(dir, "bin");
  mkdirSync(bin, { recursive: true });
  writeFileSync(join(bin, "claude"), script());
  chmodSync(join(bin, "claude"), 0o755);
  return bin;
}
