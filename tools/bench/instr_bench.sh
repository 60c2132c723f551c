#!/usr/bin/env bash
# instr_bench.sh: CPU instructions per message of the broker and of the client, counted by
# callgrind (valgrind), for the same send load; with --baseline, for two builds side by side.
#
# Instruction counts do not move with the machine's load, unlike CPU seconds, so this is the
# figure to compare changes of the hot path with on a shared or noisy machine (time per
# instruction still differs: a memcpy's `rep movsb` counts one per byte, a cache miss counts one).
# Per build: a NameServer and a broker (under callgrind, fresh store, ASYNC_FLUSH unless
# FLUSH=SYNC_FLUSH), a 2,000-message warm-up that creates the topic's files, the broker's counters
# zeroed, then `mqbench produce` (under callgrind) sends N messages; the broker's counters are
# dumped when it is done. Startup and warm-up are not counted on the broker; the client's count
# includes its startup (route look-up, connect: under 1 % at N = 20,000).
#
#   tools/bench/instr_bench.sh [--baseline BIN_DIR] [--messages N] [mqbench produce flags...]
#   (default N = 20000, flags: -s 1024 -m async -w 256; binaries from build/bin or $FERRY_BIN)
# Installs valgrind from Debian when it is missing. 20,000 messages take about a minute per build.
set -euo pipefail

ROOT="$(cd "$(dirname "$0")/../.." && pwd)"
BIN="${FERRY_BIN:-$ROOT/build/bin}"
BASE=""
N=20000
while [ $# -gt 0 ]; do
  case "$1" in
    --baseline) BASE="$2"; shift 2 ;;
    --messages) N="$2"; shift 2 ;;
    *) break ;;
  esac
done
[ $# -gt 0 ] || set -- -s 1024 -m async -w 256
if ! command -v callgrind_control >/dev/null; then
  echo "instr_bench: installing valgrind"
  SUDO=""; [ "$(id -u)" -ne 0 ] && SUDO="sudo"
  export DEBIAN_FRONTEND=noninteractive
  $SUDO apt-get update -qq
  $SUDO apt-get install -y -qq --no-install-recommends valgrind
fi
BENCH_NAME=instr_bench
. "$ROOT/tools/bench/bench_lib.sh"

total_of() {  # callgrind output file -> its total instruction count
  awk '/^(summary|totals):/ {print $2; exit}' "$1"
}

measure() {  # label bin_dir mqbench-flags...
  local label="$1" bin="$2"; shift 2
  for b in mqnamesrv mqbroker mqadmin mqbench; do
    [ -x "$bin/$b" ] || { echo "instr_bench: $bin/$b is missing" >&2; exit 1; }
  done
  local dir="$WORK/$label" ns bp
  mkdir -p "$dir"
  ns="$(free_port)"; bp="$(free_port)"
  printf 'listenPort=%s\n' "$ns" > "$dir/namesrv.conf"
  printf 'brokerClusterName=BenchCluster\nbrokerName=broker-a\nlistenPort=%s\nnamesrvAddr=127.0.0.1:%s\nstorePathRootDir=%s/store\nflushDiskType=%s\n' \
    "$bp" "$ns" "$dir" "${FLUSH:-ASYNC_FLUSH}" > "$dir/broker.conf"
  "$bin/mqnamesrv" -c "$dir/namesrv.conf" > "$dir/namesrv.out" 2>&1 &
  PIDS+=("$!"); local ns_pid=$!
  wait_port "$ns"
  valgrind --tool=callgrind --callgrind-out-file="$dir/broker.cg" "$bin/mqbroker" -c "$dir/broker.conf" > "$dir/broker.out" 2>&1 &
  PIDS+=("$!"); local broker_pid=$!
  for _ in $(seq 1 300); do
    "$bin/mqadmin" clusterList -n "127.0.0.1:$ns" 2>/dev/null | grep -q broker-a && break
    sleep 0.2
  done
  "$bin/mqbench" produce -n "127.0.0.1:$ns" -t InstrT --create-topic -q 8 --messages 2000 -m async -w 64 > "$dir/warm.out" 2>&1 ||
    { cat "$dir/warm.out" >&2; exit 1; }
  callgrind_control -z "$broker_pid" > /dev/null 2>&1
  valgrind --tool=callgrind --callgrind-out-file="$dir/client.cg" \
    "$bin/mqbench" produce -n "127.0.0.1:$ns" -t InstrT --messages "$N" "$@" > "$dir/bench.out" 2>&1 ||
    { cat "$dir/bench.out" >&2; exit 1; }
  callgrind_control -d "$broker_pid" > /dev/null 2>&1
  local dump="" i
  for i in $(seq 1 100); do
    dump="$(ls "$dir"/broker.cg.* 2>/dev/null | head -1)"
    [ -n "$dump" ] && [ -n "$(total_of "$dump")" ] && break
    sleep 0.2
  done
  kill "$broker_pid" "$ns_pid" 2>/dev/null || true
  wait "$broker_pid" "$ns_pid" 2>/dev/null || true
  local sent b c
  sent="$(grep -oE 'sent ok: +[0-9]+' "$dir/bench.out" | grep -oE '[0-9]+$')"
  [ "$sent" = "$N" ] || { echo "instr_bench: $label sent ${sent:-0} of $N" >&2; cat "$dir/bench.out" >&2; exit 1; }
  b="$(total_of "$dump")"; c="$(total_of "$dir/client.cg")"
  printf '%-10s  %12d  %12d  %12d\n' "$label" $((b / N)) $((c / N)) $(((b + c) / N))
}

echo "instructions per message, $N messages: mqbench produce $*"
printf '%-10s  %12s  %12s  %12s\n' build broker client both
[ -n "$BASE" ] && measure baseline "$BASE" "$@"
measure current "$BIN" "$@"
