#!/usr/bin/env bash
# A throw-away PostgreSQL server on loopback for the tests (tests/engines/postgres_test.ts).
#   .ci/postgres.sh start [port]   install Debian's postgresql when missing (apt-get, as root),
#                                  initdb a fresh data directory under /tmp, start it on
#                                  127.0.0.1:port (default 54329; socket in the data directory)
#   .ci/postgres.sh stop [port]    stop that server and remove its data directory
# Connect as user "postgres", database "postgres", no password (trust on loopback only).
# Exit status 0 on success; otherwise a one-line reason on stderr and status 1.
set -uo pipefail
cmd=${1:-}
port=${2:-${TALLMC_PG_PORT:-54329}}
dir=/tmp/tallmc_pg_$port

bindir() {
  local b
  for b in /usr/lib/postgresql/*/bin; do
    [ -x "$b/initdb" ] && { echo "$b"; return 0; }
  done
  command -v initdb >/dev/null 2>&1 && { dirname "$(command -v initdb)"; return 0; }
  return 1
}

as_owner() {
  # initdb and postgres refuse to run as root: run them as the postgres user.
  if [ "$(id -u)" -eq 0 ]; then
    if command -v runuser >/dev/null 2>&1; then runuser -u postgres -- "$@"; else su postgres -s /bin/sh -c "$(printf '%q ' "$@")"; fi
  else
    "$@"
  fi
}

case "$cmd" in
start)
  if ! bin=$(bindir); then
    if [ "$(id -u)" -eq 0 ] && command -v apt-get >/dev/null 2>&1; then
      echo "== postgresql not found: apt-get install -y postgresql" >&2
      { apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq postgresql; } >/dev/null 2>&1
    fi
    bin=$(bindir) || { echo "postgresql is not installed and could not be installed (needs Debian's apt-get as root)" >&2; exit 1; }
  fi
  if [ -f "$dir/data/postmaster.pid" ]; then
    # left by an earlier run that did not stop it: this directory is ours and throw-away
    echo "== stopping a server left running from $dir" >&2
    as_owner "$bin/pg_ctl" -D "$dir/data" -m immediate -w -t 20 stop >/dev/null 2>&1
  fi
  rm -rf "$dir" && mkdir -p "$dir"
  [ "$(id -u)" -eq 0 ] && chown postgres: "$dir"
  as_owner "$bin/initdb" -D "$dir/data" -U postgres -A trust -E UTF8 --no-locale >"$dir/initdb.log" 2>&1 ||
    { echo "initdb failed: $(tail -n 1 "$dir/initdb.log")" >&2; exit 1; }
  as_owner "$bin/pg_ctl" -D "$dir/data" -l "$dir/server.log" -w -t 60 \
    -o "-h 127.0.0.1 -p $port -k $dir -c fsync=off -c full_page_writes=off -c synchronous_commit=off" \
    start >/dev/null 2>&1 ||
    { echo "the server did not start on 127.0.0.1:$port: $(tail -n 2 "$dir/server.log" | tr '\n' ' ')" >&2; exit 1; }
  echo "== postgresql $("$bin/postgres" --version | awk '{print $3}') on 127.0.0.1:$port (data in $dir)"
  ;;
stop)
  bin=$(bindir) || exit 0
  if [ -f "$dir/data/postmaster.pid" ]; then
    # fast: end the sessions; immediate if a query keeps the server busy
    as_owner "$bin/pg_ctl" -D "$dir/data" -m fast -w -t 20 stop >/dev/null 2>&1 ||
      as_owner "$bin/pg_ctl" -D "$dir/data" -m immediate -w -t 20 stop >/dev/null 2>&1
  fi
  rm -rf "$dir"
  ;;
*)
  echo "usage: $0 start|stop [port]" >&2
  exit 2
  ;;
esac
