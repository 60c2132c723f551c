#!/usr/bin/env bash
# Before the tests: room on the filesystem of /tmp, where the tests' brokers keep their stores.
# A broker refuses every put once its disk is 90% used (diskSpaceWarningLevelRatio), so a machine
# near that line fails every test on real daemons with "disk full". Here that is said once, with
# what takes the room.
#
# Run folders that `mqsim run --real` left behind (/tmp/mqsim-real-NAME-PID-seedN: a failed run
# keeps its folder for a look; a run killed outright cannot remove its own) are removed when their
# mqsim is gone and the disk is 80% used or more; they are named as they go.
#
#   tools/check-tmp-space.sh     exit 0 when /tmp's filesystem is below 85% used, 1 otherwise
set -uo pipefail
limit=85
sweep_from=80
used_pct() { df --output=pcent /tmp | tail -1 | tr -dc '0-9'; }

used=$(used_pct)
if [ "$used" -ge "$sweep_from" ]; then
  for dir in /tmp/mqsim-real-*-seed*; do
    [ -d "$dir" ] || continue
    pid=${dir%-seed*}
    pid=${pid##*-}
    if [[ "$pid" =~ ^[0-9]+$ ]] && kill -0 "$pid" 2>/dev/null; then continue; fi
    # Its tmpfs stores, if the run died with them mounted.
    grep -F " $dir/" /proc/mounts | awk '{print $2}' | sort -r | xargs -r -n1 umount -l 2>/dev/null
    echo "check-tmp-space: removing $dir ($(du -sh "$dir" 2>/dev/null | cut -f1)), left by mqsim run $pid, which is gone"
    rm -rf "$dir"
  done
  used=$(used_pct)
fi

if [ "$used" -ge "$limit" ]; then
  echo "check-tmp-space: the filesystem of /tmp is ${used}% used; brokers refuse writes from 90%" \
    "(diskSpaceWarningLevelRatio), so the tests on real daemons would fail with 'disk full'." >&2
  echo "check-tmp-space: free room first. The largest entries of /tmp:" >&2
  du -xsh /tmp/* 2>/dev/null | sort -h | tail -10 >&2
  exit 1
fi
echo "check-tmp-space: /tmp's filesystem is ${used}% used"
