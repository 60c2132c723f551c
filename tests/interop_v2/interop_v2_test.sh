#!/usr/bin/env bash
# RocketMQ 5's official Node.js client against Ferry: rocketmq-client-nodejs 1.0.8 (gRPC) through
# this build's mqproxy, in front of its mqnamesrv and mqbroker (docs/proxy.md). Installs the client
# once into a cache outside the build tree (tests/support/npm_cache.sh), starts the three daemons
# on free ports in a temp folder (tools/quickstart.sh --proxy), then runs the cases of cases.js;
# any failure exits 1.
#
#   interop_v2_test.sh REPO_ROOT BIN_DIR
#
# Exits 77 (ctest SKIP_RETURN_CODE) only when the client is not cached and the npm registry cannot
# be reached. Environment:
#   FERRY_INTEROP_V2_CACHE  where the client is installed (default
#                           ${XDG_CACHE_HOME:-$HOME/.cache}/ferry/interop/rocketmq-client-nodejs-1.0.8)
#   FERRY_KEEP_TEST_DIRS=1  keep the temp folder (data, daemon and client logs) and print it
set -uo pipefail

ROOT="$1"
BIN="$2"
HERE="$ROOT/tests/interop_v2"
CACHE="${FERRY_INTEROP_V2_CACHE:-${XDG_CACHE_HOME:-${HOME:?neither FERRY_INTEROP_V2_CACHE, XDG_CACHE_HOME nor HOME is set}/.cache}/ferry/interop/rocketmq-client-nodejs-1.0.8}"
QS="$ROOT/tools/quickstart.sh"

TMP="$(mktemp -d "${TMPDIR:-/tmp}/ferry-interop-v2-XXXXXX")"
export FERRY_QUICKSTART_DATA="$TMP/data" FERRY_QUICKSTART_BIN="$BIN"

cleanup() {
  [ -n "${CLIENT_PID:-}" ] && kill "$CLIENT_PID" 2>/dev/null
  [ -n "${ACL_PROXY_PID:-}" ] && kill "$ACL_PROXY_PID" 2>/dev/null
  [ -n "${TLS_PROXY_PID:-}" ] && kill "$TLS_PROXY_PID" 2>/dev/null
  "$QS" stop >/dev/null 2>&1 || true
  if [ "${FERRY_KEEP_TEST_DIRS:-0}" = "1" ]; then echo "kept $TMP"; else rm -rf "$TMP"; fi
}
trap cleanup EXIT

fail() {
  echo "FAIL: $*" >&2
  for f in "$FERRY_QUICKSTART_DATA/proxy.out" "$FERRY_QUICKSTART_DATA/broker.out"; do
    [ -f "$f" ] && { echo "--- last lines of $f" >&2; tail -n 25 "$f" >&2; }
  done
  exit 1
}

step() { printf '\n== %s\n' "$*"; }

# shellcheck source=../support/npm_cache.sh
. "$ROOT/tests/support/npm_cache.sh"
npm_cached_install rocketmq-client-nodejs 1.0.8 "$HERE" "$CACHE" "$TMP"

# --- the cluster and the proxy ----------------------------------------------------------------
step "starting mqnamesrv, mqbroker and mqproxy (tools/quickstart.sh --proxy, data in $TMP/data)"
# Invisible durations from 1 s, so that a message left unacknowledged comes back within the test.
printf 'minInvisibleTimeMillsForRecv=1000\n' >"$TMP/proxy-extra.conf"
# The broker looks for half messages older than transactionTimeOut (6 s) every 2 s, so that a
# transaction left unknown is checked within the test.
printf 'transactionCheckInterval=2000\n' >"$TMP/broker-extra.conf"
FERRY_QUICKSTART_BROKER_EXTRA="$TMP/broker-extra.conf" FERRY_QUICKSTART_PROXY_EXTRA="$TMP/proxy-extra.conf" timeout 60 "$QS" --proxy >"$TMP/quickstart.out" 2>&1 ||
  { cat "$TMP/quickstart.out"; fail "quickstart.sh --proxy could not start the cluster"; }
# shellcheck disable=SC1091
. "$FERRY_QUICKSTART_DATA/ports.env"
NAMESRV="127.0.0.1:$QS_NAMESRV_PORT"
ENDPOINTS="127.0.0.1:$QS_PROXY_PORT"
echo "NameServer $NAMESRV, broker 127.0.0.1:$QS_BROKER_PORT, proxy $ENDPOINTS"
for topic in V2Normal V2Fifo V2Delay V2Tx V2Invisible V2Push V2Big V2Restart; do
  out="$(timeout 60 "$BIN/mqadmin" updateTopic -t "$topic" -c DefaultCluster -r 4 -w 4 -n "$NAMESRV" 2>&1)" ||
    fail "updateTopic $topic: $out"
done

# RocketMQ 5's FIFO consumption: the group's consumeMessageOrderly.
out="$(timeout 60 "$BIN/mqadmin" updateSubGroup -g GID_V2_FIFO -c DefaultCluster -o true -n "$NAMESRV" 2>&1)" ||
  fail "updateSubGroup -o true: $out"
[ "$(awk '$3 == "GID_V2_FIFO" { print $NF }' <<<"$out")" = true ] || fail "updateSubGroup does not show GID_V2_FIFO orderly: $out"

# The client logs under $HOME/logs/rocketmq: keep that in the temp folder.
client() { HOME="$TMP" timeout 150 node "$HERE/cases.js" "$@" --endpoints "$ENDPOINTS"; }
run_case() {
  step "$1"
  client "$2" || fail "case $2 ($1)"
}

run_case "1. Producer: normal messages; SimpleConsumer: receive and ack, a tag filter" normal
run_case "2. Producer: FIFO message groups; an orderly group acknowledges each in order, one first delivery left" fifo
run_case "3. Producer: delayed messages (deliveryTimestamp), none received early" delay
run_case "4. Producer: transactions committed, rolled back, and one left unknown resolved by the checker" transaction
run_case "5. SimpleConsumer: a message not acknowledged comes back; changeInvisibleDuration" invisible
run_case "6. PushConsumer: QueryAssignment and receives per assignment" push
run_case "7. a body just under 4 MiB arrives intact, one over is refused" big

# 8 -------------------------------------------------------------------------------------------
step "8. the proxy restarted (SIGTERM, started again on its port) under a running producer and consumer"
GO="$TMP/restarted"
client restart --go "$GO" >"$TMP/restart.out" 2>&1 &
CLIENT_PID=$!
for _ in $(seq 1 600); do
  grep -q '^READY' "$TMP/restart.out" && break
  kill -0 "$CLIENT_PID" 2>/dev/null || { cat "$TMP/restart.out"; fail "the restart case ended before it was ready"; }
  sleep 0.1
done
grep -q '^READY' "$TMP/restart.out" || { cat "$TMP/restart.out"; fail "the restart case was not ready within 60 s"; }
proxy_pid="$(cat "$FERRY_QUICKSTART_DATA/proxy.pid")"
kill -TERM "$proxy_pid" || fail "cannot signal the proxy (pid $proxy_pid)"
for _ in $(seq 1 100); do kill -0 "$proxy_pid" 2>/dev/null || break; sleep 0.1; done
kill -0 "$proxy_pid" 2>/dev/null && fail "the proxy did not stop within 10 s of SIGTERM"
FERRY_QUICKSTART_PROXY_EXTRA="$TMP/proxy-extra.conf" timeout 60 "$QS" --proxy >"$TMP/quickstart-again.out" 2>&1 ||
  { cat "$TMP/quickstart-again.out"; fail "quickstart.sh --proxy could not start the proxy again"; }
. "$FERRY_QUICKSTART_DATA/ports.env"
[ "127.0.0.1:$QS_PROXY_PORT" = "$ENDPOINTS" ] || fail "the proxy came back on 127.0.0.1:$QS_PROXY_PORT, not $ENDPOINTS"
touch "$GO"
wait "$CLIENT_PID"
rc=$?
CLIENT_PID=
cat "$TMP/restart.out"
[ $rc -eq 0 ] || fail "case restart"

# 9 -------------------------------------------------------------------------------------------
# A second proxy with aclEnable=true in front of the same cluster: it checks RocketMQ 5's
# signature and the accounts' permissions of a plain_acl.yml (the brokers' format).
step "9. a proxy with ACL on: the right keys pass; a wrong secret, no keys and a denied topic are refused"
cat >"$TMP/plain_acl.yml" <<EOF
accounts:
  - accessKey: v2Producer
    secretKey: v2-producer-secret
    topicPerms:
      - V2Acl=PUB
  - accessKey: v2Consumer
    secretKey: v2-consumer-secret
    topicPerms:
      - V2Acl=SUB
    groupPerms:
      - GID_V2_ACL=SUB
EOF
chmod 600 "$TMP/plain_acl.yml"
out="$(timeout 60 "$BIN/mqadmin" updateTopic -t V2Acl -c DefaultCluster -r 4 -w 4 -n "$NAMESRV" 2>&1)" || fail "updateTopic V2Acl: $out"
acl_port="$(node -e 'const s = require("net").createServer().listen(0, "127.0.0.1", () => { console.log(s.address().port); s.close(); })')"
printf 'listenAddress=127.0.0.1\nnamesrvAddr=%s\ngrpcServerPort=%s\naclEnable=true\naclFilePath=plain_acl.yml\n' \
  "$NAMESRV" "$acl_port" >"$TMP/proxy-acl.conf"
"$BIN/mqproxy" -c "$TMP/proxy-acl.conf" -d "$TMP/proxy-acl" >"$TMP/proxy-acl.out" 2>&1 &
ACL_PROXY_PID=$!
for _ in $(seq 1 100); do (exec 3<>"/dev/tcp/127.0.0.1/$acl_port") 2>/dev/null && break; sleep 0.1; done
grep -q "ACL on" "$TMP/proxy-acl.out" || { cat "$TMP/proxy-acl.out"; fail "the ACL proxy did not start with ACL on"; }
ENDPOINTS="127.0.0.1:$acl_port" FERRY_V2_PRODUCER_KEYS=v2Producer:v2-producer-secret \
  FERRY_V2_CONSUMER_KEYS=v2Consumer:v2-consumer-secret client acl || fail "case acl"
kill -TERM "$ACL_PROXY_PID"
wait "$ACL_PROXY_PID" || fail "the ACL proxy did not exit 0 after SIGTERM: $(tail -n 5 "$TMP/proxy-acl.out")"
ACL_PROXY_PID=

# 10 ------------------------------------------------------------------------------------------
step "10. a proxy with tls.server.mode=enforcing: TLS clients pass, a plaintext one cannot start"
command -v openssl >/dev/null || fail "openssl is not installed (tools/bootstrap.sh installs it)"
openssl req -x509 -newkey rsa:2048 -nodes -keyout "$TMP/tls.key" -out "$TMP/tls.pem" -days 2 -subj /CN=127.0.0.1 \
  -addext subjectAltName=IP:127.0.0.1 >"$TMP/openssl.log" 2>&1 || { cat "$TMP/openssl.log"; fail "openssl could not make the test certificate"; }
out="$(timeout 60 "$BIN/mqadmin" updateTopic -t V2Tls -c DefaultCluster -r 4 -w 4 -n "$NAMESRV" 2>&1)" || fail "updateTopic V2Tls: $out"
tls_port="$(node -e 'const s = require("net").createServer().listen(0, "127.0.0.1", () => { console.log(s.address().port); s.close(); })')"
printf 'listenAddress=127.0.0.1\nnamesrvAddr=%s\ngrpcServerPort=%s\ntls.server.mode=enforcing\ntls.server.certPath=%s\ntls.server.keyPath=%s\n' \
  "$NAMESRV" "$tls_port" "$TMP/tls.pem" "$TMP/tls.key" >"$TMP/proxy-tls.conf"
"$BIN/mqproxy" -c "$TMP/proxy-tls.conf" -d "$TMP/proxy-tls" >"$TMP/proxy-tls.out" 2>&1 &
TLS_PROXY_PID=$!
for _ in $(seq 1 100); do (exec 3<>"/dev/tcp/127.0.0.1/$tls_port") 2>/dev/null && break; sleep 0.1; done
grep -q "(TLS)" "$TMP/proxy-tls.out" || { cat "$TMP/proxy-tls.out"; fail "the TLS proxy did not start with TLS"; }
ENDPOINTS="127.0.0.1:$tls_port" GRPC_DEFAULT_SSL_ROOTS_FILE_PATH="$TMP/tls.pem" client tls || fail "case tls"
kill -TERM "$TLS_PROXY_PID"
wait "$TLS_PROXY_PID" || fail "the TLS proxy did not exit 0 after SIGTERM: $(tail -n 5 "$TMP/proxy-tls.out")"
TLS_PROXY_PID=

echo
echo "PASS: rocketmq-client-nodejs 1.0.8 through mqproxy"
