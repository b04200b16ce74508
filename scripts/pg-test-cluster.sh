#!/usr/bin/env bash
# A throw-away PostgreSQL cluster for the tests: `start DIR` initialises one in DIR
# (owned by the postgres user when run as root), listening on 127.0.0.1 on a free port, and
# prints the connection string for SWITCHYARD_TEST_PG; `stop DIR` stops it and removes DIR;
# `pause DIR` / `unpause DIR` stop it and start it again on the same port (for fault tests).
#   export SWITCHYARD_TEST_PG=$(scripts/pg-test-cluster.sh start /tmp/sy-pg)
#   npm test
#   scripts/pg-test-cluster.sh stop /tmp/sy-pg
# fsync=off: a test cluster never outlives the machine's page cache (the tests stop or kill the
# server, never the machine), so skipping the flushes loses nothing and takes 15-20 % off each
# PostgreSQL-pass file.
set -euo pipefail
cmd=${1:?usage: pg-test-cluster.sh start|stop|pause|unpause|url DIR}
dir=${2:?usage: pg-test-cluster.sh start|stop DIR}
bin=${PGBIN:-$(ls -d /usr/lib/postgresql/*/bin 2>/dev/null | sort -V | tail -1)}
[ -x "$bin/initdb" ] || { echo "pg-test-cluster: no PostgreSQL server binaries (apt-get install postgresql)" >&2; exit 1; }

as_owner() {
  if [ "$(id -u)" = 0 ]; then su postgres -s /bin/sh -c "$1"; else sh -c "$1"; fi
}

case $cmd in
start)
  mkdir -p "$dir"
  [ "$(id -u)" = 0 ] && chown postgres "$dir"
  port=$(node -e 'const s=require("net").createServer().listen(0,"127.0.0.1",()=>{console.log(s.address().port);s.close()})')
  as_owner "'$bin/initdb' -D '$dir/data' -A trust -U postgres --no-sync >'$dir/initdb.log' 2>&1"
  as_owner "'$bin/pg_ctl' -D '$dir/data' -l '$dir/server.log' -w -o \"-p $port -k '$dir' -c listen_addresses=127.0.0.1 -c max_connections=200 -c fsync=off\" start >/dev/null"
  echo "$port" >"$dir/port"
  echo "postgres://postgres@127.0.0.1:$port/postgres"
  ;;
stop)
  [ -d "$dir/data" ] && as_owner "'$bin/pg_ctl' -D '$dir/data' -m immediate -w stop >/dev/null" || true
  rm -rf "$dir"
  ;;
pause)
  as_owner "'$bin/pg_ctl' -D '$dir/data' -m fast -w stop >/dev/null"
  ;;
unpause)
  port=$(cat "$dir/port")
  as_owner "'$bin/pg_ctl' -D '$dir/data' -l '$dir/server.log' -w -o \"-p $port -k '$dir' -c listen_addresses=127.0.0.1 -c max_connections=200 -c fsync=off\" start >/dev/null"
  ;;
url)
  echo "postgres://postgres@127.0.0.1:$(cat "$dir/port")/postgres"
  ;;
*)
  echo "usage: pg-test-cluster.sh start|stop|pause|unpause|url DIR" >&2
  exit 2
  ;;
esac
