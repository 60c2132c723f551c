#!/usr/bin/env bash
# tx_bench.sh: what a message costs as a transaction, beside the same message as a plain send.
#
# Starts a NameServer and one broker (real daemons on loopback, a fresh store under a temporary
# folder, ASYNC_FLUSH), and runs mqbench produce against it, each after a 2 s warm-up:
#   sync         window 1 and 32 — a plain send awaited per message
#   transaction  window 1 and 32 — the half message awaited, a local transaction that commits at
#                once (run on the client's offload pool, as an application's would be), the
#                COMMIT sent oneway; the broker then writes the committed copy and an op record
# and prints msg/s and latency side by side. A transaction writes three records (half, commit,
# op) where a plain send writes one: the broker's write rate is the bound.
#
#   tools/bench/tx_bench.sh [SECONDS_PER_RUN]      (default 5; binaries from build/bin)
set -euo pipefail

ROOT="$(cd "$(dirname "$0")/../.." && pwd)"
BIN="${FERRY_BIN:-$ROOT/build/bin}"
SECONDS_PER_RUN="${1:-5}"
for b in mqnamesrv mqbroker mqbench; do
  [ -x "$BIN/$b" ] || { echo "tx_bench: $BIN/$b is missing (build it: ninja -C build $b)" >&2; exit 1; }
done
BENCH_NAME=tx_bench
. "$ROOT/tools/bench/bench_lib.sh"

start_single_broker "$BIN" tx "mappedFileSizeCommitLog=1073741824"

run() {  # mode window -> "msg/s p50 p99" of the run
  local out="$WORK/run-$1-$2.out"
  "$BIN/mqbench" produce -n "127.0.0.1:$NS_PORT" --topic TxBench --create-topic --cluster BenchCluster --group "tx-bench-$1" \
    --mode "$1" --window "$2" --seconds 2 > /dev/null 2>&1 || true
  "$BIN/mqbench" produce -n "127.0.0.1:$NS_PORT" --topic TxBench --group "tx-bench-$1" --mode "$1" --window "$2" \
    --seconds "$SECONDS_PER_RUN" --json > "$out" 2> "$WORK/run-$1-$2.err"
  python3 - "$out" <<'PY'
import json, sys
p = json.loads(open(sys.argv[1]).read().strip().splitlines()[-1])
lat = p.get("latency_ms", {})
print(f'{p["msgs_per_s"]:10.0f} {lat.get("p50", 0):8.2f} {lat.get("p99", 0):8.2f} {p["errors"]:7d}')
PY
}

printf '%-12s %6s %10s %8s %8s %7s\n' mode window "msg/s" "p50 ms" "p99 ms" errors
for window in 1 32; do
  for mode in sync transaction; do
    printf '%-12s %6s %s\n' "$mode" "$window" "$(run "$mode" "$window")"
  done
done
