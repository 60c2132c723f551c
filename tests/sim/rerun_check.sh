#!/usr/bin/env bash
# The same-seed rerun check: runs each simulated test binary twice with FERRY_SIM_TRACE_LOG and
# fails when any test's final hash differs between the runs (tests/support/sim_trace_log.h),
# naming the test, its seed and the command that replays it.
#   rerun_check.sh BINARY [BINARY...]
# With --expect-difference the check must find a difference (the planted non-determinism test).
set -uo pipefail
expect_difference=0
if [ "${1:-}" = "--expect-difference" ]; then expect_difference=1; shift; fi
# RapidCheck draws its own seed per run unless told: fix it, so property tests compare too.
export RC_PARAMS="${RC_PARAMS:-seed=424242}"
tmp=$(mktemp -d)
# Property tests write the scenario files of the failures they shrink (sim/property/property.h) here.
export FERRY_PROPERTY_DIR="$tmp/property-failures"
trap 'rm -rf "$tmp"' EXIT
status=0
for bin in "$@"; do
  name=$(basename "$bin")
  for run in 1 2; do
    if ! FERRY_SIM_TRACE_LOG="$tmp/$name.$run" "$bin" >"$tmp/$name.$run.out" 2>&1; then
      echo "rerun-check: $name failed on run $run:"; tail -20 "$tmp/$name.$run.out"; status=1; continue 2
    fi
  done
  if [ ! -s "$tmp/$name.1" ]; then
    echo "rerun-check: $name recorded no simulated run (does its fixture call record_trace?)"; status=1; continue
  fi
  if ! diff -q "$tmp/$name.1" "$tmp/$name.2" >/dev/null; then
    if [ $expect_difference -eq 1 ]; then echo "rerun-check: $name differs between runs, as planted"; continue; fi
    echo "rerun-check: $name is not deterministic; tests whose final hash differed between two runs:"
    diff "$tmp/$name.1" "$tmp/$name.2" | grep '^<' | sed 's/^< /  /' | while read -r test seed hash; do
      echo "  $test ($seed, $hash); replay: $bin --gtest_filter='${test%%/*}'"
    done
    status=1
  else
    [ $expect_difference -eq 1 ] && { echo "rerun-check: $name was expected to differ between runs and did not"; status=1; continue; }
    echo "rerun-check: $name: $(wc -l < "$tmp/$name.1") simulated runs, same final hashes twice"
  fi
done
exit $status
