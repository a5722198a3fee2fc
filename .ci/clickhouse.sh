#!/usr/bin/env bash
# A throw-away ClickHouse cluster of two shards on loopback for the tests (tests/engines/clickhouse_test.ts).
#   .ci/clickhouse.sh start [port]   install Debian's clickhouse-server when missing (apt-get, as
#                                    root), start two servers with fresh data directories under
#                                    /tmp: shard 1 on TCP port, HTTP port+10; shard 2 on TCP
#                                    port+1, HTTP port+11 (default port 19100). Both declare the
#                                    cluster "tallmc_two_shards" over the two; a table
#                                    default.ci_rows_local on each shard and a Distributed table
#                                    default.ci_rows over them are created and checked (one row per
#                                    shard, two through the Distributed table).
#   .ci/clickhouse.sh stop [port]    stop both servers and remove their data directories
# User "default", no password, loopback only.
# Exit status 0 on success; otherwise a one-line reason on stderr and status 1.
set -uo pipefail
cmd=${1:-}
port=${2:-${TALLMC_CH_PORT:-19100}}
root=/tmp/tallmc_ch_$port

http_query() { # http_port sql
  curl -sS --max-time 30 --data-binary "$2" "http://127.0.0.1:$1/" 2>&1
}

shard_conf() { # index tcp http
  local dir=$root/shard$1
  mkdir -p "$dir/data" "$dir/tmp" "$dir/user_files" "$dir/format_schemas"
  cat >"$dir/users.xml" <<EOF
<?xml version="1.0"?>
<yandex>
  <profiles><default><max_memory_usage>4000000000</max_memory_usage><load_balancing>random</load_balancing></default></profiles>
  <users><default><password></password><networks><ip>127.0.0.1</ip><ip>::1</ip></networks><profile>default</profile><quota>default</quota></default></users>
  <quotas><default><interval><duration>3600</duration><queries>0</queries><errors>0</errors><result_rows>0</result_rows><read_rows>0</read_rows><execution_time>0</execution_time></interval></default></quotas>
</yandex>
EOF
  cat >"$dir/config.xml" <<EOF
<?xml version="1.0"?>
<yandex>
  <logger><level>warning</level><log>$dir/server.log</log><errorlog>$dir/error.log</errorlog></logger>
  <http_port>$3</http_port>
  <tcp_port>$2</tcp_port>
  <listen_host>127.0.0.1</listen_host>
  <path>$dir/data/</path>
  <tmp_path>$dir/tmp/</tmp_path>
  <user_files_path>$dir/user_files/</user_files_path>
  <format_schema_path>$dir/format_schemas/</format_schema_path>
  <users_config>$dir/users.xml</users_config>
  <default_profile>default</default_profile>
  <default_database>default</default_database>
  <mark_cache_size>268435456</mark_cache_size>
  <max_concurrent_queries>20</max_concurrent_queries>
  <remote_servers>
    <tallmc_two_shards>
      <shard><replica><host>127.0.0.1</host><port>$port</port></replica></shard>
      <shard><replica><host>127.0.0.1</host><port>$((port + 1))</port></replica></shard>
    </tallmc_two_shards>
  </remote_servers>
</yandex>
EOF
}

stop_all() {
  local i pidf pid
  for i in 1 2; do
    pidf=$root/shard$i/pid
    [ -f "$pidf" ] || continue
    pid=$(cat "$pidf")
    if kill -0 "$pid" 2>/dev/null; then
      kill "$pid" 2>/dev/null
      for _ in $(seq 1 50); do kill -0 "$pid" 2>/dev/null || break; sleep 0.2; done
      kill -0 "$pid" 2>/dev/null && kill -9 "$pid" 2>/dev/null
    fi
  done
  rm -rf "$root"
}

case "$cmd" in
start)
  if ! command -v clickhouse-server >/dev/null 2>&1; then
    if [ "$(id -u)" -eq 0 ] && command -v apt-get >/dev/null 2>&1; then
      echo "== clickhouse-server not found: apt-get install -y clickhouse-server" >&2
      { apt-get update -qq &&
        DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends clickhouse-server; } >/dev/null 2>&1
    fi
    command -v clickhouse-server >/dev/null 2>&1 ||
      { echo "clickhouse-server is not installed and could not be installed (needs Debian's apt-get as root)" >&2; exit 1; }
  fi
  command -v curl >/dev/null 2>&1 || { echo "curl is needed to check the ClickHouse servers" >&2; exit 1; }
  stop_all # an earlier run's servers in this throw-away directory
  for i in 1 2; do
    shard_conf "$i" $((port + i - 1)) $((port + 9 + i))
    dir=$root/shard$i
    clickhouse-server --config-file="$dir/config.xml" >"$dir/stdout.log" 2>&1 &
    echo $! >"$dir/pid"
  done
  for i in 1 2; do
    http=$((port + 9 + i))
    ok=0
    for _ in $(seq 1 150); do
      [ "$(http_query "$http" "SELECT 1")" = "1" ] && { ok=1; break; }
      sleep 0.2
    done
    if [ "$ok" -ne 1 ]; then
      echo "ClickHouse shard $i did not answer on 127.0.0.1:$http: $(tail -n 2 "$root/shard$i/error.log" "$root/shard$i/stdout.log" 2>/dev/null | tr '\n' ' ')" >&2
      stop_all
      exit 1
    fi
  done
  # The cluster works: a local table on each shard, one row in each, two through a Distributed table.
  for i in 1 2; do
    http=$((port + 9 + i))
    http_query "$http" "CREATE TABLE default.ci_rows_local (k UInt32, x Float64) ENGINE = MergeTree ORDER BY k" >/dev/null
    http_query "$http" "INSERT INTO default.ci_rows_local VALUES ($i, 0.5)" >/dev/null
    http_query "$http" "CREATE TABLE default.ci_rows AS default.ci_rows_local ENGINE = Distributed(tallmc_two_shards, default, ci_rows_local)" >/dev/null
  done
  got=$(http_query $((port + 10)) "SELECT count(), sum(k) FROM default.ci_rows")
  if [ "$got" != "$(printf '2\t3')" ]; then
    echo "the Distributed table over two shards does not answer as it should: $got" >&2
    stop_all
    exit 1
  fi
  echo "== clickhouse-server $(http_query $((port + 10)) "SELECT version()") shards on 127.0.0.1:$port,$((port + 1)) (HTTP $((port + 10)),$((port + 11)); data in $root)"
  ;;
stop)
  stop_all
  ;;
*)
  echo "usage: $0 start|stop [port]" >&2
  exit 2
  ;;
esac
