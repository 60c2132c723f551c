#!/usr/bin/env bash
# hostile_bench.sh: issue 17's before/after figures — the latency another client sees while a
# broker serves each hostile request — for two builds of the daemons on this machine, one after
# the other, each on a fresh store with the same data shape.
#
# For each build it starts a NameServer and a broker (loopback, fresh store under a temporary
# folder, 1 GiB CommitLog files, ASYNC_FLUSH) and runs `mqbench hostile` (always this tree's,
# docs/benchmarks.md) against the broker with its pid, so that the slow-reader case reads the
# broker's RssAnon. Extra arguments go to mqbench hostile.
#
#   tools/bench/hostile_bench.sh OLD_BIN_DIR [NEW_BIN_DIR] [-- mqbench hostile flags]
#     OLD_BIN_DIR: mqnamesrv and mqbroker of the build to compare (e.g. a worktree at 158058c^)
#     NEW_BIN_DIR: default build/bin
set -euo pipefail

ROOT="$(cd "$(dirname "$0")/../.." && pwd)"
OLD="${1:?usage: hostile_bench.sh OLD_BIN_DIR [NEW_BIN_DIR] [-- flags]}"; shift
NEW="$ROOT/build/bin"
if [ $# -gt 0 ] && [ "$1" != "--" ]; then NEW="$1"; shift; fi
[ $# -gt 0 ] && [ "$1" = "--" ] && shift
MQBENCH="$ROOT/build/bin/mqbench"
for b in "$OLD/mqnamesrv" "$OLD/mqbroker" "$NEW/mqnamesrv" "$NEW/mqbroker" "$MQBENCH"; do
  [ -x "$b" ] || { echo "hostile_bench: $b is missing" >&2; exit 1; }
done
WORK="$(mktemp -d /tmp/ferry-hostile-bench.XXXXXX)"
PIDS=()
cleanup() {
  for p in "${PIDS[@]}"; do kill "$p" 2>/dev/null || true; done
  wait 2>/dev/null || true
  [ -n "${KEEP_WORK:-}" ] && echo "kept $WORK" || rm -rf "$WORK"
}
trap cleanup EXIT

free_port() {  # a free TCP port whose successor is free too (the HA port is listenPort + 1)
  python3 - <<'PY'
import socket
while True:
    s = socket.socket(); s.bind(("127.0.0.1", 0)); p = s.getsockname()[1]
    t = socket.socket()
    try:
        t.bind(("127.0.0.1", p + 1)); t.close(); s.close(); print(p); break
    except OSError:
        s.close(); t.close()
PY
}

wait_port() {
  for _ in $(seq 1 100); do
    (exec 3<>"/dev/tcp/127.0.0.1/$1") 2>/dev/null && return 0
    sleep 0.1
  done
  echo "hostile_bench: nothing listens on $1; see $WORK/*.out" >&2
  exit 1
}

for label in before after; do
  BIN="$OLD"; [ "$label" = after ] && BIN="$NEW"
  NS_PORT="$(free_port)"; BROKER_PORT="$(free_port)"
  cat > "$WORK/$label.conf" <<CONF
brokerClusterName=BenchCluster
brokerName=broker-a
brokerId=0
brokerIP1=127.0.0.1
listenPort=$BROKER_PORT
namesrvAddr=127.0.0.1:$NS_PORT
storePathRootDir=$WORK/store-$label
CONF
  "$BIN/mqnamesrv" -p "$NS_PORT" -d "$WORK/namesrv-$label" > "$WORK/namesrv-$label.out" 2>&1 < /dev/null &
  NS_PID=$!; PIDS+=("$NS_PID")
  "$BIN/mqbroker" -c "$WORK/$label.conf" > "$WORK/broker-$label.out" 2>&1 < /dev/null &
  BROKER_PID=$!; PIDS+=("$BROKER_PID")
  wait_port "$NS_PORT"; wait_port "$BROKER_PORT"
  echo "== $label: $BIN (broker pid $BROKER_PID)"
  "$MQBENCH" hostile -b "127.0.0.1:$BROKER_PORT" --pid "$BROKER_PID" "$@" || echo "(mqbench hostile exited $?)"
  kill "$BROKER_PID" "$NS_PID" 2>/dev/null || true
  wait "$BROKER_PID" "$NS_PID" 2>/dev/null || true
done
