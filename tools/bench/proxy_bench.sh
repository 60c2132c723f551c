#!/usr/bin/env bash
# proxy_bench.sh: throughput through mqproxy (gRPC, RocketMQ 5's clients' way) beside direct
# remoting (RocketMQ 4's clients' way) on the same daemons, in the same run (docs/benchmarks.md
# "Proxy").
#
# Starts a NameServer, one broker (ASYNC_FLUSH, a fresh store) and mqproxy on loopback, then:
#   produce  N messages of 256 bytes: mqbench produce with C sends in flight on one connection
#            (direct), then proxy_bench produce with C connections each sending one at a time
#            (through the proxy, which sends on with its one remoting producer)
#   consume  the N messages by a fresh group from the first: mqbench consume --pop 8 (direct POP,
#            8 receive loops), then proxy_bench consume with 8 receive loops (ReceiveMessage of
#            32, one AckMessage a batch)
#
#   tools/bench/proxy_bench.sh [N] [C]      (default 100000 and 32; binaries from build/bin)
set -euo pipefail

ROOT="$(cd "$(dirname "$0")/../.." && pwd)"
BIN="${FERRY_BIN:-$ROOT/build/bin}"
N="${1:-100000}"
C="${2:-32}"
for b in mqnamesrv mqbroker mqbench mqproxy proxy_bench; do
  [ -x "$BIN/$b" ] || { echo "proxy_bench: $BIN/$b is missing (build it: ninja -C build $b)" >&2; exit 1; }
done
BENCH_NAME=proxy_bench
. "$ROOT/tools/bench/bench_lib.sh"

start_single_broker "$BIN" proxy "mappedFileSizeCommitLog=1073741824"
NS="127.0.0.1:$NS_PORT"
PROXY_PORT="$(free_port)"
"$BIN/mqproxy" -n "$NS" -p "$PROXY_PORT" -d "$WORK/proxy" > "$WORK/proxy.out" 2>&1 < /dev/null &
PIDS+=("$!")
wait_port "$PROXY_PORT"
for t in BenchDirect BenchProxy; do
  "$BIN/mqadmin" updateTopic -n "$NS" -t "$t" -c BenchCluster -r 8 -w 8 > /dev/null
done

msgs_per_s() {  # a mqbench --json file, a member path -> msg/s
  python3 - "$@" <<'PY'
import json, sys
lines = open(sys.argv[1]).read().strip().splitlines()
if not lines:
    print("(no result)"); sys.exit(0)
d = json.loads(lines[-1])
for k in sys.argv[2].split("."):
    d = d[k]
print(f"{d:.0f} msg/s")
PY
}

"$BIN/mqbench" produce -n "$NS" --topic BenchDirect --size 256 --messages "$N" --window "$C" --json \
  > "$WORK/direct-produce.json" 2> "$WORK/direct-produce.err"
direct_produce="$(msgs_per_s "$WORK/direct-produce.json" msgs_per_s)"
proxy_produce="$("$BIN/proxy_bench" produce --endpoints "127.0.0.1:$PROXY_PORT" --topic BenchProxy --messages "$N" \
  --size 256 --concurrency "$C" 2>&1 | tail -n 1)"
"$BIN/mqbench" consume -n "$NS" --topic BenchDirect --group bench-direct --from first --messages "$N" --pop 8 \
  --seconds 120 --json > "$WORK/direct-consume.json" 2> "$WORK/direct-consume.err" || true
direct_consume="$(msgs_per_s "$WORK/direct-consume.json" busy_msgs_per_s)"
proxy_consume="$("$BIN/proxy_bench" consume --endpoints "127.0.0.1:$PROXY_PORT" --topic BenchProxy --group bench-proxy \
  --messages "$N" --concurrency 8 2>&1 | tail -n 1)"

echo "proxy_bench: $N messages of 256 B, 8 queues, one broker (ASYNC_FLUSH), $(nproc) cores; proxy, broker and clients on one machine"
echo "produce, direct (mqbench, $C in flight):      $direct_produce"
echo "produce, through mqproxy ($C gRPC clients):   $proxy_produce"
echo "consume, direct POP x8 (mqbench --pop 8):     $direct_consume"
echo "consume, through mqproxy (8 receive loops):   $proxy_consume"
