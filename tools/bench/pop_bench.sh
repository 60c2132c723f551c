e2e() {  # label extra-flags... -> e2e percentiles
  local label="$1"; shift
  "$BIN/mqbench" e2e -n "$NS" --topic "PopE2e$label" --create-topic --cluster BenchCluster --queues 8 \
    --consumer-group "pop-e2e-$label" --rate "$RATE" --seconds 10 --size 256 --json "$@" \
    > "$WORK/e2e-$label.json" 2> "$WORK/e2e-$label.err" || true
  e2e_figures "$WORK/e2e-$label.json" | awk '{ if (NF < 6) print; else printf "n %7d  p50 %s ms  p99 %s ms  max %s ms  errors %d\n", $1, $2, $3, $4, $6 }'
}

#!/usr/bin/env bash
# pop_bench.sh: POP consumption beside push consumption on real daemons (docs/benchmarks.md "POP").
#
# Starts a NameServer and one broker (real daemons on loopback, a fresh store under a temporary
# folder, ASYNC_FLUSH) and measures, each in the same run:
#   drain   N messages of 256 bytes stored first (8 queues), then read by a fresh group from the
#           first message: a push consumer (the baseline), then POP with 1 and with 8 receive loops
#           (32 messages per POP, each batch acknowledged with one BATCH_ACK_MESSAGE): msg/s
#           between the first and the last message
#   e2e     mqbench e2e at --rate R: push (the baseline), then POP with 4 receive loops: latency
#           percentiles from send to receipt
#
#   tools/bench/pop_bench.sh [N] [RATE]      (default 200000 and 5000; binaries from build/bin)
set -euo pipefail

ROOT="$(cd "$(dirname "$0")/../.." && pwd)"
BIN="${FERRY_BIN:-$ROOT/build/bin}"
N="${1:-200000}"
RATE="${2:-5000}"
for b in mqnamesrv mqbroker mqbench; do
  [ -x "$BIN/$b" ] || { echo "pop_bench: $BIN/$b is missing (build it: ninja -C build $b)" >&2; exit 1; }
done
BENCH_NAME=pop_bench
. "$ROOT/tools/bench/bench_lib.sh"

start_single_broker "$BIN" pop "mappedFileSizeCommitLog=1073741824"
NS="127.0.0.1:$NS_PORT"

"$BIN/mqbench" produce -n "$NS" --topic PopBench --create-topic --cluster BenchCluster --queues 8 --size 256 \
  --messages "$N" --producers 2 > "$WORK/produce.out" 2>&1

drain() {  # label extra-flags... -> "msg/s received"
  local label="$1"; shift
  "$BIN/mqbench" consume -n "$NS" --topic PopBench --group "pop-bench-$label" --from first --messages "$N" \
    --seconds 120 --json "$@" > "$WORK/drain-$label.json" 2> "$WORK/drain-$label.err" || true
  python3 - "$WORK/drain-$label.json" <<'PY'
import json, sys
lines = open(sys.argv[1]).read().strip().splitlines()
if not lines:
    print("(no result)"); sys.exit(0)
c = json.loads(lines[-1])
print(f"{c['busy_msgs_per_s']:>10.0f} msg/s  received {c['received']}  redelivered {c['redelivered']}  errors {c['errors']}")
PY
}

e2e() {  # label extra-flags... -> e2e percentiles
  local label="$1"; shift
  "$BIN/mqbench" e2e -n "$NS" --topic "PopE2e$label" --create-topic --cluster BenchCluster --queues 8 \
    --consumer-group "pop-e2e-$label" --rate "$RATE" --seconds 10 --size 256 --json "$@" \
    > "$WORK/e2e-$label.json" 2> "$WORK/e2e-$label.err" || true
  python3 - "$WORK/e2e-$label.json" <<'PY'
import json, sys
lines = open(sys.argv[1]).read().strip().splitlines()
if not lines:
    print("(no result)"); sys.exit(0)
c = json.loads(lines[-1])["consume"]
e = c.get("e2e_ms", {})
print(f"n {c['received']:>7}  p50 {e.get('p50')} ms  p99 {e.get('p99')} ms  max {e.get('max')} ms  errors {c['errors']}")
PY
}

echo "pop_bench: $N messages of 256 B, 8 queues, one broker (ASYNC_FLUSH), $(nproc) cores"
echo "drain, push consumer (baseline):  $(drain push)"
echo "drain, POP x1:                    $(drain pop1 --pop 1)"
echo "drain, POP x8:                    $(drain pop8 --pop 8)"
echo "e2e at $RATE msg/s, push (baseline): $(e2e push)"
echo "e2e at $RATE msg/s, POP x4:          $(e2e pop4 --pop 4)"
