#!/usr/bin/env bash
# The include-direction lint (docs/architecture.md): a layer includes only itself and the layers
# below it, so dependencies flow downward and the simulator and the production runtime stay
# outside the components.
#
#   tools/check-layers.sh [ROOT]     (ROOT defaults to the repository)
#
# Reads every `#include "..."` of the files under ROOT/src and ROOT/sim. Prints
# "file:line: LAYER may not include INCLUDED_LAYER: text" for each violation and exits 1 if there
# is any. Layers, each with what it may include besides itself:
#   runtime        (nothing)
#   runtime/asio   runtime
#   common         runtime
#   remoting       common runtime
#   remoting/rpc   remoting common runtime
#   store          common runtime
#   namesrv        remoting remoting/rpc common runtime
#   controller     remoting remoting/rpc common runtime
#   broker         store remoting remoting/rpc common runtime
#   client         remoting remoting/rpc common runtime
#   client_api     client remoting remoting/rpc common runtime
#   daemon         what the daemons share (and each daemon's config mapping): namesrv, controller, broker, store,
#                  proxy, proxy/proto, runtime/asio, remoting, remoting/rpc, common, runtime
#   cli            what the command-line tools share: daemon, client, client_api and what they may include
#   proxy/proto    RocketMQ 5's v2 protocol, generated (included as "apache/rocketmq/v2/..."): nothing
#   proxy          the proxy's logic below gRPC: proxy/proto client remoting remoting/rpc common runtime
# The simulator, bottom-up; none of it but sim/real includes runtime/asio, and none daemon or cli:
#   sim/world      the files directly in sim/, and sim/net, sim/disk: common runtime
#   sim/history    common runtime
#   sim/cluster    sim/world sim/history, every component
#   sim/check      sim/history common runtime (a checker sees the History only)
#   sim/scenario   sim/check sim/cluster sim/history sim/world, every component
#   sim/io         sim/scenario and what it may include (files and the environment)
#   sim/report     sim/scenario sim/check sim/history sim/world common runtime
#   sim/real       sim/scenario and what it may include, and runtime/asio: scenario files on real
#                  processes (`mqsim run --real`), the one part of sim/ that runs on the production
#                  runtime
#   sim/property   sim/io and what it may include
# Nothing under src/ or sim/ includes tools/ or tests/. A `#include "name.h"` without a folder is
# taken as the including file's own layer.
set -uo pipefail

root=${1:-$(cd "$(dirname "$0")/.." && pwd)}
[ -d "$root/src" ] || { echo "check-layers: no src/ under $root" >&2; exit 2; }

allowed='
runtime:
runtime/asio: runtime
common: runtime
remoting: common runtime
remoting/rpc: remoting common runtime
store: common runtime
namesrv: remoting remoting/rpc common runtime
controller: remoting remoting/rpc common runtime
broker: store remoting remoting/rpc common runtime
client: remoting remoting/rpc common runtime
client_api: client remoting remoting/rpc common runtime
daemon: namesrv controller broker store proxy proxy/proto runtime/asio remoting remoting/rpc common runtime
cli: daemon client_api client proxy proxy/proto namesrv controller broker store runtime/asio remoting remoting/rpc common runtime
proxy/proto:
proxy: proxy/proto client remoting remoting/rpc common runtime
sim/world: common runtime
sim/history: common runtime
sim/cluster: sim/world sim/history client_api client broker namesrv controller store remoting remoting/rpc common runtime
sim/check: sim/history common runtime
sim/scenario: sim/check sim/cluster sim/history sim/world client_api client broker namesrv controller store remoting remoting/rpc common runtime
sim/io: sim/scenario sim/check sim/cluster sim/history sim/world client_api client broker namesrv controller store remoting remoting/rpc common runtime
sim/report: sim/scenario sim/check sim/history sim/world common runtime
sim/real: sim/scenario sim/check sim/cluster sim/history sim/world runtime/asio client_api client broker namesrv controller store remoting remoting/rpc common runtime
sim/property: sim/io sim/scenario sim/check sim/cluster sim/history sim/world client_api client broker namesrv controller store remoting remoting/rpc common runtime
'

files=()
while IFS= read -r -d '' f; do files+=("${f#"$root"/}"); done < <(
  find "$root/src" "$root/sim" -type f \( -name '*.h' -o -name '*.hpp' -o -name '*.cc' -o -name '*.cpp' -o -name '*.inl' -o -name '*.ipp' \) -print0 2>/dev/null | sort -z)
[ ${#files[@]} -eq 0 ] && { echo "check-layers: no sources under $root/src or $root/sim" >&2; exit 2; }

out=$(cd "$root" && grep -nE '^[[:space:]]*#[[:space:]]*include[[:space:]]*"[^"]+"' -- "${files[@]}" | awk -v allowed="$allowed" '
  # The layer of a path relative to the root ("src/x/..." or "sim/...") or of an include target.
  function layer_of(path, from_include,   parts, n) {
    n = split(path, parts, "/")
    if (!from_include && parts[1] != "sim") {
      if (parts[1] != "src") return ""
      path = substr(path, 5); n = split(path, parts, "/")
    }
    if (n == 1) return "."
    if (parts[1] == "sim") {
      # The files directly in sim/ and its net/ and disk/ are the world.
      if (n == 2 || parts[2] == "net" || parts[2] == "disk") return "sim/world"
      return "sim/" parts[2]
    }
    if (parts[1] == "runtime" && parts[2] == "asio" && n > 2) return "runtime/asio"
    if (parts[1] == "remoting" && parts[2] == "rpc" && n > 2) return "remoting/rpc"
    if (parts[1] == "apache" || (parts[1] == "proxy" && parts[2] == "proto" && n > 2)) return "proxy/proto"
    return parts[1]
  }
  BEGIN {
    n = split(allowed, lines, "\n")
    for (i = 1; i <= n; i++) {
      if (lines[i] == "") continue
      c = index(lines[i], ":"); who = substr(lines[i], 1, c - 1)
      known[who] = 1; ok[who, who] = 1
      m = split(substr(lines[i], c + 1), deps, " ")
      for (j = 1; j <= m; j++) ok[who, deps[j]] = 1
    }
  }
  {
    c1 = index($0, ":"); file = substr($0, 1, c1 - 1); rest = substr($0, c1 + 1)
    c2 = index(rest, ":"); line = substr(rest, 1, c2 - 1); text = substr(rest, c2 + 1)
    from = layer_of(file, 0)
    if (!(from in known)) { print file ":" line ": file outside every layer (add it to check-layers.sh): " text; next }
    target = text; sub(/^[^"]*"/, "", target); sub(/".*$/, "", target)
    to = layer_of(target, 1)
    if (to == ".") next
    if (to == "tools" || to == "tests") { print file ":" line ": " from " may not include " to ": " text; next }
    if (!(to in known)) next  # a third-party header spelled with quotes
    if (!((from, to) in ok)) print file ":" line ": " from " may not include " to ": " text
  }')

if [ -n "$out" ]; then
  printf '%s\n' "$out"
  echo "check-layers: a layer includes only itself and the layers below it (docs/architecture.md)" >&2
  exit 1
fi
exit 0
