#!/usr/bin/env bash
# The test command (README, .ci/run): installs what is missing, builds, and runs every test.
#
#   tools/test.sh            full run: lints, Release build + all tests (those on real processes, label
#                            "real", in the background), every scenario file on two fresh seeds (as
#                            written and under --swarm), ASan+UBSan build of the runtime/simulator tests, short
#                            libFuzzer runs of the frame decoder and of the SQL92 filter
#   FERRY_FAST=1 tools/test.sh   Release build + tests only (for quick local iterations)
#   tools/test.sh --long     the full run, then the nightly extras: every ordering property on
#                            FERRY_LONG_CASES (default 20000) generated clusters each, every
#                            scenario on ten more fresh seeds, every scenario under --swarm on
#                            FERRY_LONG_SWARM_SEEDS (default 200) fresh seeds, and (as root) every
#                            scenario that can run on real processes, once
#
# Exits non-zero on any failure.
set -euo pipefail
long=0
for arg in "$@"; do
  case "$arg" in
    --long) long=1 ;;
    *) echo "usage: tools/test.sh [--long]" >&2; exit 2 ;;
  esac
done
cd "$(dirname "$0")/.."
root=$(pwd)
jobs=${FERRY_JOBS:-$(nproc)}
# Let ccache share objects between checkouts of the repository (CI builds a fresh clone).
export CCACHE_BASEDIR="$root" CCACHE_NOHASHDIR=1

# Each step says when it began (seconds since the start): what CI's 60-minute budget goes to.
step() { printf '\n==== %s (at %d s) ====\n' "$*" "$SECONDS"; }

step "bootstrap"
tools/bootstrap.sh

step "determinism lint"
tools/check-determinism.sh

step "outside-path lint"
tools/check-paths.sh

step "include-direction lint"
tools/check-layers.sh

step "Release build"
cmake -S . -B build -G Ninja -DCMAKE_BUILD_TYPE=Release >/dev/null
ninja -C build -j "$jobs"

# Scenario files on real processes (label "real": `mqsim run --real`, tests/real/): minutes of real
# time each (latency-backoff: 15), mostly waiting on the stories' own timers, so they start now, in
# the background, together, while the Release tests and the fresh seeds below keep the CPU busy;
# their result is collected before the ASan build.
step "room on /tmp (the tests' stores)"
tools/check-tmp-space.sh

real_log=build/real-tests.log
# In a process group of its own: if this script stops early (a failing step, Ctrl-C), the trap
# below sends the group SIGTERM, so each `mqsim run --real` stops its daemons and removes its
# namespaces, mounts and folder, instead of running on orphaned or dying without cleaning up.
setsid bash -c 'cd build && exec ctest --output-on-failure -j 4 --timeout 1500 -L real' >"$root/$real_log" 2>&1 &
real_pid=$!
stop_real() {
  kill -0 "$real_pid" 2>/dev/null || return 0
  echo "stopping the tests on real processes (process group $real_pid)"
  kill -TERM -- "-$real_pid" 2>/dev/null
  for _ in $(seq 1 60); do
    pgrep -g "$real_pid" >/dev/null || return 0
    sleep 1
  done
  kill -KILL -- "-$real_pid" 2>/dev/null
}
trap stop_real EXIT
wait_real() {
  step "tests on real processes (label real, run in the background)"
  if wait "$real_pid"; then
    grep -E 'tests passed|Test +#' "$real_log" | tail -8
  else
    cat "$real_log"
    echo "tests on real processes failed"
    exit 1
  fi
}

step "tests (Release)"
(cd build && ctest --output-on-failure -j "$jobs" --timeout 900 -LE real)

if [ "${FERRY_FAST:-0}" = "1" ]; then
  wait_real
  exit 0
fi

# ctest ran every scenario on fixed seeds; here each runs on two fresh ones as well, as written
# and under --swarm (swarm testing finds what fixed seeds do not; a file's [swarm] section says
# which of its bounds are figures there). The seeds are printed: a failure replays with the
# command mqsim prints. FERRY_FRESH_SEED=N picks them.
fresh=${FERRY_FRESH_SEED:-$(( $(date +%s) % 1000000 + 1000 ))}
# run_fresh FIRST LAST [--swarm] [FILES...]: the scenario files (default: all) on seeds FIRST..LAST.
run_fresh() {
  local f first=$1 last=$2 flags=${3:-}
  shift 3 2>/dev/null || shift $#
  local files=("$@")
  [ ${#files[@]} -gt 0 ] || files=(scenarios/*.toml)
  for f in "${files[@]}"; do
    build/bin/mqsim run "$f" --seeds "$first..$last" $flags 2>>build/mqsim-fresh.log |
      grep -E '^== |FAILED|replay|^  history:|passed, |^  [a-z_-]+: [0-9]+ seeds? ' ||
      { tail -40 build/mqsim-fresh.log; echo "scenario $f $flags failed on a fresh seed of $first..$last (FERRY_FRESH_SEED=$fresh)"; exit 1; }
  done
}
step "scenarios on fresh seeds ${fresh}..$((fresh + 1))"
run_fresh "$fresh" $((fresh + 1))
step "scenarios under --swarm on fresh seeds ${fresh}..$((fresh + 1))"
run_fresh "$fresh" $((fresh + 1)) --swarm

wait_real

step "ASan+UBSan build (tests labelled 'sanitize')"
cmake -S . -B build-asan -G Ninja -DCMAKE_BUILD_TYPE=Debug -DFERRY_SANITIZE=ON >/dev/null
ninja -C build-asan -j "$jobs"
(cd build-asan && ASAN_OPTIONS=detect_leaks=1:abort_on_error=1 UBSAN_OPTIONS=print_stacktrace=1 \
  ctest --output-on-failure -j "$jobs" -L sanitize --timeout 900)

# bootstrap.sh installs clang and its fuzzer/sanitizer runtimes, so this step always runs.
step "fuzz (bounded)"
CXX=clang++ cmake -S . -B build-fuzz -G Ninja -DCMAKE_BUILD_TYPE=RelWithDebInfo -DFERRY_FUZZ=ON \
  -DFERRY_WERROR=OFF >/dev/null
ninja -C build-fuzz -j "$jobs" fuzz_frame fuzz_sql92
mkdir -p build-fuzz/corpus
build-fuzz/bin/fuzz_frame -max_total_time="${FERRY_FUZZ_SECONDS:-30}" -rss_limit_mb=2048 \
  build-fuzz/corpus >build-fuzz/fuzz.log 2>&1 || { tail -40 build-fuzz/fuzz.log; exit 1; }
tail -2 build-fuzz/fuzz.log
# The SQL92 filter (tests/common/sql92_fuzz.cc): new inputs go to corpus-sql92, the seeds stay in
# the repository's tests/common/sql92_corpus.
mkdir -p build-fuzz/corpus-sql92
build-fuzz/bin/fuzz_sql92 -max_total_time="${FERRY_FUZZ_SQL_SECONDS:-15}" -rss_limit_mb=2048 -max_len=4096 \
  -dict=tests/common/sql92.dict build-fuzz/corpus-sql92 tests/common/sql92_corpus \
  >build-fuzz/fuzz-sql92.log 2>&1 || { tail -40 build-fuzz/fuzz-sql92.log; exit 1; }
tail -2 build-fuzz/fuzz-sql92.log

if [ "$long" = "1" ]; then
  # The properties ctest ran on FERRY_PROPERTY_CASES cases each, here on many more; a failure
  # prints its shrunk counterexample, RC_PARAMS="reproduce=..." and the mqsim replay line.
  cases=${FERRY_LONG_CASES:-20000}
  step "ordering properties on $cases cases each (--long)"
  (cd build && FERRY_MQSIM="$root/build/bin/mqsim" RC_PARAMS="max_success=$cases" bin/sim_property_test --gtest_filter='Guarantees.*')
  seeds_from=$((fresh + 2))
  step "scenarios on fresh seeds ${seeds_from}..$((seeds_from + 9)) (--long)"
  run_fresh "$seeds_from" $((seeds_from + 9))
  swarm_seeds=${FERRY_LONG_SWARM_SEEDS:-200}
  step "scenarios under --swarm on $swarm_seeds fresh seeds each, the hour-long soak on 10 (--long)"
  short_files=()
  for f in scenarios/*.toml; do [ "$f" = scenarios/soak-hour.toml ] || short_files+=("$f"); done
  run_fresh "$seeds_from" $((seeds_from + swarm_seeds - 1)) --swarm "${short_files[@]}"
  run_fresh "$seeds_from" $((seeds_from + 9)) --swarm scenarios/soak-hour.toml
  if [ "$(id -u)" = 0 ]; then
    step "every scenario file that can run on real processes, once (--long)"
    for f in $(build/bin/mqsim list --real | awk '$2 == "runs" {print $1}'); do
      build/bin/mqsim run "scenarios/$f.toml" --real --seed "$fresh" | grep -E '^== |FAILED|PASSED|real:|folder' ||
        { echo "scenario $f failed on real processes"; exit 1; }
    done
  fi
fi

step "all tests passed"
