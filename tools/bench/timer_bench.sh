#!/usr/bin/env bash
# timer_bench.sh: timer messages on real daemons (docs/store.md "Timer messages").
#
# Starts a NameServer and one broker (real daemons on loopback, a fresh store under a temporary
# folder, ASYNC_FLUSH, timerPrecisionMs 1000) and measures:
#   lateness   mqbench e2e at --rate R: plain messages (the baseline, in the same run), then timer
#              messages asking for 1-20 s (TIMER_DELAY_MS): receipt minus (send + delay), percentiles
#   pending    N timers due in 1-2 h sent, so that they all wait: the broker's anonymous resident
#              memory before and after (per pending timer), the TimerLog's bytes, then a graceful restart and a
#              kill -9 restart, each with the broker's own "recovered in" figure and the time until it
#              listens again, and the count it found pending
#
#   tools/bench/timer_bench.sh [PENDING] [RATE]      (default 1000000 and 2000; binaries from build/bin)
set -euo pipefail

ROOT="$(cd "$(dirname "$0")/../.." && pwd)"
BIN="${FERRY_BIN:-$ROOT/build/bin}"
PENDING="${1:-1000000}"
RATE="${2:-2000}"
for b in mqnamesrv mqbroker mqbench; do
  [ -x "$BIN/$b" ] || { echo "timer_bench: $BIN/$b is missing (build it: ninja -C build $b)" >&2; exit 1; }
done
BENCH_NAME=timer_bench
. "$ROOT/tools/bench/bench_lib.sh"

start_single_broker "$BIN" timer "mappedFileSizeCommitLog=1073741824"
NS="127.0.0.1:$NS_PORT"

e2e() {  # label extra-flags... -> "n p50 p99 max early" of the consumer's e2e (lateness for timers)
  local label="$1"; shift
  "$BIN/mqbench" e2e -n "$NS" --topic "TimerBench$label" --create-topic --cluster BenchCluster --queues 4 \
    --consumer-group "timer-bench-$label" --rate "$RATE" --seconds 10 --size 256 --json "$@" \
    > "$WORK/e2e-$label.json" 2> "$WORK/e2e-$label.err" || true
  e2e_figures "$WORK/e2e-$label.json" | awk '{ if (NF < 6) print; else printf "%8d %9.1f %9.1f %9.1f %6d\n", $1, $2, $3, $4, $5 }'
}

echo "== lateness at $RATE msg/s for 10 s (e2e for plain messages; receipt - (send + delay) for timers)"
printf '%-22s %8s %9s %9s %9s %6s\n' run received "p50 ms" "p99 ms" "max ms" early
printf '%-22s %s\n' "plain" "$(e2e Plain)"
printf '%-22s %s\n' "timers 1-20 s" "$(e2e Timers --timer-delay-ms 1000-20000 --tail-s 60)"

# Anonymous resident memory (heap and stacks; not the mapped CommitLog, ConsumeQueue and TimerLog
# pages, which are the page cache's), in KiB.
rss_kb() { awk '/^RssAnon:/ {print $2}' "/proc/$1/status"; }
restart_broker() {  # starts the broker again; LISTEN_MS = how long until it listens
  local t0 t1
  t0=$(date +%s%N)
  "$BIN/mqbroker" -c "$WORK/timer.conf" >> "$WORK/broker-timer.out" 2>&1 < /dev/null &
  BROKER_PID=$!; PIDS+=("$BROKER_PID")
  wait_port "$BROKER_PORT"
  t1=$(date +%s%N)
  LISTEN_MS=$(( (t1 - t0) / 1000000 ))
}
recovered_line() { grep "timers: .* pending" "$WORK/broker-timer.out" | tail -1 | sed 's/.*timers: //'; }

echo
echo "== $PENDING timers pending (due in 1-2 h)"
before=$(rss_kb "$BROKER_PID")
"$BIN/mqbench" produce -n "$NS" --topic TimerPending --create-topic --cluster BenchCluster --queues 4 \
  --messages "$PENDING" --size 128 --window 256 --timer-delay-ms 3600000-7200000 --json \
  > "$WORK/pending.json" 2> "$WORK/pending.err"
sleep 3
after=$(rss_kb "$BROKER_PID")
python3 - "$WORK/pending.json" "$before" "$after" "$PENDING" <<'PY'
import json, sys
p = json.loads(open(sys.argv[1]).read().strip().splitlines()[-1])
before, after, n = int(sys.argv[2]), int(sys.argv[3]), int(sys.argv[4])
print(f'sent {p["sent_ok"]} timers at {p["msgs_per_s"]:.0f} msg/s ({p["errors"]} errors)')
print(f'broker anonymous memory (RssAnon) {before / 1024:.1f} MiB before, {after / 1024:.1f} MiB after: '
      f'{(after - before) * 1024 / max(n, 1):.1f} bytes per pending timer (mapped files not counted: they are page cache)')
PY
du -sb "$WORK/store-timer/timerlog" | awk -v n="$PENDING" '{printf "TimerLog on disk: %d bytes, %.1f per timer\n", $1, $1 / n}'

kill -TERM "$BROKER_PID"; wait "$BROKER_PID" 2>/dev/null || true
restart_broker
sleep 1
echo "graceful restart: listening after $LISTEN_MS ms; $(recovered_line)"
sleep 2
kill -9 "$BROKER_PID"; wait "$BROKER_PID" 2>/dev/null || true
restart_broker
sleep 1
echo "kill -9 restart:  listening after $LISTEN_MS ms; $(recovered_line)"
echo "broker anonymous memory after the restart: $(( $(rss_kb "$BROKER_PID") / 1024 )) MiB"
