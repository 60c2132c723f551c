#!/usr/bin/env bash
# Proves tools/check-buggify.sh catches an undocumented site, a documented site that is gone and
# a site without its "// buggify:" comment, and accepts a tree where code and doc agree.
set -uo pipefail
script="$1"
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
fail() { echo "FAIL: $*"; exit 1; }

mkdir -p "$tmp/src/runtime" "$tmp/src/store" "$tmp/src/client" "$tmp/docs"
printf '#define FERRY_BUGGIFY(rt) ((rt).buggify(__FILE__, __LINE__))\n' > "$tmp/src/runtime/runtime.h"
printf '  // buggify: the flush runs late.\n  if (FERRY_BUGGIFY(rt_)) late();\n' > "$tmp/src/store/a.cc"
printf '  // buggify: a heartbeat is skipped.\n  if (FERRY_BUGGIFY(rt_)) skip();\n  // buggify: a route is kept.\n  if (FERRY_BUGGIFY(rt_)) keep();\n' \
  > "$tmp/src/client/b.cc"
write_doc() {
  printf '# The simulator\n\n## Buggify sites\n\n| File | Site | Guarantee |\n|---|---|---|\n' > "$tmp/docs/simulator.md"
  for f in "$@"; do printf '| `%s` | something | something |\n' "$f" >> "$tmp/docs/simulator.md"; done
  printf '\n## Next\n\n| `src/store/a.cc` | a table of another section | not a site |\n' >> "$tmp/docs/simulator.md"
}
write_doc src/store/a.cc src/client/b.cc src/client/b.cc
out=$("$script" "$tmp" 2>&1); rc=$?
[ $rc -eq 0 ] || fail "code and doc agree but were flagged: $out"

expect() {  # expect TEXT: the check fails and says TEXT
  out=$("$script" "$tmp" 2>&1); rc=$?
  [ $rc -ne 0 ] || fail "not caught (expected '$1')"
  grep -qF "$1" <<<"$out" || fail "expected '$1', got: $out"
}
write_doc src/store/a.cc src/client/b.cc
expect 'src/client/b.cc: 2 sites in the code, 1 rows in docs/simulator.md'
write_doc src/store/a.cc src/client/b.cc src/client/b.cc src/client/gone.cc
expect 'src/client/gone.cc: 0 sites in the code, 1 rows in docs/simulator.md'
write_doc src/store/a.cc src/client/b.cc src/client/b.cc
printf '  if (FERRY_BUGGIFY(rt_)) silent();\n' >> "$tmp/src/store/a.cc"
write_doc src/store/a.cc src/store/a.cc src/client/b.cc src/client/b.cc
expect 'src/store/a.cc: 2 sites but 1 "// buggify:" comments'
echo "check-buggify: all planted disagreements caught"
