#!/usr/bin/env bash
# `mqsim run --real` interrupted (Ctrl-C) in the middle of a scenario stops everything it started
# and leaves no namespace, rule, mount, process or run folder behind, and says it was interrupted. (Run on
# disk-full: its broker-a has a tmpfs store of the runner's.)
#   interrupt_test.sh MQSIM SCENARIO
set -uo pipefail
mqsim=$1
scenario=$2
if [ "$(id -u)" != 0 ]; then
  echo "needs root (network namespaces, nftables)"
  exit 0
fi
out=$(mktemp)
trap 'rm -f "$out"; rm -rf /tmp/mqsim-real-*-"${pid:-none}"-seed1' EXIT
"$mqsim" run "$scenario" --real --seed 1 >"$out" 2>&1 &
pid=$!
# Into the run: the daemons are up and the workload runs.
for _ in $(seq 1 300); do
  if ip netns list | grep -q "^ferry$pid-"; then break; fi
  sleep 0.1
done
sleep 12
ip netns list | grep -q "^ferry$pid-" || { echo "FAIL: no namespaces of run $pid while it ran"; cat "$out"; exit 1; }
pgrep -f "mqsim-real-.*-$pid-seed1" >/dev/null || { echo "FAIL: no daemons of run $pid while it ran"; cat "$out"; exit 1; }
grep -q "mqsim-real-.*-$pid-seed1" /proc/mounts || { echo "FAIL: no tmpfs store of run $pid while it ran"; cat "$out"; exit 1; }
kill -INT "$pid"
wait "$pid"
rc=$?
cat "$out"
[ "$rc" != 0 ] || { echo "FAIL: an interrupted run exited 0"; exit 1; }
grep -q "interrupted" "$out" || { echo "FAIL: the output does not say the run was interrupted"; exit 1; }
if ip netns list | grep -q "^ferry$pid-"; then
  echo "FAIL: namespaces left behind:"; ip netns list | grep "^ferry$pid-"; exit 1
fi
if grep "mqsim-real-.*-$pid-seed1" /proc/mounts; then
  echo "FAIL: mounts left behind"; exit 1
fi
if pgrep -f "mqsim-real-.*-$pid-seed1" >/dev/null; then
  echo "FAIL: processes left behind:"; pgrep -af "mqsim-real-.*-$pid-seed1"; exit 1
fi
if compgen -G "/tmp/mqsim-real-*-$pid-seed1" >/dev/null; then
  echo "FAIL: run folder left behind:"; ls -d /tmp/mqsim-real-*-"$pid"-seed1; exit 1
fi
echo "PASS: interrupted run $pid left nothing behind"
