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
BENCH_NAME=hostile_bench
. "$ROOT/tools/bench/bench_lib.sh"

for label in before after; do
  BIN="$OLD"; [ "$label" = after ] && BIN="$NEW"
  start_single_broker "$BIN" "$label"
  echo "== $label: $BIN (broker pid $BROKER_PID)"
  "$MQBENCH" hostile -b "127.0.0.1:$BROKER_PORT" --pid "$BROKER_PID" "$@" || echo "(mqbench hostile exited $?)"
  kill "$BROKER_PID" "$NS_PID" 2>/dev/null || true
  wait "$BROKER_PID" "$NS_PID" 2>/dev/null || true
done
