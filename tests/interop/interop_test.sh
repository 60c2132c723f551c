#!/usr/bin/env bash
# A real third-party RocketMQ client against Ferry's daemons: the Node.js package ali-ons 3.12.0
# (docs/interop.md). Installs it once into a cache outside the build tree, starts mqnamesrv and
# mqbroker on free ports in a temp folder (tools/quickstart.sh does that part, as for
# quickstart_test.sh), then runs the cases below; any failure exits 1.
#
#   interop_test.sh REPO_ROOT BIN_DIR
#
# Exits 77 (ctest SKIP_RETURN_CODE) only when ali-ons is not cached and the npm registry cannot
# be reached. Environment:
#   FERRY_INTEROP_CACHE   where ali-ons is installed (default
#                         ${XDG_CACHE_HOME:-$HOME/.cache}/ferry/interop/ali-ons-3.12.0)
#   FERRY_KEEP_TEST_DIRS=1  keep the temp folder (data, daemon and client logs) and print it
#   FERRY_ACCESS_KEY, FERRY_SECRET_KEY   passed to the Node scripts: ali-ons signs its requests
set -uo pipefail

ROOT="$1"
BIN="$2"
HERE="$ROOT/tests/interop"
CACHE="${FERRY_INTEROP_CACHE:-${XDG_CACHE_HOME:-${HOME:?neither FERRY_INTEROP_CACHE, XDG_CACHE_HOME nor HOME is set}/.cache}/ferry/interop/ali-ons-3.12.0}"
QS="$ROOT/tools/quickstart.sh"

TMP="$(mktemp -d "${TMPDIR:-/tmp}/ferry-interop-XXXXXX")"
export FERRY_QUICKSTART_DATA="$TMP/data" FERRY_QUICKSTART_BIN="$BIN"
export FERRY_INTEROP_LOG="$TMP/ali-ons.log"

cleanup() {
  "$QS" stop >/dev/null 2>&1 || true
  if [ "${FERRY_KEEP_TEST_DIRS:-0}" = "1" ]; then echo "kept $TMP"; else rm -rf "$TMP"; fi
}
trap cleanup EXIT

fail() {
  echo "FAIL: $*" >&2
  for f in "$FERRY_QUICKSTART_DATA/broker.out" "$FERRY_INTEROP_LOG"; do
    [ -f "$f" ] && { echo "--- last lines of $f" >&2; tail -n 25 "$f" >&2; }
  done
  exit 1
}

step() { printf '\n== %s\n' "$*"; }

# --- ali-ons, installed once ------------------------------------------------------------------
# shellcheck source=../support/npm_cache.sh
. "$ROOT/tests/support/npm_cache.sh"
npm_cached_install ali-ons 3.12.0 "$HERE" "$CACHE" "$TMP"

# --- the cluster ------------------------------------------------------------------------------
step "starting mqnamesrv and mqbroker (tools/quickstart.sh, data in $TMP/data)"
timeout 60 "$QS" >"$TMP/quickstart.out" 2>&1 || { cat "$TMP/quickstart.out"; fail "quickstart.sh could not start the cluster"; }
# shellcheck disable=SC1091
. "$FERRY_QUICKSTART_DATA/ports.env"
export FERRY_NAMESRV="127.0.0.1:$QS_NAMESRV_PORT"
# The first 16 hex digits of every offset msgId this broker hands out: 127.0.0.1 and its port.
FERRY_BROKER_HEX="$(printf '7F000001%08X' "$QS_BROKER_PORT")"
export FERRY_BROKER_HEX
echo "NameServer $FERRY_NAMESRV, broker 127.0.0.1:$QS_BROKER_PORT"

admin() { timeout 60 "$BIN/mqadmin" "$@" -n "$FERRY_NAMESRV"; }
produce() { timeout 120 node "$HERE/produce.js" "$@" || fail "produce.js $*"; }
consume() { timeout 120 node "$HERE/consume.js" "$@" || fail "consume.js $*"; }
# Prints "msgId tag key body" per line of a produce.js output, sorted.
sent_table() { node -e '
  for (const l of require("fs").readFileSync(process.argv[1], "utf8").split("\n").filter(Boolean)) {
    const m = JSON.parse(l); console.log([m.msgId, m.tag, m.key, m.body].join(" "));
  }' "$1" | sort; }

T=InteropTopic
# 1 -------------------------------------------------------------------------------------------
step "1. mqadmin updateTopic creates $T with 4 queues"
for topic in "$T" InteropBig InteropRetry InteropResume InteropFromFerry; do
  out="$(admin updateTopic -t "$topic" -c DefaultCluster -r 4 -w 4 2>&1)" || fail "updateTopic $topic: $out"
  [[ "$out" == *success* ]] || fail "updateTopic $topic did not say success: $out"
done
route="$(admin topicRoute -t "$T" 2>&1)" || fail "topicRoute $T: $route"
[[ "$route" =~ broker-a\ +4\ +4\ +6 ]] || fail "the route of $T does not show 4 read and 4 write queues, perm 6: $route"

# 2 -------------------------------------------------------------------------------------------
step "2. the ali-ons producer sends 1,000 messages with tags and keys"
produce --topic "$T" --count 1000 --prefix interop --tags TagA,TagB,TagC --out "$TMP/sent.jsonl"
[ "$(wc -l <"$TMP/sent.jsonl")" -eq 1000 ] || fail "produce.js recorded $(wc -l <"$TMP/sent.jsonl") results, not 1000"
[ "$(grep -o '"msgId":"[0-9A-F]*"' "$TMP/sent.jsonl" | sort -u | wc -l)" -eq 1000 ] ||
  fail "the 1,000 sends did not get 1,000 distinct msgIds"
status="$(admin topicStatus -t "$T" 2>&1)" || fail "topicStatus $T: $status"
total="$(awk '$1 == "broker-a" { n += $4 - $3 } END { print n + 0 }' <<<"$status")"
[ "$total" -eq 1000 ] || fail "topicStatus counts $total messages in $T, not 1000: $status"

# 3 -------------------------------------------------------------------------------------------
step "3. an ali-ons consumer (clustering) receives exactly those bodies, tags and keys"
consume --topic "$T" --group GID_INTEROP_ALL --expect "$TMP/sent.jsonl"

# 4 -------------------------------------------------------------------------------------------
step "4. a tag-filtered subscription ('TagB', ali-ons' default consumeFromWhere) gets only TagB"
consume --topic "$T" --group GID_INTEROP_TAGB --sub TagB --only-tag TagB --from default --expect "$TMP/sent.jsonl"

# 5 -------------------------------------------------------------------------------------------
step "4b. with enablePropertyFilter (mqadmin updateBrokerConfig), an SQL92 subscription gets only what it selects"
admin updateBrokerConfig -b "127.0.0.1:$QS_BROKER_PORT" -k enablePropertyFilter -v true >/dev/null ||
  fail "mqadmin updateBrokerConfig enablePropertyFilter"
consume --topic "$T" --group GID_INTEROP_SQL --sql "TAGS = 'TagB' AND KEYS IS NOT NULL" --only-tag TagB --expect "$TMP/sent.jsonl"

step "5. a 10,000-byte body (compressed by the client) arrives intact"
produce --topic InteropBig --count 2 --prefix big --body-bytes 10000 --tags Big --out "$TMP/big.jsonl"
consume --topic InteropBig --group GID_INTEROP_BIG --expect "$TMP/big.jsonl" --expect-compressed
big_id="$(node -e 'console.log(JSON.parse(require("fs").readFileSync(process.argv[1], "utf8").split("\n")[0]).msgId)' "$TMP/big.jsonl")"
view="$(admin queryMsgById -i "$big_id" 2>&1)" || fail "queryMsgById $big_id: $view"
[[ "$view" == *"big-0 line 0 0"* ]] || fail "mqadmin queryMsgById does not show the decompressed body of $big_id: ${view:0:600}"

# 6 -------------------------------------------------------------------------------------------
step "6. a handler that throws once gets each message again through %RETRY%GID_INTEROP_RETRY"
produce --topic InteropRetry --count 3 --prefix retry --out "$TMP/retry.jsonl"
consume --topic InteropRetry --group GID_INTEROP_RETRY --expect "$TMP/retry.jsonl" --throw-once --timeout-ms 60000
status="$(admin topicStatus -t %RETRY%GID_INTEROP_RETRY 2>&1)" || fail "topicStatus %RETRY%GID_INTEROP_RETRY: $status"
retry_total="$(awk '$1 == "broker-a" { n += $4 - $3 } END { print n + 0 }' <<<"$status")"
[ "$retry_total" -eq 3 ] || fail "%RETRY%GID_INTEROP_RETRY holds $retry_total messages, not the 3 sent back: $status"

# 7 -------------------------------------------------------------------------------------------
step "7. the consumer stops, more messages arrive, it restarts and resumes at its committed offsets"
produce --topic InteropResume --count 40 --prefix before --out "$TMP/resume1.jsonl"
consume --topic InteropResume --group GID_INTEROP_RESUME --expect "$TMP/resume1.jsonl"
progress="$(admin consumerProgress -g GID_INTEROP_RESUME -t InteropResume 2>&1)" || fail "consumerProgress: $progress"
committed="$(awk '$1 == "InteropResume" { n += $5 } END { print n + 0 }' <<<"$progress")"
[ "$committed" -eq 40 ] || fail "the group committed $committed of 40 offsets when it stopped: $progress"
produce --topic InteropResume --count 20 --prefix after --out "$TMP/resume2.jsonl"
# Only the 20 new messages may arrive (any of the first 40 is "unexpected"), and every queue must
# start at the offset committed before the stop.
consume --topic InteropResume --group GID_INTEROP_RESUME --expect "$TMP/resume2.jsonl" --resume-after "$TMP/resume1.jsonl"

# 8 -------------------------------------------------------------------------------------------
step "8. mqadmin queryMsgByKey finds a message the Node producer sent"
want="$(grep '"key":"interop-key-7"' "$TMP/sent.jsonl")"
want_id="$(grep -o '"msgId":"[0-9A-F]*"' <<<"$want" | cut -d'"' -f4)"
found="$(admin queryMsgByKey -t "$T" -k interop-key-7 2>&1)" || fail "queryMsgByKey: $found"
[[ "$found" =~ $want_id.*TagB.*interop-7 ]] || fail "queryMsgByKey interop-key-7 does not show $want_id, TagB, body interop-7: $found"

# 9 -------------------------------------------------------------------------------------------
step "9a. Ferry's consumer (mqadmin consumeMessage) reads the 1,000 messages ali-ons produced"
got="$(admin consumeMessage -t "$T" -c 1000 --timeout 30000 2>&1)" || fail "consumeMessage: ${got:0:2000}"
[[ "$got" == *"Received 1000 messages from topic $T"* ]] || fail "consumeMessage did not receive 1000 messages: $(tail -n 3 <<<"$got")"
# Columns: Broker Queue Offset MsgId Tags Keys StoreDate StoreTime Body
awk '$1 == "broker-a" { print $4, $5, $6, $9 }' <<<"$got" | sort >"$TMP/ferry-read.txt"
sent_table "$TMP/sent.jsonl" >"$TMP/sent.txt"
diff -u "$TMP/sent.txt" "$TMP/ferry-read.txt" >"$TMP/9a.diff" ||
  fail "what mqadmin read (msgId tag key body) differs from what ali-ons sent: $(head -n 20 "$TMP/9a.diff")"

step "9b. ali-ons reads what Ferry's producer (mqadmin sendMessage) sent"
out="$(admin sendMessage -t InteropFromFerry -p 'ferry-{i}' -g FerryTag -k ferry-key -c 30 2>&1)" || fail "sendMessage: $out"
for i in $(seq 0 29); do printf '{"body":"ferry-%d","tag":"FerryTag","key":"ferry-key"}\n' "$i"; done >"$TMP/ferry-sent.jsonl"
consume --topic InteropFromFerry --group GID_INTEROP_FROM_FERRY --expect "$TMP/ferry-sent.jsonl"

# 10 ------------------------------------------------------------------------------------------
# A second cluster with ACL on: the same quickstart, broker.conf + aclEnable and the accounts
# below; ali-ons signs with the keys it is given (its Channel: AccessKey, Signature, OnsChannel).
step "10a. a broker with ACL on; mqadmin creates InteropAcl with the admin keys only"
"$QS" stop >/dev/null 2>&1 || fail "quickstart.sh stop of the first cluster"
A=InteropAcl
ACL_GROUP=GID_INTEROP_ACL
ADMIN_KEYS=(FERRY_ACCESS_KEY=interopAdmin FERRY_SECRET_KEY=interop-admin-secret)
PRODUCER_KEYS=(FERRY_ACCESS_KEY=interopProducer FERRY_SECRET_KEY=interop-producer-secret)
CONSUMER_KEYS=(FERRY_ACCESS_KEY=interopConsumer FERRY_SECRET_KEY=interop-consumer-secret)
cat >"$TMP/plain_acl.yml" <<EOF
# written by tests/interop/interop_test.sh (case 10)
globalWhiteRemoteAddresses:
accounts:
  - accessKey: interopAdmin
    secretKey: interop-admin-secret
    admin: true
  - accessKey: interopProducer
    secretKey: interop-producer-secret
    admin: false
    defaultTopicPerm: DENY
    defaultGroupPerm: DENY
    topicPerms:
      - $A=PUB
  - accessKey: interopConsumer
    secretKey: interop-consumer-secret
    admin: false
    defaultTopicPerm: DENY
    defaultGroupPerm: DENY
    topicPerms:
      - $A=SUB
    groupPerms:
      - $ACL_GROUP=SUB
  - accessKey: interopDenied
    secretKey: interop-denied-secret
    admin: false
    defaultTopicPerm: PUB
    defaultGroupPerm: SUB
    topicPerms:
      - $A=DENY
EOF
chmod 600 "$TMP/plain_acl.yml"
printf 'aclEnable=true\naclFilePath=%s\n' "$TMP/plain_acl.yml" >"$TMP/broker-acl.conf"
export FERRY_QUICKSTART_DATA="$TMP/acl-data"
# quickstart's demo (updateTopic, sendMessage, consumeMessage) signs with the admin keys.
env "${ADMIN_KEYS[@]}" FERRY_QUICKSTART_BROKER_EXTRA="$TMP/broker-acl.conf" timeout 60 "$QS" >"$TMP/quickstart-acl.out" 2>&1 ||
  { cat "$TMP/quickstart-acl.out"; fail "quickstart.sh could not start the ACL cluster"; }
grep -q '^aclEnable=true$' "$FERRY_QUICKSTART_DATA/broker.conf" || fail "the ACL cluster's broker.conf has no aclEnable=true"
# shellcheck disable=SC1091
. "$FERRY_QUICKSTART_DATA/ports.env"
export FERRY_NAMESRV="127.0.0.1:$QS_NAMESRV_PORT"
FERRY_BROKER_HEX="$(printf '7F000001%08X' "$QS_BROKER_PORT")"
echo "NameServer $FERRY_NAMESRV, broker 127.0.0.1:$QS_BROKER_PORT (aclEnable=true)"
out="$(env "${PRODUCER_KEYS[@]}" timeout 60 "$BIN/mqadmin" updateTopic -t "$A" -c DefaultCluster -r 4 -w 4 -n "$FERRY_NAMESRV" 2>&1)" &&
  fail "updateTopic with the producer's keys (not admin) succeeded: $out"
[[ "$out" == *"AclException: Need admin permission for request code=17"* ]] ||
  fail "updateTopic with the producer's keys was not refused for want of admin: $out"
out="$(env "${ADMIN_KEYS[@]}" timeout 60 "$BIN/mqadmin" updateTopic -t "$A" -c DefaultCluster -r 4 -w 4 -n "$FERRY_NAMESRV" 2>&1)" ||
  fail "updateTopic $A with the admin keys: $out"
[[ "$out" == *success* ]] || fail "updateTopic $A with the admin keys did not say success: $out"
acl_count() {
  local st
  st="$(env "${ADMIN_KEYS[@]}" timeout 60 "$BIN/mqadmin" topicStatus -t "$A" -n "$FERRY_NAMESRV" 2>&1)" || fail "topicStatus $A: $st"
  awk '$1 == "broker-a" { n += $4 - $3 } END { print n + 0 }' <<<"$st"
}

step "10b. the ali-ons producer with the producer's keys (PUB on $A) sends 20 messages"
env "${PRODUCER_KEYS[@]}" FERRY_BROKER_HEX="$FERRY_BROKER_HEX" timeout 120 node "$HERE/produce.js" \
  --topic "$A" --count 20 --prefix acl --tags TagA,TagB --out "$TMP/acl-sent.jsonl" || fail "produce.js with the producer's keys"
[ "$(acl_count)" -eq 20 ] || fail "topicStatus counts $(acl_count) messages in $A, not 20"

step "10c. an ali-ons consumer with the consumer's keys (SUB on $A and $ACL_GROUP) receives them and commits"
env "${CONSUMER_KEYS[@]}" timeout 120 node "$HERE/consume.js" --topic "$A" --group "$ACL_GROUP" --expect "$TMP/acl-sent.jsonl" ||
  fail "consume.js with the consumer's keys"
progress="$(env "${ADMIN_KEYS[@]}" timeout 60 "$BIN/mqadmin" consumerProgress -g "$ACL_GROUP" -t "$A" -n "$FERRY_NAMESRV" 2>&1)" ||
  fail "consumerProgress $ACL_GROUP: $progress"
committed="$(awk -v t="$A" '$1 == t { n += $5 } END { print n + 0 }' <<<"$progress")"
[ "$committed" -eq 20 ] || fail "$ACL_GROUP committed $committed of 20 offsets (signed UPDATE_CONSUMER_OFFSET): $progress"

refused() {  # refused WHAT REMARK_REGEX [--close-refused] ENV...
  local what="$1" re="$2" flags=(); shift 2
  [ "${1:-}" = --close-refused ] && { flags=(--close-refused); shift; }
  env -u FERRY_ACCESS_KEY -u FERRY_SECRET_KEY "$@" timeout 120 node "$HERE/send_refused.js" --topic "$A" --remark "$re" "${flags[@]}" ||
    fail "$what: the send was not refused as expected"
}
step "10d. the producer's key with a wrong secret is refused: the signature does not verify"
# ali-ons shows the remark only when close() unregisters (also refused): send_refused.js.
refused "a wrong secret" '^AclException: Check signature failed for accessKey=interopProducer' --close-refused \
  FERRY_ACCESS_KEY=interopProducer FERRY_SECRET_KEY=not-the-producer-secret
step "10e. a producer without keys is refused"
refused "no keys" '^AclException: No accessKey is configured' --close-refused
step "10f. the DENY account's send is refused, naming the permission"
refused "the DENY account" '^AclException: No permission PUB for topic:InteropAcl, accessKey=interopDenied has DENY' \
  FERRY_ACCESS_KEY=interopDenied FERRY_SECRET_KEY=interop-denied-secret
[ "$(acl_count)" -eq 20 ] || fail "after the refused sends $A holds $(acl_count) messages, not 20"

echo
echo "PASS: ali-ons 3.12.0 against Ferry"
