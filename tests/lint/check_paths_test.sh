#!/usr/bin/env bash
# Proves tools/check-paths.sh catches planted outside-repository paths (naming file, line and rule)
# and accepts paths that stay inside the tree. The planted strings are assembled from pieces so
# that this file itself names no outside path.
set -uo pipefail
script="$1"
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
fail() { echo "FAIL: $*"; exit 1; }

up=..
mkdir -p "$tmp/repo/tests/common" "$tmp/repo/docs" "$tmp/repo/tools"
repo="$tmp/repo"
cat > "$repo/tests/common/clean.cc" <<CC
// Reads fixtures from the repository's own tests/vectors.
const char* a = "$up/support/vectors.h";      // one step up from tests/common: still inside
const char* b = "a/$up/$up/x";                // two steps from depth 2: still inside
const char* range = "0${up}1100";             // a range, not a path
CC
printf 'cd "$(dirname "$0")/%s"\n' "$up" > "$repo/tools/run.sh"
printf 'See `tests/vectors/README.md`, and the ellipsis... of prose.\n' > "$repo/docs/a.md"
# Outside git (as on a minimal machine) what .gitignore names is skipped, as git would: a daemon's
# log under data/ may print absolute paths.
printf '/data/\n/build*/\n*.log\n' > "$repo/.gitignore"
mkdir -p "$repo/data/logs" "$repo/build-asan"
printf 'store in /ro''ot/project/data/store\n' > "$repo/data/logs/broker.log"
printf 'store in /ro''ot/project/data/store\n' > "$repo/build-asan/x.txt"
printf 'store in /ro''ot/project/data/store\n' > "$repo/tools/run.log"
out=$("$script" "$repo" 2>&1); rc=$?
[ $rc -eq 0 ] || fail "clean files were flagged: $out"

plant() {  # plant FILE LINE_TEXT EXPECTED_RULE
  printf 'first line\nsecond line\n%s\n' "$2" > "$repo/$1"
  out=$("$script" "$repo" 2>&1); rc=$?
  [ $rc -ne 0 ] || fail "planted '$2' in $1 was not caught"
  grep -qF "$1:3: $3" <<<"$out" || fail "planted '$2': expected '$1:3: $3', got: $out"
  rm -f "$repo/$1"
}
plant tests/common/v.cc "std::string dir = \"$up/sha""red/vectors\";" 'sibling folder'
plant docs/b.md "golden records from \`shared/vec""tors/stored_records.jsonl\`" 'sibling folder'
plant tests/common/v.cc 'const char* p = "/wo''rk/shared/x";' 'build machine path'
plant tests/common/v.cc 'const char* p = "/ho''me/dev/ferry/tests";' 'build machine path'
plant tools/x.sh "cp /ro""ot/data.bin ." 'build machine path'
plant tests/CMakeLists.txt "set(V \${PROJECT_SOURCE_DIR}/$up/fixtures)" 'above the root'
plant tools/y.sh "cat \"\$root/$up/other/file\"" 'above the root'
plant tests/common/v.cc "const char* p = \"$up/$up/$up/outside\";" 'climbs out'
plant README.md "see $up/notes.md" 'climbs out'
plant docs/c.md "(cd $up/$up && make)" 'climbs out'
# The folder that holds the repository, by its absolute path.
plant docs/d.md "data in $tmp/elsewhere" 'build machine path'
echo "check-paths: all planted violations caught"
