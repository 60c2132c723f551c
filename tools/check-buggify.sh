#!/usr/bin/env bash
# The buggify-site lint: the FERRY_BUGGIFY sites under src/ and the table "Buggify sites" in
# docs/simulator.md must agree, file by file, and every site must say what legal path it takes.
#
#   tools/check-buggify.sh [ROOT]     (ROOT defaults to the repository)
#
# A site is a FERRY_BUGGIFY( call in a file under src/ (the macro's own #define does not count).
# The doc table has one row per site, its first cell the file in backquotes:
#   | `src/store/flush_service.cc` | what the site does | the guarantee it exercises |
# Prints one line per disagreement and exits 1 if there is any:
#   FILE: N sites in the code, M rows in docs/simulator.md
#   FILE: N sites but M "// buggify:" comments (each site has a one-line comment saying its path)
set -uo pipefail

root=${1:-$(cd "$(dirname "$0")/.." && pwd)}
root=$(cd "$root" && pwd) || { echo "check-buggify: no folder $1" >&2; exit 2; }
doc="$root/docs/simulator.md"
[ -f "$doc" ] || { echo "check-buggify: no $doc" >&2; exit 2; }
cd "$root" || exit 2

# "count file" lines, sorted by file.
code_sites() {
  grep -rc --include='*.cc' --include='*.h' --include='*.ipp' 'FERRY_BUGGIFY(' src 2>/dev/null |
    while IFS=: read -r file n; do
      defines=$(grep -c '#define FERRY_BUGGIFY(' "$file")
      n=$((n - defines))
      [ "$n" -gt 0 ] && echo "$n $file"
    done | sort -k2
}
comment_count() { grep -c '// buggify: ' "$1"; }
# The rows of the table that follows the "## Buggify sites" heading (up to the next heading).
doc_sites() {
  awk '/^## Buggify sites/ { inside = 1; next } /^## / { inside = 0 } inside' "$doc" |
    sed -n 's/^| *`\(src\/[^`]*\)` *|.*/\1/p' | sort | uniq -c | awk '{ print $1, $2 }' | sort -k2
}

status=0
code=$(code_sites)
rows=$(doc_sites)
if ! grep -q '^## Buggify sites' "$doc"; then
  echo "docs/simulator.md: no section \"## Buggify sites\""; status=1
fi
files=$( { echo "$code"; echo "$rows"; } | awk 'NF == 2 { print $2 }' | sort -u)
for file in $files; do
  n=$(echo "$code" | awk -v f="$file" '$2 == f { print $1 }'); n=${n:-0}
  m=$(echo "$rows" | awk -v f="$file" '$2 == f { print $1 }'); m=${m:-0}
  if [ "$n" != "$m" ]; then
    echo "$file: $n sites in the code, $m rows in docs/simulator.md"; status=1
  fi
  if [ "$n" -gt 0 ]; then
    c=$(comment_count "$file")
    if [ "$c" != "$n" ]; then
      echo "$file: $n sites but $c \"// buggify:\" comments (each site says what legal path it takes)"; status=1
    fi
  fi
done
[ $status -eq 0 ] && echo "check-buggify: $(echo "$code" | awk '{ s += $1 } END { print s + 0 }') sites in $(echo "$code" | grep -c .) files, all documented"
exit $status
