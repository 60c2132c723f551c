#!/usr/bin/env bash
# Proves tools/check-layers.sh catches a lower layer including a higher one (naming file, line and
# both layers) and accepts includes that flow downward.
set -uo pipefail
script="$1"
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
fail() { echo "FAIL: $*"; exit 1; }

mkdir -p "$tmp/src/runtime/asio" "$tmp/src/common" "$tmp/src/remoting/rpc" "$tmp/src/store" \
  "$tmp/src/broker" "$tmp/src/client" "$tmp/src/namesrv" "$tmp/src/client_api" "$tmp/src/daemon" "$tmp/src/cli" \
  "$tmp/sim/net" "$tmp/sim/disk" "$tmp/sim/history" "$tmp/sim/cluster" "$tmp/sim/check" "$tmp/sim/scenario" \
  "$tmp/sim/io" "$tmp/sim/report" "$tmp/sim/property" "$tmp/sim/real" "$tmp/sim/other" "$tmp/src/proxy/proto"
printf '#include "runtime/task.h"\n#include "common/offsets.h"\n#include "store/commit_log.h"\n#include "remoting/rpc/rpc_client.h"\n#include <vector>\n#include "local.h"\n' \
  > "$tmp/src/broker/ok.cc"
printf '#include "runtime/task.h"\n' > "$tmp/src/runtime/asio/ok.cc"
printf '#include "broker/broker.h"\n#include "client/producer.h"\n#include "runtime/runtime.h"\n#include "sim/world.h"\n#include "sim/net/network.h"\n#include "sim/history/history.h"\n' > "$tmp/sim/cluster/ok.cc"
printf '#include "sim/history/history.h"\n#include "common/offsets.h"\n' > "$tmp/sim/check/ok.cc"
printf '#include "sim/check/verdict.h"\n#include "sim/cluster/cluster.h"\n#include "sim/disk/disk.h"\n' > "$tmp/sim/scenario/ok.cc"
printf '#include "sim/scenario/scenario.h"\n#include "sim/history/history_codec.h"\n' > "$tmp/sim/io/ok.cc"
printf '#include "sim/scenario/runner.h"\n#include "sim/check/verdict.h"\n' > "$tmp/sim/report/ok.cc"
printf '#include "sim/io/replay_file.h"\n#include "sim/scenario/runner.h"\n' > "$tmp/sim/property/ok.cc"
printf '#include "sim/scenario/runner.h"\n#include "runtime/asio/asio_runtime.h"\n' > "$tmp/sim/real/ok.cc"
printf '#include "runtime/asio/tls_options.h"\n#include "remoting/rpc/rpc_options.h"\n' > "$tmp/src/daemon/ok.cc"
printf '#include "daemon/tls_keys.h"\n' > "$tmp/src/cli/ok.cc"
printf '#include "apache/rocketmq/v2/service.pb.h"\n#include "client/producer.h"\n' > "$tmp/src/proxy/ok.cc"
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
plant sim/cluster/a.cc runtime/asio/asio_runtime.h 'sim/cluster may not include runtime/asio'
plant src/daemon/a.cc client/producer.h 'daemon may not include client'
plant src/daemon/a.cc cli/flags.h 'daemon may not include cli'
plant src/client/a.cc daemon/properties_file.h 'client may not include daemon'
plant src/client/a.cc apache/rocketmq/v2/definition.pb.h 'client may not include proxy/proto'
plant src/proxy/a.cc broker/broker.h 'proxy may not include broker'
plant src/proxy/a.cc runtime/asio/asio_runtime.h 'proxy may not include runtime/asio'
# The simulator's own layers: a planted upward include of each.
plant sim/a.cc sim/scenario/scenario.h 'sim/world may not include sim/scenario'
plant sim/net/a.cc sim/cluster/cluster.h 'sim/world may not include sim/cluster'
plant sim/disk/a.cc broker/broker.h 'sim/world may not include broker'
plant sim/history/a.cc sim/world.h 'sim/history may not include sim/world'
plant sim/history/a.cc sim/check/verdict.h 'sim/history may not include sim/check'
plant sim/cluster/a.cc sim/check/lost_acked.h 'sim/cluster may not include sim/check'
plant sim/cluster/a.cc sim/scenario/runner.h 'sim/cluster may not include sim/scenario'
plant sim/check/a.cc sim/cluster/cluster.h 'sim/check may not include sim/cluster'
plant sim/check/a.cc sim/world.h 'sim/check may not include sim/world'
plant sim/check/a.cc broker/broker.h 'sim/check may not include broker'
plant sim/scenario/a.cc sim/io/history_file.h 'sim/scenario may not include sim/io'
plant sim/scenario/a.cc sim/report/html_report.h 'sim/scenario may not include sim/report'
plant sim/io/a.cc sim/property/property.h 'sim/io may not include sim/property'
plant sim/io/a.cc sim/report/html_report.h 'sim/io may not include sim/report'
plant sim/report/a.cc sim/io/history_file.h 'sim/report may not include sim/io'
plant sim/report/a.cc sim/cluster/cluster.h 'sim/report may not include sim/cluster'
plant sim/property/a.cc sim/report/html_report.h 'sim/property may not include sim/report'
plant sim/property/a.cc runtime/asio/asio_runtime.h 'sim/property may not include runtime/asio'
plant sim/io/a.cc daemon/properties_file.h 'sim/io may not include daemon'
plant sim/real/a.cc sim/io/history_file.h 'sim/real may not include sim/io'
plant sim/real/a.cc daemon/properties_file.h 'sim/real may not include daemon'
plant sim/scenario/a.cc sim/real/testbed.h 'sim/scenario may not include sim/real'
plant src/broker/a.cc tests/support/vectors.h 'broker may not include tests'
plant src/store/a.ipp broker/broker.h 'store may not include broker'
# A folder of sim/ that is in no layer is named as such.
printf '#include "runtime/task.h"\n' > "$tmp/sim/other/a.cc"
out=$("$script" "$tmp" 2>&1); rc=$?
[ $rc -ne 0 ] || fail "a file in sim/other (no layer) was not flagged"
grep -qF "sim/other/a.cc:1: file outside every layer" <<<"$out" || fail "sim/other: expected 'file outside every layer', got: $out"
rm -f "$tmp/sim/other/a.cc"
echo "check-layers: all planted violations caught"
