#!/usr/bin/env bash
# Installs the Debian packages Ferry's build and tests need, only those that are missing, so a
# second run is fast and needs no network. Safe to run again at any time.
set -euo pipefail

packages=(
  cmake ninja-build g++ ccache pkg-config
  libboost-dev            # Boost.Asio (production runtime)
  libssl-dev              # OpenSSL: TLS in the production runtime (Boost.Asio's ssl::stream), ACL signatures (HMAC-SHA1, base64)
  openssl                 # tests/daemons: makes the TLS tests' CA and certificates at test time
  libcereal-dev rapidjson-dev  # persisted metadata; JSON headers on the hot path
  librapidcheck-dev libgtest-dev libgmock-dev
  libspdlog-dev libfmt-dev
  zlib1g-dev              # CRC32, compression
  libtomlplusplus-dev     # scenario files
  libyaml-cpp-dev         # ACL: RocketMQ's plain_acl.yml
  libraft-dev             # the controller's consensus (canonical/raft 0.15; docs/controller.md)
  libgrpc++-dev libprotobuf-dev protobuf-compiler protobuf-compiler-grpc  # the proxy: RocketMQ 5's gRPC protocol (src/proxy/proto)
  prometheus-cpp-dev      # the daemons' metrics endpoint: Prometheus's text format (src/daemon/metrics_endpoint.h)
  prometheus              # tests/daemons: a real Prometheus scrapes the daemons (PromQL, alert rules)
  curl                    # the README's metrics example
  clang                   # libFuzzer targets (optional at build time, installed for CI)
  libclang-rt-dev         # clang's fuzzer and sanitizer runtimes (not pulled in without recommends)
  procps                  # pkill/pgrep for the real-process tests and quickstart
  chromium                # headless browser: the test that mqsim's HTML report renders
  nodejs                  # tests/interop: the ali-ons RocketMQ client (Node.js) against the daemons
  iproute2 nftables       # mqsim run --real: hosts in network namespaces, partitions as nftables rules
  faketime                # mqsim run --real: skew_clock of a daemon (libfaketime)
)

missing=()
for p in "${packages[@]}"; do
  status="$(dpkg-query -W -f='${Status}' "$p" 2>/dev/null || true)"  # no pipe into grep -q: pipefail
  if [[ "$status" != *"install ok installed"* ]]; then
    missing+=("$p")
  fi
done

# npm (tests/interop installs ali-ons with it) only when no npm command exists: Debian's nodejs
# needs Debian's npm package, while NodeSource's nodejs bundles npm and conflicts with that package.
if ! command -v npm >/dev/null 2>&1; then
  missing+=(npm)
fi

if [ ${#missing[@]} -eq 0 ]; then
  exit 0
fi

echo "bootstrap: installing ${missing[*]}"
SUDO=""
if [ "$(id -u)" -ne 0 ]; then SUDO="sudo"; fi
export DEBIAN_FRONTEND=noninteractive
$SUDO apt-get update -qq
$SUDO apt-get install -y -qq --no-install-recommends "${missing[@]}"
