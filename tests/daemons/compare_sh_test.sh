#!/usr/bin/env bash
# tools/bench/compare.sh without running it (a run takes minutes and its figures are not
# asserted anywhere): --help prints its usage, a bad argument is refused with exit 2, and the two
# peer clients it builds with cc compile without warnings and answer --help and a bad flag, when
# their libraries (libnats, hiredis) are installed. Exit 77 (skipped) when neither library is.
set -uo pipefail
ROOT="$(cd "$(dirname "$0")/../.." && pwd)"
fail=0
check() { if ! eval "$2"; then echo "FAILED: $1"; fail=1; else echo "ok: $1"; fi; }

out="$("$ROOT/tools/bench/compare.sh" --help)"; rc=$?
check "compare.sh --help exits 0" '[ $rc -eq 0 ]'
check "compare.sh --help names its flags" '[[ "$out" == *"--messages N"* && "$out" == *"--no-write"* && "$out" == *"appendfsync"* ]]'
"$ROOT/tools/bench/compare.sh" --bogus > /dev/null 2>&1; rc=$?
check "compare.sh refuses an unknown argument" '[ $rc -eq 2 ]'
"$ROOT/tools/bench/compare.sh" --messages 12 > /dev/null 2>&1; rc=$?
check "compare.sh refuses too few messages" '[ $rc -eq 2 ]'

tmp="$(mktemp -d)"
trap 'rm -rf "$tmp"' EXIT
built=0
has_header() { echo "#include <$1>" | cc -E - > /dev/null 2>&1; }
client() {  # NAME LIBS...: compile tools/bench/NAME.c, then --help (0) and a bad flag (2)
  local name="$1"; shift
  cc -O2 -Wall -Wextra -Werror -o "$tmp/$name" "$ROOT/tools/bench/$name.c" "$@" 2> "$tmp/$name.err"; rc=$?
  check "$name.c compiles without warnings" '[ $rc -eq 0 ] || { cat "$tmp/$name.err"; false; }'
  [ $rc -eq 0 ] || return
  built=1
  "$tmp/$name" --help > "$tmp/$name.help"; rc=$?
  check "$name --help exits 0 with its usage" '[ $rc -eq 0 ] && grep -q "^usage: $name" "$tmp/$name.help"'
  "$tmp/$name" --nonsense x > /dev/null 2>&1; rc=$?
  check "$name refuses an unknown flag" '[ $rc -eq 2 ]'
}
if has_header nats/nats.h; then client nats_bench -lnats -lpthread; else echo "skip: libnats-dev is not installed"; fi
if has_header hiredis/hiredis.h; then client redis_consume -lhiredis; else echo "skip: libhiredis-dev is not installed"; fi
[ $fail -eq 0 ] || exit 1
[ $built -eq 1 ] || exit 77
exit 0
