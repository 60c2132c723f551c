#!/usr/bin/env bash
# Ferry's first command: installs what is missing, builds the daemons, mqadmin, mqbench and mqdashboard into build/,
# starts a NameServer and a Broker on 127.0.0.1 in the background, creates QuickstartTopic, sends
# a few messages and reads them back. The cluster keeps running.
#
#   tools/quickstart.sh [start]   start (or report the running cluster) and run the demo; when
#                                 one daemon died, start it again on its ports and store
#   tools/quickstart.sh --proxy   the same, and mqproxy beside them: RocketMQ 5's gRPC clients
#                                 connect to it (docs/proxy.md)
#   tools/quickstart.sh status    is it running? pids, addresses
#   tools/quickstart.sh stop      SIGTERM the daemons by their recorded pids and wait (idempotent)
#
# Environment (or flags --namesrv-port N, --broker-port N, --proxy-port N before the command word):
#   FERRY_NAMESRV_PORT, FERRY_BROKER_PORT   ports (default: free ports)
#   FERRY_QUICKSTART_PROXY=1                start mqproxy too (as --proxy)
#   FERRY_PROXY_PORT                        its gRPC port (default: a free port)
#   FERRY_QUICKSTART_PROXY_EXTRA            a file whose lines are appended to its proxy.conf
#   FERRY_QUICKSTART_DATA                   data, logs and pid files (default: <repo>/data)
#   FERRY_QUICKSTART_BIN                    use the binaries in this directory; skip bootstrap and build
#   FERRY_QUICKSTART_BROKER_EXTRA           a file whose lines are appended to the broker.conf this
#                                           writes (e.g. aclEnable=true; tests/interop uses it)
#   FERRY_ACCESS_KEY, FERRY_SECRET_KEY      the demo's mqadmin calls sign with them (an ACL broker)
# Processes are only ever signalled by the pids recorded in the data directory.
set -euo pipefail

ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
DATA="${FERRY_QUICKSTART_DATA:-$ROOT/data}"
BIN="${FERRY_QUICKSTART_BIN:-$ROOT/build/bin}"
NS_PORT="${FERRY_NAMESRV_PORT:-}"
BROKER_PORT="${FERRY_BROKER_PORT:-}"
PROXY="${FERRY_QUICKSTART_PROXY:-0}"
PROXY_PORT="${FERRY_PROXY_PORT:-}"
READY_SECONDS=30
STOP_SECONDS=30
TOPIC=QuickstartTopic

die() { echo "quickstart: $*" >&2; exit 1; }

usage() {
  sed -n '2,24p' "${BASH_SOURCE[0]}" | sed 's/^# \{0,1\}//'
}

cmd=start
while [ $# -gt 0 ]; do
  case "$1" in
    --namesrv-port) NS_PORT="${2:?--namesrv-port needs a value}"; shift 2 ;;
    --broker-port) BROKER_PORT="${2:?--broker-port needs a value}"; shift 2 ;;
    --proxy-port) PROXY_PORT="${2:?--proxy-port needs a value}"; PROXY=1; shift 2 ;;
    --proxy) PROXY=1; shift ;;
    start|stop|status) cmd="$1"; shift ;;
    -h|--help|help) usage; exit 0 ;;
    *) echo "quickstart: unknown argument '$1'" >&2; usage >&2; exit 2 ;;
  esac
done

port_open() { (exec 3<>"/dev/tcp/127.0.0.1/$1") 2>/dev/null; }

# A port nobody accepts on (nor on port + 1, the broker's HA port), from 20000 up to the kernel's
# ephemeral range (32768 on Linux by default): a port in that range may be the local end of
# someone's outgoing connection, which a probe does not see and which makes the daemon's bind
# fail with "address in use" (seen when tests run in parallel).
free_port() {
  local p _ lo=60000 span
  [ -r /proc/sys/net/ipv4/ip_local_port_range ] && read -r lo _ < /proc/sys/net/ipv4/ip_local_port_range
  span=$(( lo - 1 - 20000 ))
  [ "$span" -ge 1000 ] || span=40000  # an odd ephemeral range: fall back to 20000..59999
  for _ in $(seq 1 200); do
    p=$(( 20000 + (RANDOM * 32768 + RANDOM) % span ))
    if ! port_open "$p" && ! port_open $((p + 1)); then echo "$p"; return 0; fi
  done
  die "found no free port"
}

# The pid recorded in $DATA/$1.pid if that process is alive and is the expected program.
live_pid() {
  local f="$DATA/$1.pid" pid
  [ -f "$f" ] || return 1
  pid="$(cat "$f")"
  [[ "$pid" =~ ^[0-9]+$ ]] || return 1
  kill -0 "$pid" 2>/dev/null || return 1
  # (a pipe into grep -q can fail under pipefail when grep exits first: compare strings instead)
  if [ -r "/proc/$pid/cmdline" ] && [[ "$(tr '\0' ' ' < "/proc/$pid/cmdline" 2>/dev/null)" != *"mq$1"* ]]; then
    return 1  # the pid was reused by another program
  fi
  echo "$pid"
}

load_ports() {
  # shellcheck disable=SC1091
  [ -f "$DATA/ports.env" ] && . "$DATA/ports.env"
  return 0
}

stop_one() {
  local name="$1" pid _
  if pid="$(live_pid "$name")"; then
    echo "stopping $name (pid $pid)"
    kill -TERM "$pid" 2>/dev/null || true
    for _ in $(seq 1 $((STOP_SECONDS * 10))); do
      kill -0 "$pid" 2>/dev/null || break
      sleep 0.1
    done
    if kill -0 "$pid" 2>/dev/null; then
      echo "quickstart: $name (pid $pid) did not stop within ${STOP_SECONDS}s; it is still running" >&2
      return 1
    fi
  else
    echo "$name is not running"
  fi
  rm -f "$DATA/$name.pid"
}

do_stop() {
  local rc=0
  # The proxy only when one was started here (its pid file): no "not running" line otherwise.
  if [ -f "$DATA/proxy.pid" ]; then stop_one proxy || rc=1; fi
  stop_one broker || rc=1
  stop_one namesrv || rc=1
  return $rc
}

do_status() {
  load_ports
  local rc=0 pid
  if pid="$(live_pid namesrv)"; then
    echo "NameServer  running  pid $pid  127.0.0.1:${QS_NAMESRV_PORT:-?}"
  else
    echo "NameServer  not running"; rc=1
  fi
  if pid="$(live_pid broker)"; then
    echo "Broker      running  pid $pid  127.0.0.1:${QS_BROKER_PORT:-?}"
  else
    echo "Broker      not running"; rc=1
  fi
  if [ -f "$DATA/proxy.pid" ]; then
    if pid="$(live_pid proxy)"; then
      echo "Proxy       running  pid $pid  127.0.0.1:${QS_PROXY_PORT:-?} (gRPC)"
    else
      echo "Proxy       not running"; rc=1
    fi
  fi
  echo "data: $DATA"
  return $rc
}

build() {
  if [ -n "${FERRY_QUICKSTART_BIN:-}" ]; then
    for b in mqnamesrv mqbroker mqadmin; do [ -x "$BIN/$b" ] || die "$BIN/$b is missing (FERRY_QUICKSTART_BIN)"; done
    [ "$PROXY" != 1 ] || [ -x "$BIN/mqproxy" ] || die "$BIN/mqproxy is missing (FERRY_QUICKSTART_BIN)"
    return 0
  fi
  local targets=(mqnamesrv mqbroker mqadmin mqbench mqdashboard)
  [ "$PROXY" = 1 ] && targets+=(mqproxy)
  echo "== bootstrap and build (build/: ${targets[*]})"
  "$ROOT/tools/bootstrap.sh"
  if [ ! -f "$ROOT/build/build.ninja" ]; then
    cmake -S "$ROOT" -B "$ROOT/build" -G Ninja >/dev/null
  fi
  ninja -C "$ROOT/build" "${targets[@]}" | grep -v '^ninja: no work to do' || true
  for b in "${targets[@]}"; do [ -x "$BIN/$b" ] || die "the build did not produce $BIN/$b"; done
}

# wait_ready NAME PORT: until the daemon accepts connections, or it died, or READY_SECONDS passed.
wait_ready() {
  local name="$1" port="$2" _
  for _ in $(seq 1 $((READY_SECONDS * 10))); do
    port_open "$port" && return 0
    if ! live_pid "$name" >/dev/null; then
      echo "quickstart: $name exited during start-up; its output ($DATA/$name.out):" >&2
      tail -n 20 "$DATA/$name.out" >&2 || true
      return 1
    fi
    sleep 0.1
  done
  echo "quickstart: $name does not accept connections on 127.0.0.1:$port after ${READY_SECONDS}s; see $DATA/$name.out" >&2
  return 1
}

start_namesrv() {
  echo "== starting the NameServer on 127.0.0.1:$NS_PORT"
  # Loopback only: a quickstart cluster is for this machine (docs/operations.md, "Security").
  printf '# written by tools/quickstart.sh\nlistenAddress=127.0.0.1\n' > "$DATA/namesrv.conf"
  nohup "$BIN/mqnamesrv" -c "$DATA/namesrv.conf" -p "$NS_PORT" -d "$DATA/namesrv" > "$DATA/namesrv.out" 2>&1 < /dev/null &
  echo $! > "$DATA/namesrv.pid"
  wait_ready namesrv "$NS_PORT"
}

start_broker() {
  echo "== starting the Broker on 127.0.0.1:$BROKER_PORT"
  nohup "$BIN/mqbroker" -c "$DATA/broker.conf" > "$DATA/broker.out" 2>&1 < /dev/null &
  echo $! > "$DATA/broker.pid"
  wait_ready broker "$BROKER_PORT"
}

start_proxy() {
  echo "== starting the Proxy (gRPC) on 127.0.0.1:$PROXY_PORT"
  {
    echo "# written by tools/quickstart.sh"
    echo "listenAddress=127.0.0.1"
    echo "namesrvAddr=127.0.0.1:$NS_PORT"
    echo "grpcServerPort=$PROXY_PORT"
    if [ -n "${FERRY_QUICKSTART_PROXY_EXTRA:-}" ]; then
      [ -r "$FERRY_QUICKSTART_PROXY_EXTRA" ] || die "FERRY_QUICKSTART_PROXY_EXTRA: cannot read $FERRY_QUICKSTART_PROXY_EXTRA"
      echo "# from $FERRY_QUICKSTART_PROXY_EXTRA (FERRY_QUICKSTART_PROXY_EXTRA)"
      cat "$FERRY_QUICKSTART_PROXY_EXTRA"
    fi
  } > "$DATA/proxy.conf"
  nohup "$BIN/mqproxy" -c "$DATA/proxy.conf" -d "$DATA/proxy" > "$DATA/proxy.out" 2>&1 < /dev/null &
  echo $! > "$DATA/proxy.pid"
  wait_ready proxy "$PROXY_PORT"
}

# The proxy, when asked for and not running: on its recorded port, else PROXY_PORT or a free one.
ensure_proxy() {
  [ "$PROXY" = 1 ] || return 0
  live_pid proxy >/dev/null && return 0
  load_ports
  [ -n "$PROXY_PORT" ] || PROXY_PORT="${QS_PROXY_PORT:-}"
  [ -n "$PROXY_PORT" ] || PROXY_PORT="$(free_port)"
  port_open "$PROXY_PORT" && die "port $PROXY_PORT (the Proxy's) is in use on 127.0.0.1"
  grep -v '^QS_PROXY_PORT=' "$DATA/ports.env" > "$DATA/ports.env.new" || true
  echo "QS_PROXY_PORT=$PROXY_PORT" >> "$DATA/ports.env.new"
  mv "$DATA/ports.env.new" "$DATA/ports.env"
  start_proxy
}

# Until the NameServer lists broker-a. A broker registers right after it listens, and again every
# 30 s, so a NameServer started again beside a running broker learns of it within 30 s.
wait_registered() {
  local ns_addr="$1" seconds="$2" _
  for _ in $(seq 1 $((seconds * 10))); do
    [[ "$("$BIN/mqadmin" clusterList -n "$ns_addr" 2>/dev/null || true)" == *broker-a* ]] && return 0
    sleep 0.1
  done
  echo "quickstart: the Broker did not register with the NameServer within ${seconds}s; see $DATA/broker.out" >&2
  return 1
}

write_broker_conf() {
  cat > "$DATA/broker.conf" <<EOF
# written by tools/quickstart.sh
brokerClusterName=DefaultCluster
brokerName=broker-a
brokerId=0
brokerIP1=127.0.0.1
listenAddress=127.0.0.1
listenPort=$BROKER_PORT
namesrvAddr=127.0.0.1:$NS_PORT
storePathRootDir=$DATA/store
mappedFileSizeCommitLog=67108864
EOF
  if [ -n "${FERRY_QUICKSTART_BROKER_EXTRA:-}" ]; then
    [ -r "$FERRY_QUICKSTART_BROKER_EXTRA" ] || die "FERRY_QUICKSTART_BROKER_EXTRA: cannot read $FERRY_QUICKSTART_BROKER_EXTRA"
    { echo "# from $FERRY_QUICKSTART_BROKER_EXTRA (FERRY_QUICKSTART_BROKER_EXTRA)"; cat "$FERRY_QUICKSTART_BROKER_EXTRA"; } >> "$DATA/broker.conf"
  fi
}

do_start() {
  local ns_alive=0 broker_alive=0
  live_pid namesrv >/dev/null && ns_alive=1
  live_pid broker >/dev/null && broker_alive=1
  if [ $ns_alive -eq 1 ] && [ $broker_alive -eq 1 ]; then
    if [ "$PROXY" = 1 ] && ! live_pid proxy >/dev/null; then
      build
      load_ports
      NS_PORT=$QS_NAMESRV_PORT
      ensure_proxy || exit 1
    fi
    echo "Ferry is already running:"
    do_status || true
    echo "stop it with: tools/quickstart.sh stop"
    return 0
  fi
  build
  mkdir -p "$DATA"
  if [ $ns_alive -eq 1 ] || [ $broker_alive -eq 1 ]; then
    # One daemon died (a crash, kill -9): start it again on the ports and store it had, so the
    # other one and every client keep their addresses. The Broker recovers its store on start.
    load_ports
    [ -n "${QS_NAMESRV_PORT:-}" ] && [ -n "${QS_BROKER_PORT:-}" ] && [ -f "$DATA/broker.conf" ] ||
      die "one daemon runs but $DATA/ports.env or $DATA/broker.conf is missing; run 'tools/quickstart.sh stop' first"
    NS_PORT=$QS_NAMESRV_PORT
    BROKER_PORT=$QS_BROKER_PORT
    if [ $ns_alive -eq 0 ]; then
      echo "The NameServer is not running (the Broker is): starting it again"
      port_open "$NS_PORT" && die "port $NS_PORT (the NameServer's) is in use on 127.0.0.1"
      start_namesrv || exit 1
    else
      echo "The Broker is not running (the NameServer is): starting it again"
      port_open "$BROKER_PORT" && die "port $BROKER_PORT (the Broker's) is in use on 127.0.0.1"
      start_broker || exit 1
    fi
    wait_registered "127.0.0.1:$NS_PORT" 40 || exit 1
  else
    [ -n "$NS_PORT" ] || NS_PORT="$(free_port)"
    [ -n "$BROKER_PORT" ] || BROKER_PORT="$(free_port)"
    [ "$NS_PORT" != "$BROKER_PORT" ] || die "the NameServer and the Broker need different ports"
    for p in "$NS_PORT" "$BROKER_PORT"; do port_open "$p" && die "port $p is in use on 127.0.0.1"; done
    printf 'QS_NAMESRV_PORT=%s\nQS_BROKER_PORT=%s\n' "$NS_PORT" "$BROKER_PORT" > "$DATA/ports.env"
    write_broker_conf
    start_namesrv || { do_stop >/dev/null; exit 1; }
    start_broker || { do_stop >/dev/null; exit 1; }
    wait_registered "127.0.0.1:$NS_PORT" 10 || { do_stop >/dev/null; exit 1; }
  fi
  ensure_proxy || { do_stop >/dev/null; exit 1; }
  run_demo
}

run_demo() {
  local ns_addr="127.0.0.1:$NS_PORT" broker_addr="127.0.0.1:$BROKER_PORT"
  local admin=("$BIN/mqadmin")
  echo
  echo "== mqadmin updateTopic -t $TOPIC -c DefaultCluster -n $ns_addr"
  "${admin[@]}" updateTopic -t "$TOPIC" -c DefaultCluster -r 4 -w 4 -n "$ns_addr"
  echo
  echo "== mqadmin sendMessage -t $TOPIC -p 'Hello Ferry #{i}' -c 3 -n $ns_addr"
  "${admin[@]}" sendMessage -t "$TOPIC" -p 'Hello Ferry #{i}' -g quickstart -k demo -c 3 -n "$ns_addr"
  echo
  echo "== mqadmin consumeMessage -t $TOPIC -c 3 -n $ns_addr"
  "${admin[@]}" consumeMessage -t "$TOPIC" -c 3 --timeout 10000 -n "$ns_addr"
  cat <<EOF

Ferry is running:
  NameServer  $ns_addr   (pid $(cat "$DATA/namesrv.pid"), log $DATA/namesrv/logs/namesrv.log)
  Broker      $broker_addr   (pid $(cat "$DATA/broker.pid"), store $DATA/store, log $DATA/store/logs/broker.log)
$(if [ "$PROXY" = 1 ]; then echo "  Proxy       127.0.0.1:$PROXY_PORT   (pid $(cat "$DATA/proxy.pid"), gRPC for RocketMQ 5 clients, log $DATA/proxy/logs/proxy.log)"; fi)

Try:
  export NAMESRV_ADDR=$ns_addr
  $BIN/mqadmin --help
  $BIN/mqadmin topicStatus -t $TOPIC
  $BIN/mqadmin brokerStatus
  $BIN/mqbench produce -t BenchmarkTest --create-topic --seconds 5
  $BIN/mqdashboard &             # a web dashboard: open http://127.0.0.1:8082/

  tools/quickstart.sh status    # is it running?
  tools/quickstart.sh stop      # stop them (SIGTERM, then wait)
EOF
}

case "$cmd" in
  start) do_start ;;
  stop) do_stop ;;
  status) do_status ;;
esac
