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

wait_port() {
  for _ in $(seq 1 100); do
    (exec 3<>"/dev/tcp/127.0.0.1/$1") 2>/dev/null && return 0
    sleep 0.1
  done
  echo "$BENCH_NAME: nothing listens on $1; see $WORK/*.out" >&2
  exit 1
}
