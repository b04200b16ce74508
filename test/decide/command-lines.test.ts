// The `command` provider's line protocol (D-21, protocol = "lines"): one process for the
// provider's life, a line of JSON per request and per answer, one request at a time, and a fresh
// process whenever the old one can no longer be trusted to be in step. The deciders are shell
// scripts (they start in a millisecond, so timeouts are about the protocol, not a loaded machine);
// each logs "PID N ACT" per request it reads, which is how the tests count processes.

import { test } from "node:test";
import assert from "node:assert/strict";
import { existsSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { createProvider } from "../../src/decide/providers/index.js";
import type { ProviderConfig } from "../../src/decide/config-types.js";
import type { Provider } from "../../src/decide/provider.js";
import { noulQ, providerConfig, providerRequest } from "../support/decide-fixtures.js";
import { failure, until } from "../support/assertions.js";
import { withTempDir } from "../support/setup.js";

let dir: string;
let n = 0;
const urgent = noulQ("urgent");

withTempDir("sy-lines-", (d) => (dir = d));

// The request line carries the state {"act":…,"n":…}: the decider answers P(yes) = n/100, or
// misbehaves as `act` says. After the end of its input it exits, or (argument "stay") sleeps on.
const DECIDER = `#!/bin/sh
log="$1"
printf '%s %s\\n' "\${PLAIN_SETTING-unset}" "\${OTHER_PROVIDER_KEY-unset}" > "$log.env"
while IFS= read -r line; do
  n=\${line#*'"n":'}; n=\${n%%[,\\}]*}
  act=\${line#*'"act":"'}; act=\${act%%'"'*}
  echo "$$ $n $act" >> "$log"
  case "$act" in
    hang) sleep 30 & echo $! > "$log.grandchild"; wait ;;
    die) echo "out of memory loading layer 3" >&2; exit 7 ;;
    garbage) echo "Loading model weights..." ;;
    shape) echo '{"answers":{"other":{}}}' ;;
    huge) head -c 17000000 /dev/zero ;;
    *) printf '{"answers":{"urgent":{"type":"noul","noul":0.%02d}}}\\n' "$n" ;;
  esac
done
[ "$2" = stay ] && exec sleep 30
exit 0
`;

/** A line-protocol provider over a fresh copy of the decider, and its log. */
function lines(over: Partial<ProviderConfig> = {}, stay = false, hideEnv: string[] = []): { p: Provider; log: string } {
  const id = n++;
  const script = join(dir, `decider-${id}.sh`);
  writeFileSync(script, DECIDER);
  const log = join(dir, `decider-${id}.log`);
  const argv = ["/bin/sh", script, log, ...(stay ? ["stay"] : [])];
  return { p: createProvider(providerConfig("command", { command: argv, protocol: "lines", ...over }), {}, hideEnv), log };
}

/** The decider's log: one [pid, n, act] per request it read. */
function logged(log: string): [number, number, string][] {
  if (!existsSync(log)) return [];
  return readFileSync(log, "utf8")
    .trim()
    .split("\n")
    .map((l) => l.split(" "))
    .map(([pid, k, act]) => [Number(pid), Number(k), act!]);
}

const pidsOf = (log: string) => [...new Set(logged(log).map(([pid]) => pid))];

function ask(p: Provider, k: number, act = "answer", signal?: AbortSignal) {
  return p.ask(providerRequest([urgent], { act, n: k }, signal ? { signal } : {}));
}

async function yes(p: Provider, k: number): Promise<number | undefined> {
  return (await ask(p, k)).answers.urgent?.probabilities?.yes;
}

/** Whether no process `pid` is running (gone, or a zombie waiting for a reaper). */
function notRunning(pid: number): boolean {
  try {
    return readFileSync(`/proc/${pid}/stat`, "utf8").split(") ")[1]!.charAt(0) === "Z";
  } catch {
    return true;
  }
}

test("D-21 lines: one process answers every request, in order", async () => {
  const { p, log } = lines();
  try {
    for (let k = 1; k <= 6; k++) assert.equal(await yes(p, k), k / 100);
    assert.deepEqual(
      logged(log).map(([, k, act]) => [k, act]),
      [1, 2, 3, 4, 5, 6].map((k) => [k, "answer"]),
    );
    assert.equal(pidsOf(log).length, 1, "one process for six requests");
  } finally {
    await p.close?.();
  }
});

test("D-21 lines: concurrent requests are asked one at a time, in order, each getting its own answer", async () => {
  const { p, log } = lines();
  try {
    const ks = [1, 2, 3, 4, 5, 6, 7, 8];
    const answers = await Promise.all(ks.map((k) => yes(p, k)));
    assert.deepEqual(
      answers,
      ks.map((k) => k / 100),
    );
    assert.deepEqual(
      logged(log).map(([, k]) => k),
      ks,
    );
    assert.equal(pidsOf(log).length, 1);
  } finally {
    await p.close?.();
  }
});

test("D-21/D-22 lines: a timeout kills the process group; the next request starts a new process", async () => {
  const { p, log } = lines({ timeout_ms: 1000 });
  try {
    assert.equal(await yes(p, 1), 0.01);
    const e = await failure(ask(p, 2, "hang"));
    assert.match(
      e.message,
      /^provider 'test-command' \(command "\/bin\/sh", model m1\): no answer within 1000 ms \(timeout\); the process group was killed/,
    );
    assert.match(e.message, /must answer each line as it arrives/);
    const [first] = pidsOf(log);
    assert.ok(notRunning(first!), "the timed-out process is gone before the failure is reported");
    const grandchild = Number(readFileSync(`${log}.grandchild`, "utf8"));
    await until("the grandchild of the timed-out process stops", () => notRunning(grandchild), 20000);
    assert.equal(await yes(p, 3), 0.03);
    const pids = pidsOf(log);
    assert.equal(pids.length, 2);
    assert.deepEqual(
      logged(log).map(([pid, k]) => [pid === first ? "first" : "second", k]),
      [
        ["first", 1],
        ["first", 2],
        ["second", 3],
      ],
    );
  } finally {
    await p.close?.();
  }
});

test("D-21 lines: a process that exits while a request waits fails only that request, quoting stderr", async () => {
  const { p, log } = lines();
  try {
    const settled = await Promise.allSettled([ask(p, 1), ask(p, 2, "die"), ask(p, 3), ask(p, 4)]);
    const [a, died, c, d] = settled.map((r) => (r.status === "fulfilled" ? r.value.answers.urgent?.probabilities?.yes : String(r.reason)));
    assert.deepEqual([a, c, d], [0.01, 0.03, 0.04]);
    assert.match(
      String(died),
      /exited with status 7 before answering; the next request starts a new process; stderr: out of memory loading layer 3/,
    );
    const [first, second] = pidsOf(log);
    assert.deepEqual(
      logged(log).map(([pid, k]) => [pid, k]),
      [
        [first, 1],
        [first, 2],
        [second, 3],
        [second, 4],
      ],
    );
    assert.notEqual(first, second);
  } finally {
    await p.close?.();
  }
});

test("D-21 lines: a line that is not a valid response fails that request and restarts the process", async () => {
  const { p, log } = lines();
  try {
    assert.equal(await yes(p, 1), 0.01);
    let e = await failure(ask(p, 2, "garbage"));
    assert.match(
      e.message,
      /its answer line is not valid JSON .*it begins 'Loading model weights\.\.\.'; the process was stopped, and the next request starts a new one/,
    );
    assert.equal(await yes(p, 3), 0.03);
    e = await failure(ask(p, 4, "shape"));
    assert.match(e.message, /its response has no answer for question 'urgent' \(answers for: other\); the process was stopped/);
    assert.equal(await yes(p, 5), 0.05);
    const byRequest = new Map(logged(log).map(([pid, k]) => [k, pid]));
    assert.equal(byRequest.get(1), byRequest.get(2));
    assert.notEqual(byRequest.get(3), byRequest.get(2), "a new process after the line that was not JSON");
    assert.equal(byRequest.get(3), byRequest.get(4));
    assert.notEqual(byRequest.get(5), byRequest.get(4), "a new process after the response of the wrong shape");
    assert.equal(pidsOf(log).length, 3);
  } finally {
    await p.close?.();
  }
});

test("D-21 lines: more than 16 MiB on stdout without a newline stops the process", async () => {
  const { p, log } = lines({ timeout_ms: 20000 });
  try {
    const e = await failure(ask(p, 1, "huge"));
    assert.match(e.message, /wrote more than 16777216 bytes on stdout without a newline; the process was stopped/);
    assert.equal(await yes(p, 2), 0.02);
    assert.equal(pidsOf(log).length, 2);
  } finally {
    await p.close?.();
  }
});

test("D-21 lines: cancelling a waiting request kills the process; cancelling a queued one drops it", async () => {
  const { p, log } = lines();
  try {
    const inFlight = new AbortController();
    const queued = new AbortController();
    const hung = ask(p, 1, "hang", inFlight.signal);
    const dropped = ask(p, 2, "answer", queued.signal);
    const later = yes(p, 3);
    await until("the decider reads the first request", () => logged(log).length === 1);
    queued.abort();
    assert.match((await failure(dropped)).message, /: cancelled$/);
    inFlight.abort();
    assert.match((await failure(hung)).message, /: cancelled/);
    assert.equal(await later, 0.03);
    assert.deepEqual(
      logged(log).map(([, k]) => k),
      [1, 3],
      "the dropped request never reached the decider",
    );
    assert.equal(pidsOf(log).length, 2, "the cancelled request's process was killed");
  } finally {
    await p.close?.();
  }
});

test("D-21 lines: close() ends the process at the end of its input; one that ignores it is killed", async () => {
  const polite = lines();
  assert.equal(await yes(polite.p, 1), 0.01);
  await polite.p.close?.();
  const [pid] = pidsOf(polite.log);
  assert.ok(notRunning(pid!), "the decider exited");
  assert.match((await failure(yes(polite.p, 2))).message, /the provider is closed/);

  const stubborn = lines({}, true);
  assert.equal(await yes(stubborn.p, 1), 0.01);
  const t0 = Date.now();
  await stubborn.p.close?.();
  const [spid] = pidsOf(stubborn.log);
  assert.ok(notRunning(spid!), "the decider that ignored the end of its input was killed");
  assert.ok(Date.now() - t0 < 20000, "close() did not wait for the 30 s sleep");
});

test("D-21 lines: the process group is reported when it starts and when it ends", async () => {
  const started: number[] = [];
  const ended: number[] = [];
  const groups = { started: (g: number) => started.push(g), ended: (g: number) => ended.push(g) };
  const { p, log } = lines();
  const req = (k: number, act = "answer") => p.ask(providerRequest([urgent], { act, n: k }, { groups }));
  await req(1);
  await req(2);
  assert.deepEqual(ended, [], "a process that keeps running is not reported ended");
  await failure(req(3, "garbage"));
  await req(4);
  await p.close?.();
  const pids = pidsOf(log);
  assert.equal(pids.length, 2);
  assert.deepEqual(started, pids);
  assert.deepEqual(ended, pids);
});

test("D-21/R-20 lines: the process never sees the providers' key variables", async () => {
  process.env.PLAIN_SETTING = "kept";
  process.env.OTHER_PROVIDER_KEY = "other-secret";
  const { p, log } = lines({}, false, ["OTHER_PROVIDER_KEY"]);
  try {
    assert.equal(await yes(p, 1), 0.01);
    assert.equal(readFileSync(`${log}.env`, "utf8"), "kept unset\n");
  } finally {
    delete process.env.PLAIN_SETTING;
    delete process.env.OTHER_PROVIDER_KEY;
    await p.close?.();
  }
});

test("D-21 lines: a program that cannot be started fails each request, saying why", async () => {
  const p = createProvider(providerConfig("command", { command: [join(dir, "no-such-decider")], protocol: "lines" }));
  try {
    for (let k = 1; k <= 2; k++) assert.match((await failure(ask(p, k))).message, /no-such-decider.*: could not start: .*ENOENT/);
  } finally {
    await p.close?.();
  }
});
