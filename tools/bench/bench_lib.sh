# Shared by the benchmark scripts that start daemons (ha_bench.sh, hostile_bench.sh): a work
# folder removed on exit with every started process killed, free loopback ports, waiting for a
# port. Source it after setting BENCH_NAME (used in messages and the work folder's name).
#   BENCH_NAME=ha_bench; . "$(dirname "$0")/bench_lib.sh"
#   PIDS+=("$!")          # after starting a daemon in the background
WORK="$(mktemp -d "/tmp/ferry-${BENCH_NAME//_/-}.XXXXXX")"
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

# A NameServer and one broker (BenchCluster / broker-a, id 0) from the binaries in $1, on free
# loopback ports, their files under $WORK/<label>-*; extra broker.conf lines in $3. Sets NS_PORT,
# BROKER_PORT, NS_PID, BROKER_PID and returns once both listen.
#   start_single_broker "$BIN" before "mappedFileSizeCommitLog=1073741824"
start_single_broker() {
  local bin="$1" label="$2" extra="${3:-}"
  NS_PORT="$(free_port)"; BROKER_PORT="$(free_port)"
  cat > "$WORK/$label.conf" <<CONF
brokerClusterName=BenchCluster
brokerName=broker-a
brokerId=0
brokerIP1=127.0.0.1
listenPort=$BROKER_PORT
namesrvAddr=127.0.0.1:$NS_PORT
storePathRootDir=$WORK/store-$label
$extra
CONF
  "$bin/mqnamesrv" -p "$NS_PORT" -d "$WORK/namesrv-$label" > "$WORK/namesrv-$label.out" 2>&1 < /dev/null &
  NS_PID=$!; PIDS+=("$NS_PID")
  "$bin/mqbroker" -c "$WORK/$label.conf" > "$WORK/broker-$label.out" 2>&1 < /dev/null &
  BROKER_PID=$!; PIDS+=("$BROKER_PID")
  wait_port "$NS_PORT"; wait_port "$BROKER_PORT"
}

wait_port() {
  for _ in $(seq 1 100); do
    (exec 3<>"/dev/tcp/127.0.0.1/$1") 2>/dev/null && return 0
    sleep 0.1
  done
  echo "$BENCH_NAME: nothing listens on $1; see $WORK/*.out" >&2
  exit 1
}

# The consumer's figures of an `mqbench e2e --json` output file $1, on one line:
# "received p50 p99 max early errors" (ms; early: timer messages received before their delay),
# or "(no result)" when the run printed none.
e2e_figures() {
  python3 - "$1" <<'PY'
import json, sys
lines = open(sys.argv[1]).read().strip().splitlines()
if not lines:
    print("(no result)"); sys.exit(0)
c = json.loads(lines[-1])["consume"]
e = c.get("e2e_ms", {})
print(c["received"], e.get("p50", 0), e.get("p99", 0), e.get("max", 0), c.get("timers_early", 0), c.get("errors", 0))
PY
}
