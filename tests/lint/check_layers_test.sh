#!/usr/bin/env bash
# Proves tools/check-layers.sh catches a lower layer including a higher one (naming file, line and
# both layers) and accepts includes that flow downward.
set -uo pipefail
script="$1"
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
fail() { echo "FAIL: $*"; exit 1; }

mkdir -p "$tmp/src/runtime/asio" "$tmp/src/common" "$tmp/src/remoting/rpc" "$tmp/src/store" \
  "$tmp/src/broker" "$tmp/src/client" "$tmp/src/namesrv" "$tmp/src/client_api" "$tmp/sim/cluster"
printf '#include "runtime/task.h"\n#include "common/offsets.h"\n#include "store/commit_log.h"\n#include "remoting/rpc/rpc_client.h"\n#include <vector>\n#include "local.h"\n' \
  > "$tmp/src/broker/ok.cc"
printf '#include "runtime/task.h"\n' > "$tmp/src/runtime/asio/ok.cc"
printf '#include "broker/broker.h"\n#include "client/producer.h"\n#include "runtime/runtime.h"\n' > "$tmp/sim/cluster/ok.cc"
printf '#include "remoting/frame_codec.h"\n#include "common/message.h"\n' > "$tmp/src/remoting/rpc/ok.cc"
out=$("$script" "$tmp" 2>&1); rc=$?
[ $rc -eq 0 ] || fail "downward includes were flagged: $out"

plant() {  # plant FILE INCLUDE EXPECTED
  printf '#include "runtime/task.h"\n// a comment\n#include "%s"\n' "$2" > "$tmp/$1"
  out=$("$script" "$tmp" 2>&1); rc=$?
  [ $rc -ne 0 ] || fail "planted '#include \"$2\"' in $1 was not caught"
  grep -qF "$1:3: $3" <<<"$out" || fail "planted '$2' in $1: expected '$1:3: $3', got: $out"
  rm -f "$tmp/$1"
}
plant src/store/a.cc broker/broker.h 'store may not include broker'
plant src/store/a.cc remoting/frame_codec.h 'store may not include remoting'
plant src/remoting/a.cc client/producer.h 'remoting may not include client'
plant src/remoting/a.cc remoting/rpc/channel.h 'remoting may not include remoting/rpc'
plant src/common/a.h remoting/ext_fields.h 'common may not include remoting'
plant src/runtime/a.h common/offsets.h 'runtime may not include common'
plant src/runtime/a.h runtime/asio/asio_runtime.h 'runtime may not include runtime/asio'
plant src/broker/a.cc sim/world.h 'broker may not include sim'
plant src/client/a.cc runtime/asio/asio_runtime.h 'client may not include runtime/asio'
plant src/client/a.cc broker/broker.h 'client may not include broker'
plant src/namesrv/a.cc store/commit_log.h 'namesrv may not include store'
plant src/client_api/a.cc runtime/asio/asio_runtime.h 'client_api may not include runtime/asio'
plant sim/cluster/a.cc runtime/asio/asio_runtime.h 'sim may not include runtime/asio'
plant src/broker/a.cc tests/support/vectors.h 'broker may not include tests'
plant src/store/a.ipp broker/broker.h 'store may not include broker'
echo "check-layers: all planted violations caught"
