#!/usr/bin/env bash
# tools/quickstart.sh end to end: start (data in a temp dir, binaries of this build), the demo's
# received messages, status, a second start, each daemon killed and started again, stop, stop again. A trap stops the daemons by their recorded pids
# whatever happens, so a failure leaves no process behind.
#   quickstart_test.sh REPO_ROOT BIN_DIR
set -uo pipefail

ROOT="$1"
export FERRY_QUICKSTART_BIN="$2"
TMP="$(mktemp -d "${TMPDIR:-/tmp}/ferry-quickstart-XXXXXX")"
export FERRY_QUICKSTART_DATA="$TMP/data"
QS="$ROOT/tools/quickstart.sh"

cleanup() {
  "$QS" stop >/dev/null 2>&1 || true
  rm -rf "$TMP"
}
trap cleanup EXIT

fail() {
  echo "FAIL: $*" >&2
  for f in namesrv.out broker.out; do
    [ -f "$FERRY_QUICKSTART_DATA/$f" ] && { echo "--- $f" >&2; tail -n 20 "$FERRY_QUICKSTART_DATA/$f" >&2; }
  done
  exit 1
}

out="$(timeout 45 "$QS" 2>&1)"
rc=$?
[ $rc -eq 0 ] || { echo "$out"; fail "quickstart.sh exited with $rc"; }
echo "$out"
for i in 0 1 2; do
  grep -q "Hello Ferry #$i" <<<"$(sed -n '/consumeMessage/,$p' <<<"$out")" || fail "the demo did not receive 'Hello Ferry #$i'"
done
grep -q "Received 3 messages from topic QuickstartTopic" <<<"$out" || fail "no 'Received 3 messages' line"
grep -q "tools/quickstart.sh stop" <<<"$out" || fail "the output does not say how to stop"

ns_pid="$(cat "$FERRY_QUICKSTART_DATA/namesrv.pid")" || fail "no namesrv.pid"
broker_pid="$(cat "$FERRY_QUICKSTART_DATA/broker.pid")" || fail "no broker.pid"
status="$("$QS" status)" || fail "status exited non-zero while running: $status"
grep -q "Broker      running  pid $broker_pid" <<<"$status" || fail "status does not show the broker: $status"

# Running it again reports the running cluster and starts nothing.
again="$("$QS" 2>&1)" || fail "a second start failed: $again"
grep -q "already running" <<<"$again" || fail "a second start did not say 'already running': $again"

# A daemon that died (kill -9) is started again on its port and store; the other keeps running.
kill -9 "$broker_pid"
while kill -0 "$broker_pid" 2>/dev/null; do sleep 0.1; done
if "$QS" status >/dev/null; then fail "status exited 0 with the broker killed"; fi
restart="$(timeout 60 "$QS" 2>&1)" || { echo "$restart"; fail "start after the broker died exited non-zero"; }
grep -q "The Broker is not running (the NameServer is): starting it again" <<<"$restart" ||
  fail "start after the broker died did not say it starts the broker: $restart"
grep -q "Received 3 messages from topic QuickstartTopic" <<<"$restart" || fail "no demo after the broker restart: $restart"
new_broker_pid="$(cat "$FERRY_QUICKSTART_DATA/broker.pid")"
[ "$new_broker_pid" != "$broker_pid" ] || fail "the broker pid did not change"
[ "$(cat "$FERRY_QUICKSTART_DATA/namesrv.pid")" = "$ns_pid" ] || fail "the running NameServer was replaced"
status="$("$QS" status)" || fail "status exited non-zero after the restart: $status"
grep -q "Broker      running  pid $new_broker_pid  127.0.0.1:$(sed -n 's/^QS_BROKER_PORT=//p' "$FERRY_QUICKSTART_DATA/ports.env")" <<<"$status" ||
  fail "the restarted broker is not on its old port: $status"
broker_pid="$new_broker_pid"

# The same for the NameServer: the running broker registers with the new one (every 30 s).
kill -9 "$ns_pid"
while kill -0 "$ns_pid" 2>/dev/null; do sleep 0.1; done
restart="$(timeout 90 "$QS" 2>&1)" || { echo "$restart"; fail "start after the NameServer died exited non-zero"; }
grep -q "The NameServer is not running (the Broker is): starting it again" <<<"$restart" ||
  fail "start after the NameServer died did not say it starts the NameServer: $restart"
grep -q "Received 3 messages from topic QuickstartTopic" <<<"$restart" || fail "no demo after the NameServer restart: $restart"
ns_pid="$(cat "$FERRY_QUICKSTART_DATA/namesrv.pid")"
[ "$(cat "$FERRY_QUICKSTART_DATA/broker.pid")" = "$broker_pid" ] || fail "the running broker was replaced"

"$QS" stop || fail "stop exited non-zero"
for pid in "$ns_pid" "$broker_pid"; do
  kill -0 "$pid" 2>/dev/null && fail "pid $pid still runs after stop"
done
"$QS" stop >/dev/null || fail "a second stop exited non-zero"
if "$QS" status >/dev/null; then fail "status exited 0 after stop"; fi
grep -q "shut down" "$FERRY_QUICKSTART_DATA/broker.out" || fail "the broker did not shut down gracefully"
echo "PASS"
