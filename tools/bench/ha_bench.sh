#!/usr/bin/env bash
# ha_bench.sh: replication figures of a master/slave pair on this machine, side by side.
#
# Starts a NameServer, a master and a slave (real daemons on loopback, fresh stores under a
# temporary folder) once per replication mode, and runs mqbench against the master:
#   sync  sends, window 1   — the latency one send waits (SYNC_MASTER waits for the slave)
# (after a 2 s warm-up that creates the topic's files),
#   async sends, window 64  — throughput
# for ASYNC_MASTER and SYNC_MASTER (both ASYNC_FLUSH, the default flush mode). Then the catch-up
# throughput of replication: the master is filled while its slave is down, the slave is started
# and timed until `mqadmin haStatus` shows it at the master's end.
#
#   tools/bench/ha_bench.sh [SECONDS_PER_RUN]      (default 5; binaries from build/bin)
set -euo pipefail

ROOT="$(cd "$(dirname "$0")/../.." && pwd)"
BIN="${FERRY_BIN:-$ROOT/build/bin}"
SECONDS_PER_RUN="${1:-5}"
for b in mqnamesrv mqbroker mqadmin mqbench; do
  [ -x "$BIN/$b" ] || { echo "ha_bench: $BIN/$b is missing (build it: ninja -C build $b)" >&2; exit 1; }
done
BENCH_NAME=ha_bench
. "$ROOT/tools/bench/bench_lib.sh"

broker_conf() {  # name id role port dir
  cat > "$WORK/$1.conf" <<CONF
brokerClusterName=BenchCluster
brokerName=broker-a
brokerId=$2
brokerRole=$3
brokerIP1=127.0.0.1
listenPort=$4
namesrvAddr=127.0.0.1:$NS_PORT
storePathRootDir=$5
mappedFileSizeCommitLog=1073741824
CONF
}

start() {  # name args...
  local name="$1"; shift
  "$@" > "$WORK/$name.out" 2>&1 < /dev/null &
  PIDS+=("$!")
  echo "$!" > "$WORK/$name.pid"
}

stop() { local p; p="$(cat "$WORK/$1.pid")"; kill "$p" 2>/dev/null || true; wait "$p" 2>/dev/null || true; }

# The slave's lag in bytes as haStatus prints it (the #LagBytes column of the slave's row), or
# nothing while the slave has no link to its master.
slave_lag() {
  "$BIN/mqadmin" haStatus -n "127.0.0.1:$NS_PORT" -b "127.0.0.1:$SLAVE_PORT" 2>/dev/null |
    awk '$2 == "1" && $8 ~ /^linked/ { print $6; exit }'
}

NS_PORT="$(free_port)"
start namesrv "$BIN/mqnamesrv" -p "$NS_PORT" -d "$WORK/namesrv"
wait_port "$NS_PORT"

summary() {  # the mqbench summary lines worth comparing
  grep -E "msg/s|p50|errors" "$1" | sed 's/^/    /'
}

declare -A RESULT
for role in ASYNC_MASTER SYNC_MASTER; do
  MASTER_PORT="$(free_port)"; SLAVE_PORT="$(free_port)"
  while [ "$SLAVE_PORT" -le $((MASTER_PORT + 1)) ] && [ "$SLAVE_PORT" -ge $((MASTER_PORT - 1)) ]; do SLAVE_PORT="$(free_port)"; done
  rm -rf "$WORK/m-$role" "$WORK/s-$role"
  broker_conf "master-$role" 0 "$role" "$MASTER_PORT" "$WORK/m-$role"
  broker_conf "slave-$role" 1 SLAVE "$SLAVE_PORT" "$WORK/s-$role"
  start "master-$role" "$BIN/mqbroker" -c "$WORK/master-$role.conf"
  start "slave-$role" "$BIN/mqbroker" -c "$WORK/slave-$role.conf"
  wait_port "$MASTER_PORT"; wait_port "$SLAVE_PORT"
  for _ in $(seq 1 300); do [ "$(slave_lag)" = "0" ] && break; sleep 0.1; done
  [ "$(slave_lag)" = "0" ] || { echo "ha_bench: the slave did not link to its master; see $WORK/slave-$role.out" >&2; exit 1; }
  echo "== $role + ASYNC_FLUSH, slave linked (lag 0 bytes)"
  # Warm-up, not measured: the topic's queue and index files are created, and the disk settles
  # after the previous phase (its files are written back meanwhile).
  "$BIN/mqbench" produce -n "127.0.0.1:$NS_PORT" -t "Ha$role" --create-topic -q 8 -m async -w 64 -d 2 > /dev/null 2>&1 || true
  sync; sleep 1
  "$BIN/mqbench" produce -n "127.0.0.1:$NS_PORT" -t "Ha$role" -m sync -w 1 -d "$SECONDS_PER_RUN" \
    > "$WORK/sync-$role.txt" 2>&1 || true
  echo "  sync, window 1:"; summary "$WORK/sync-$role.txt"
  "$BIN/mqbench" produce -n "127.0.0.1:$NS_PORT" -t "Ha$role" -m async -w 64 -d "$SECONDS_PER_RUN" \
    > "$WORK/async-$role.txt" 2>&1 || true
  echo "  async, window 64:"; summary "$WORK/async-$role.txt"

  if [ "$role" = ASYNC_MASTER ]; then
    # Catch-up: the slave down while the master takes 5 s of async sends, then timed back to lag 0.
    stop "slave-$role"
    "$BIN/mqbench" produce -n "127.0.0.1:$NS_PORT" -t "Ha$role" -m async -w 64 -d "$SECONDS_PER_RUN" > /dev/null 2>&1 || true
    start "slave-$role" "$BIN/mqbroker" -c "$WORK/slave-$role.conf"
    wait_port "$SLAVE_PORT"
    t0=$(date +%s.%N); lag0=""
    for _ in $(seq 1 1200); do
      lag="$(slave_lag)"
      [ -z "$lag0" ] && [ -n "$lag" ] && lag0="$lag"
      [ "$lag" = "0" ] && break
      sleep 0.05
    done
    t1=$(date +%s.%N)
    awk -v lag="$lag0" -v a="$t0" -v b="$t1" 'BEGIN {
      printf "  catch-up: a slave %s bytes behind reached the master in %.2f s = %.1f MiB/s\n", lag, b - a, lag / (b - a) / 1048576 }'
  fi
  stop "master-$role"; stop "slave-$role"
done
