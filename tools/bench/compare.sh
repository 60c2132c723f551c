#!/usr/bin/env bash
# compare.sh: Ferry beside Redis Streams and NATS JetStream on this machine, the same load shapes
# against each, one table (docs/benchmarks.md, "compare.sh").
#
#   tools/bench/compare.sh [--messages N] [--idle-seconds S] [--no-write] [--help]
#
# What it does, in order:
#   1. installs the peers from Debian when missing (redis-server, redis-tools, nats-server,
#      libnats-dev, libhiredis-dev; idempotent like tools/bootstrap.sh, which does not list them:
#      only this benchmark needs them) and builds Ferry's daemons, mqbench and store_bench (ninja
#      does nothing when they are up to date), and the two peer clients of this folder with cc:
#      nats_bench.c (libnats) and redis_consume.c (hiredis);
#   2. store_bench --only raw: the disk's synced sequential write bandwidth and one fdatasync's
#      latency, the ceiling of every synced row;
#   3. each system on loopback, fresh data in a temporary folder, started and stopped by PID:
#        Ferry   ASYNC_FLUSH and SYNC_FLUSH (one NameServer, one broker, 8 queues per topic)
#        Redis   Streams (XADD), AOF with appendfsync everysec and always, no RDB snapshots
#        NATS    JetStream file storage (nats-server 2.9 has no per-message fsync setting: its
#                file store writes each message to the OS and syncs in the background, so it is
#                compared with ASYNC_FLUSH)
#      and the same shapes against each, 1 KiB bodies:
#        a      1 connection, one message at a time (each awaits its acknowledgement)
#        b/50   50 connections, each one at a time  (redis-benchmark -c 50; mqbench --connections 50)
#        b/256  1 connection, 256 in flight          (NATS async publish; mqbench async --window 256)
#      each followed by a consume of what it produced (Ferry: a push consumer from the first
#      offset; Redis: XREAD COUNT 256 walking the stream; NATS: a pull consumer fetching 256);
#   4. Ferry's end-to-end latency (mqbench e2e: producer and consumer on two loops of one process)
#      at half the b/256 produce rate of each flush mode, after a 2 s warm-up run on the same topic;
#   5. an idle broker with 100 topics x 8 queues: its RSS and CPU% over --idle-seconds (/proc).
# Message counts: --messages N (200,000) for the b shapes, N/4 for shape a, and N/100 for shape a
# on a synced mode (one fsync per message). Prints the table and the machine; unless --no-write it
# also replaces the marked section of docs/benchmarks.md with them and the commands that ran.
set -euo pipefail

ROOT="$(cd "$(dirname "$0")/../.." && pwd)"
BIN="${FERRY_BIN:-$ROOT/build/bin}"
MESSAGES=200000
IDLE_SECONDS=30
WRITE=1

usage() { sed -n '2,/^set -euo/p' "$0" | sed '$d' | sed 's/^# \{0,1\}//'; }
while [ $# -gt 0 ]; do
  case "$1" in
    --messages) MESSAGES="${2:?--messages needs a number}"; shift 2 ;;
    --idle-seconds) IDLE_SECONDS="${2:?--idle-seconds needs a number}"; shift 2 ;;
    --no-write) WRITE=0; shift ;;
    -h|--help) usage; exit 0 ;;
    *) echo "compare.sh: unknown argument '$1'; see --help" >&2; exit 2 ;;
  esac
done
[[ "$MESSAGES" =~ ^[0-9]+$ ]] && [ "$MESSAGES" -ge 400 ] || { echo "compare.sh: --messages must be a number >= 400" >&2; exit 2; }
[[ "$IDLE_SECONDS" =~ ^[0-9]+$ ]] && [ "$IDLE_SECONDS" -ge 1 ] || { echo "compare.sh: --idle-seconds must be >= 1" >&2; exit 2; }
N_B=$MESSAGES
N_A=$((MESSAGES / 4))
N_A_SYNC=$((MESSAGES / 100))
SIZE=1024
STARTED_AT="$(date -u '+%Y-%m-%d %H:%M UTC')"

# --- 1. peers, Ferry, peer clients ------------------------------------------------------------
peers=(redis-server redis-tools nats-server libnats-dev libhiredis-dev)
missing=()
for p in "${peers[@]}"; do
  status="$(dpkg-query -W -f='${Status}' "$p" 2>/dev/null || true)"
  [[ "$status" == *"install ok installed"* ]] || missing+=("$p")
done
if [ ${#missing[@]} -gt 0 ]; then
  echo "compare.sh: installing ${missing[*]}"
  SUDO=""; [ "$(id -u)" -ne 0 ] && SUDO="sudo"
  export DEBIAN_FRONTEND=noninteractive
  $SUDO apt-get update -qq
  $SUDO apt-get install -y -qq --no-install-recommends "${missing[@]}"
fi

if [ -z "${FERRY_BIN:-}" ]; then
  [ -f "$ROOT/build/build.ninja" ] || cmake -S "$ROOT" -B "$ROOT/build" -G Ninja -DCMAKE_BUILD_TYPE=Release > /dev/null
  nice ninja -C "$ROOT/build" mqnamesrv mqbroker mqadmin mqbench store_bench > /dev/null
fi
for b in mqnamesrv mqbroker mqadmin mqbench store_bench; do
  [ -x "$BIN/$b" ] || { echo "compare.sh: $BIN/$b is missing" >&2; exit 1; }
done

BENCH_NAME=compare
. "$ROOT/tools/bench/bench_lib.sh"
cc -O2 -o "$WORK/nats_bench" "$ROOT/tools/bench/nats_bench.c" -lnats -lpthread
cc -O2 -o "$WORK/redis_consume" "$ROOT/tools/bench/redis_consume.c" -lhiredis

RESULTS="$WORK/results.tsv"   # system mode shape produce_msgs produce_mbs p50_ms p99_ms consume_msgs note
COMMANDS="$WORK/commands.txt" # every measuring command, as run
: > "$RESULTS"; : > "$COMMANDS"
EXTRA="$WORK/extra.txt"       # the lines below the table (raw disk, e2e, idle broker)
: > "$EXTRA"

log() { echo "compare.sh: $*" >&2; }
record() {  # CMD...: one line of the commands list (shell-quoted; the work folder and bin shortened)
  printf '%q ' "$@" | sed "s| $|| ; s|$WORK|\$WORK|g; s|$BIN|build/bin|g" >> "$COMMANDS"
  echo >> "$COMMANDS"
}
run() {  # OUT CMD...: runs and records the command
  local out="$1"; shift
  record "$@"
  "$@" > "$out" 2> "$out.err"
}
row() { printf '%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\n' "$@" >> "$RESULTS"; }
start_bg() {  # NAME CMD...: a daemon in the background, its PID recorded for the exit trap
  local name="$1"; shift
  record "$@"
  "$@" > "$WORK/$name.out" 2>&1 < /dev/null &
  PIDS+=("$!")
  echo "$!" > "$WORK/$name.pid"
}
stop_bg() {  # NAME: SIGTERM by the recorded PID, then wait for it
  local p; p="$(cat "$WORK/$1.pid")"
  kill "$p" 2>/dev/null || true
  wait "$p" 2>/dev/null || true
}
json() {  # FILE EXPR: a field of mqbench's --json object (python expression over `j`), or "-"
  python3 -c 'import json,sys
try:
    j = json.load(open(sys.argv[1])); print(eval(sys.argv[2]))
except Exception:
    print("-")' "$1" "$2"
}
kv() { sed -n "s/.*\b$2=\([^ ]*\).*/\1/p" "$1" | head -1 | grep . || echo -; }  # FILE KEY of key=value lines

# --- 2. the disk --------------------------------------------------------------------------------
log "store_bench --only raw"
run "$WORK/raw.txt" "$BIN/store_bench" --only raw --sync-messages 10000 --repeat 3 --dir "$WORK/raw" || true
RAW_MBS="$(sed -n 's/^raw synced write: \([0-9.]*\) MB\/s.*/\1/p' "$WORK/raw.txt")"
grep -E "^(raw synced write|fdatasync latency)" "$WORK/raw.txt" >> "$EXTRA" || echo "store_bench --only raw failed: $(tail -1 "$WORK/raw.txt.err")" >> "$EXTRA"

# --- 3a. Ferry ----------------------------------------------------------------------------------
NS_PORT="$(free_port)"
start_bg namesrv "$BIN/mqnamesrv" -p "$NS_PORT" -d "$WORK/namesrv"
wait_port "$NS_PORT"
NS="127.0.0.1:$NS_PORT"

start_broker() {  # NAME FLUSH: a fresh broker; sets BROKER_PORT
  BROKER_PORT="$(free_port)"
  cat > "$WORK/$1.conf" <<CONF
brokerClusterName=BenchCluster
brokerName=broker-$1
brokerId=0
brokerIP1=127.0.0.1
listenPort=$BROKER_PORT
namesrvAddr=$NS
storePathRootDir=$WORK/$1-store
flushDiskType=$2
mappedFileSizeCommitLog=1073741824
CONF
  echo "# $WORK/$1.conf: $(grep -v '^brokerIP1\|^brokerId' "$WORK/$1.conf" | tr '\n' ' ')" | sed "s|$WORK|\$WORK|g" >> "$COMMANDS"
  start_bg "$1" "$BIN/mqbroker" -c "$WORK/$1.conf"
  wait_port "$BROKER_PORT"
}

ferry_cell() {  # FLUSH SHAPE MESSAGES MQBENCH_SHAPE_FLAGS...
  local flush="$1" shape="$2" n="$3"; shift 3
  local topic="Cmp${flush%%_*}${shape//\//_}" out="$WORK/ferry-$flush-${shape//\//_}"
  local warm=800  # 100 a queue: each queue's files exist before the clock starts
  run "$out.warm" "$BIN/mqbench" produce -n "$NS" -t "$topic" --create-topic -q 8 --messages "$warm" -m async -w 64 || true
  log "Ferry $flush $shape: $n messages"
  run "$out.produce" "$BIN/mqbench" produce -n "$NS" -t "$topic" --messages "$n" -s "$SIZE" --json "$@" || true
  run "$out.consume" "$BIN/mqbench" consume -n "$NS" -t "$topic" -g "cmp-${topic}" -f first --messages $((n + warm)) -d 120 --json || true
  local note=""
  [ "$(json "$out.produce" 'j["errors"]')" = "0" ] || note="produce errors: $(json "$out.produce" 'j["errors"]')"
  row Ferry "$flush" "$shape" "$(json "$out.produce" 'round(j["msgs_per_s"])')" "$(json "$out.produce" '"%.1f" % j["mb_per_s"]')" \
    "$(json "$out.produce" '"%.3f" % j["latency_ms"]["p50"]')" "$(json "$out.produce" '"%.3f" % j["latency_ms"]["p99"]')" \
    "$(json "$out.consume" 'round(j["busy_msgs_per_s"])')" "$note"
}

for flush in ASYNC_FLUSH SYNC_FLUSH; do
  start_broker "ferry-$flush" "$flush"
  na=$N_A; [ "$flush" = SYNC_FLUSH ] && na=$N_A_SYNC
  ferry_cell "$flush" a "$na" -m sync -w 1
  ferry_cell "$flush" b/50 "$N_B" -m sync -w 1 --connections 50
  ferry_cell "$flush" b/256 "$N_B" -m async -w 256
  peak="$(awk -F'\t' -v f="$flush" '$1 == "Ferry" && $2 == f && $3 == "b/256" { print $4 }' "$RESULTS")"
  if [[ "$peak" =~ ^[0-9]+$ ]] && [ "$peak" -ge 2 ]; then
    rate=$((peak / 2))
    log "Ferry $flush e2e at $rate msg/s"
    out="$WORK/ferry-$flush-e2e"
    # A first, unreported run creates the topic, its queues and the group and warms the broker's
    # files, so the reported run measures the steady state rather than the first second's setup.
    run "$out.warm" "$BIN/mqbench" e2e -n "$NS" -t "CmpE2e${flush%%_*}" --create-topic -q 8 -m async -w 256 -s "$SIZE" \
      --rate "$rate" -d 2 --json || true
    run "$out" "$BIN/mqbench" e2e -n "$NS" -t "CmpE2e${flush%%_*}" --create-topic -q 8 -m async -w 256 -s "$SIZE" \
      --rate "$rate" -d 5 --json || true
    echo "Ferry $flush, mqbench e2e at $rate msg/s (half the b/256 peak) for 5 s: e2e ms p50 $(json "$out" '"%.2f" % j["consume"]["e2e_ms"]["p50"]') p99 $(json "$out" '"%.2f" % j["consume"]["e2e_ms"]["p99"]') p999 $(json "$out" '"%.2f" % j["consume"]["e2e_ms"]["p999"]') max $(json "$out" '"%.2f" % j["consume"]["e2e_ms"]["max"]'); send ms p50 $(json "$out" '"%.2f" % j["produce"]["latency_ms"]["p50"]') p99 $(json "$out" '"%.2f" % j["produce"]["latency_ms"]["p99"]'); $(json "$out" 'j["consume"]["received"]') of $(json "$out" 'j["produce"]["sent_ok"]') received" >> "$EXTRA"
  fi
  stop_bg "ferry-$flush"
done

# --- 5. an idle broker with 100 topics x 8 queues -------------------------------------------------
log "idle broker: 100 topics x 8 queues, ${IDLE_SECONDS} s"
start_broker ferry-idle ASYNC_FLUSH
echo "# for i in 1..100: build/bin/mqadmin updateTopic -n $NS -b 127.0.0.1:$BROKER_PORT -t Idle\$i -r 8 -w 8" >> "$COMMANDS"
for i in $(seq 1 100); do
  "$BIN/mqadmin" updateTopic -n "$NS" -b "127.0.0.1:$BROKER_PORT" -t "Idle$i" -r 8 -w 8 > /dev/null 2>&1 ||
    "$BIN/mqadmin" updateTopic -n "$NS" -c BenchCluster -t "Idle$i" -r 8 -w 8 > /dev/null 2>&1 || true
done
sleep 2
IDLE_PID="$(cat "$WORK/ferry-idle.pid")"
ticks() { awk '{ print $14 + $15 }' "/proc/$IDLE_PID/stat"; }
t0="$(ticks)"; s0="$(date +%s.%N)"
sleep "$IDLE_SECONDS"
t1="$(ticks)"; s1="$(date +%s.%N)"
rss_kib="$(awk '/^VmRSS:/ { print $2 }' "/proc/$IDLE_PID/status")"
anon_kib="$(awk '/^RssAnon:/ { print $2 }' "/proc/$IDLE_PID/status")"
topics="$("$BIN/mqadmin" topicList -n "$NS" 2>/dev/null | grep -c '^Idle' || true)"
awk -v a="$t0" -v b="$t1" -v s="$s0" -v e="$s1" -v hz="$(getconf CLK_TCK)" -v rss="$rss_kib" -v anon="$anon_kib" -v topics="$topics" 'BEGIN {
  printf "Idle broker (ASYNC_FLUSH, %d topics Idle* of 8 queues, no clients) over %.0f s: CPU %.2f %% of one core; RSS %.1f MiB, of which %.1f MiB anonymous (the rest is page cache of the mapped files: the CommitLog is warmed 32 MiB ahead of its writes)\n",
    topics, e - s, (b - a) / hz / (e - s) * 100, rss / 1024, anon / 1024 }' >> "$EXTRA"
stop_bg ferry-idle

# --- 3b. Redis Streams ----------------------------------------------------------------------------
BODY="$(head -c "$SIZE" /dev/zero | tr '\0' 'x')"
for fsync in everysec always; do
  port="$(free_port)"
  mkdir -p "$WORK/redis-$fsync"
  start_bg "redis-$fsync" redis-server --port "$port" --bind 127.0.0.1 --dir "$WORK/redis-$fsync" --appendonly yes \
    --appendfsync "$fsync" --save '' --daemonize no
  wait_port "$port"
  for shape in a b/50; do
    conns=1; n=$N_A; [ "$shape" = b/50 ] && { conns=50; n=$N_B; }
    [ "$fsync" = always ] && [ "$shape" = a ] && n=$N_A_SYNC
    key="s-${shape//\//_}"; out="$WORK/redis-$fsync-${shape//\//_}"
    log "Redis $fsync $shape: $n messages"
    # redis-benchmark's CSV line: "XADD ...","rps","avg","min","p50","p95","p99","max" (ms)
    run "$out.produce" redis-benchmark -h 127.0.0.1 -p "$port" -c "$conns" -n "$n" --csv XADD "$key" '*' f "$BODY" || true
    run "$out.consume" "$WORK/redis_consume" -h 127.0.0.1 -p "$port" --key "$key" --messages "$n" || true
    csv="$(tail -1 "$out.produce" | awk -F'","' '{ n = NF; gsub(/"/, "", $n); print $(n-6) "\t" $(n-3) "\t" $(n-1) }')"
    rps="$(cut -f1 <<< "$csv")"; p50="$(cut -f2 <<< "$csv")"; p99="$(cut -f3 <<< "$csv")"
    mbs="$(awk -v r="$rps" -v s="$SIZE" 'BEGIN { if (r + 0 > 0) printf "%.1f", r * s / 1e6; else print "-" }')"
    row Redis "AOF $fsync" "$shape" "$(printf '%.0f' "${rps:-0}" 2>/dev/null || echo -)" "$mbs" "${p50:--}" "${p99:--}" \
      "$(kv "$out.consume" msgs_per_s | cut -d. -f1)" ""
  done
  stop_bg "redis-$fsync"
done

# --- 3c. NATS JetStream -----------------------------------------------------------------------------
port="$(free_port)"
start_bg nats nats-server -js -sd "$WORK/nats" -a 127.0.0.1 -p "$port"
wait_port "$port"
for shape in a b/256; do
  mode=sync; n=$N_A; [ "$shape" = b/256 ] && { mode=async; n=$N_B; }
  out="$WORK/nats-${shape//\//_}"
  log "NATS $shape: $n messages"
  run "$out" "$WORK/nats_bench" -s "nats://127.0.0.1:$port" --mode "$mode" --window 256 --messages "$n" --size "$SIZE" \
    --stream "CMP${shape//\//_}" --consume || true
  note=""; [ "$(kv "$out" errors)" = "0" ] || note="errors: $(kv "$out" errors)"
  row NATS "JetStream file" "$shape" "$(kv "$out" msgs_per_s | cut -d. -f1)" "$(kv "$out" mb_per_s | awk '{ printf "%.1f", $1 }')" \
    "$(kv "$out" p50_ms)" "$(kv "$out" p99_ms)" "$(sed -n 's/^consume .*msgs_per_s=\([0-9]*\).*/\1/p' "$out")" "$note"
done
stop_bg nats

# --- the table ------------------------------------------------------------------------------------------
TABLE="$WORK/table.md"
python3 - "$RESULTS" "${RAW_MBS:-}" > "$TABLE" <<'PY'
import sys
rows = [l.rstrip("\n").split("\t") for l in open(sys.argv[1]) if l.strip()]
raw = float(sys.argv[2]) if sys.argv[2] else 0.0
def num(x):
    try: return float(x)
    except ValueError: return None
# The Ferry row each peer row is compared with: the same durability class and the same shape.
peer_of = {"AOF everysec": "ASYNC_FLUSH", "JetStream file": "ASYNC_FLUSH", "AOF always": "SYNC_FLUSH"}
ferry = {(r[1], r[2]): r for r in rows if r[0] == "Ferry"}
print("| system | mode | shape | produce msg/s | MB/s | p50 ms | p99 ms | consume msg/s | Ferry ÷ this (produce / consume) |")
print("|---|---|---|---:|---:|---:|---:|---:|---|")
for r in rows:
    system, mode, shape, pm, mbs, p50, p99, cm, note = (r + [""] * 9)[:9]
    ratio = ""
    if system == "Ferry" and mode == "SYNC_FLUSH" and raw > 0 and num(mbs):
        ratio = "%.0f %% of the disk's synced write bandwidth" % (100 * num(mbs) / raw)
    elif system != "Ferry":
        f = ferry.get((peer_of.get(mode, ""), shape))
        if f:
            a = num(f[3]) / num(pm) if num(f[3]) and num(pm) else None
            b = num(f[7]) / num(cm) if num(f[7]) and num(cm) else None
            ratio = "%s / %s (vs %s)" % ("%.2f" % a if a else "-", "%.2f" % b if b else "-", f[1])
    cells = [system, mode, shape, pm, mbs, p50, p99, cm, ratio + ("; " + note if note else "")]
    print("| " + " | ".join(c if c else "-" for c in cells[:8]) + " | " + cells[8] + " |")
PY

MACHINE="$WORK/machine.txt"
{
  echo "- CPU: $(sed -n 's/^model name\s*: //p' /proc/cpuinfo | head -1), $(nproc) cores online"
  echo "- kernel: $(uname -sr); load average at the end: $(cut -d' ' -f1-3 /proc/loadavg)"
  echo "- disk: $(df -T "$WORK" | awk 'NR == 2 { print $2 " on " $1 }') (the work folder $(dirname "$WORK")), mount options $(findmnt -no OPTIONS -T "$WORK" 2>/dev/null | cut -c1-80)"
  echo "- Ferry: $(git -C "$ROOT" rev-parse --short HEAD 2>/dev/null || echo '?') (Release build), 1 GiB CommitLog files, 8 queues a topic"
  echo "- Redis: $(redis-server --version | sed 's/ sha=.*//'), redis-benchmark from redis-tools $(dpkg-query -W -f='${Version}' redis-tools 2>/dev/null)"
  echo "- NATS: nats-server $(nats-server --version | sed 's/^nats-server: //'), libnats $(dpkg-query -W -f='${Version}' libnats-dev 2>/dev/null); hiredis $(dpkg-query -W -f='${Version}' libhiredis-dev 2>/dev/null)"
} > "$MACHINE"

echo
echo "compare.sh, $STARTED_AT: 1 KiB bodies; a = 1 connection one at a time, b/50 = 50 connections one at a time each, b/256 = 1 connection 256 in flight"
echo
cat "$TABLE"
echo
cat "$EXTRA"
echo
cat "$MACHINE"

if [ "$WRITE" = 1 ]; then
  DOC="$ROOT/docs/benchmarks.md"
  SECTION="$WORK/section.md"
  {
    echo "<!-- compare.sh:begin (tools/bench/compare.sh replaces everything down to compare.sh:end) -->"
    echo "### Measured $STARTED_AT by tools/bench/compare.sh --messages $MESSAGES --idle-seconds $IDLE_SECONDS"
    echo
    echo "Load average when it ended: $(cut -d' ' -f1-3 /proc/loadavg) (figures from a machine that other work loads are noisy)."
    echo
    cat "$TABLE"
    echo
    sed 's/^/- /' "$EXTRA"
    echo
    echo "The machine:"
    echo
    cat "$MACHINE"
    echo
    echo "The commands (\$WORK is the run's temporary folder; the body is 1,024 'x'):"
    echo
    echo '```'
    sed "s|$BODY|'<1 KiB>'|" "$COMMANDS"
    echo '```'
    echo "<!-- compare.sh:end -->"
  } > "$SECTION"
  python3 - "$DOC" "$SECTION" <<'PY'
import re, sys
doc, section = sys.argv[1], open(sys.argv[2]).read()
text = open(doc).read()
pattern = re.compile(r"<!-- compare\.sh:begin.*?<!-- compare\.sh:end -->\n?", re.S)
if pattern.search(text):
    text = pattern.sub(lambda m: section, text, count=1)
else:
    text = text.rstrip("\n") + "\n\n" + section
open(doc, "w").write(text)
PY
  log "wrote the table into $DOC"
fi
