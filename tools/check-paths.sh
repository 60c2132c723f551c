#!/usr/bin/env bash
# The outside-path lint: no source, test, script, build file or doc may name a path outside the
# repository. A user's clone has nothing beside it, so a fixture read from a neighbouring folder, a
# build machine's absolute path, or a relative path that climbs out of the tree works on one
# machine and breaks on every other.
#
#   tools/check-paths.sh [ROOT]     (ROOT defaults to the repository)
#
# Scans the files git tracks under ROOT (every file under ROOT when it is not a git work tree),
# skipping binary files. Prints "file:line: rule: text" for each violation, exits 1 if there is any.
# Rules:
#   sibling folder      the reference folder that sits beside a developer's clone, or its vectors
#   build machine path  an absolute path under the usual work and home folders, or under the
#                       folder that holds ROOT (unless that is a system folder such as /tmp)
#   climbs out          a relative path whose parent steps outnumber the folders between ROOT and
#                       the file (it leaves the tree whether it is read from the file's folder or
#                       from ROOT)
#   above the root      a root-like variable (the CMake source dir, a script's root or top)
#                       followed by a parent step
set -uo pipefail

root=${1:-$(cd "$(dirname "$0")/.." && pwd)}
root=$(cd "$root" && pwd) || { echo "check-paths: no folder $1" >&2; exit 2; }
parent=$(dirname "$root")

list_files() {
  if git -C "$root" rev-parse --is-inside-work-tree >/dev/null 2>&1 &&
     [ "$(git -C "$root" rev-parse --show-toplevel)" = "$root" ]; then
    git -C "$root" ls-files -z --cached --others --exclude-standard
  else
    # No git here (a minimal machine, an unpacked archive): skip what .gitignore names, as git
    # would (top-level patterns: "/dir/" and "/glob*/" anchored at the root, "*.ext" anywhere).
    local prune=(-path ./.git)
    if [ -f "$root/.gitignore" ]; then
      local pat
      while IFS= read -r pat; do
        pat=${pat%%#*}; pat=${pat%/}; pat=${pat// /}
        [ -z "$pat" ] && continue
        case "$pat" in
          /*) prune+=(-o -path ".$pat") ;;
          */*) prune+=(-o -path "./$pat") ;;
          *) prune+=(-o -name "$pat") ;;
        esac
      done < "$root/.gitignore"
    fi
    (cd "$root" && find . \( "${prune[@]}" \) -prune -o -type f -print0 | sed -z 's|^\./||')
  fi
}

# Candidate files: text files only (grep -I), NUL-separated.
files=$(mktemp)
trap 'rm -f "$files"' EXIT
list_files > "$files"

# Prints file:line:text for lines of the listed files matching the extended regex $1.
scan() { (cd "$root" && xargs -0 grep -nIE -- "$1" < "$files" 2>/dev/null); }
scan_fixed() { (cd "$root" && xargs -0 grep -nIF -- "$1" < "$files" 2>/dev/null); }

# rule name | extended regex (matched per line)
rules=(
  "sibling folder|\.\./shared([^[:alnum:]_]|$)|(^|[^[:alnum:]_])shared/vector[s]"
  "build machine path|(^|[^[:alnum:]_.~-])/(work|home|root|Users)/"
  "above the root|(PROJECT_SOURCE_DIR|CMAKE_SOURCE_DIR|FERRY_SOURCE_DIR|[$][{(]?(root|top|ROOT|TOP))[})\"]*/\.\.([^.]|$)"
)

out=$(
  for entry in "${rules[@]}"; do
    scan "${entry#*|}" | awk -v rule="${entry%%|*}" '{ print rule "\t" $0 }'
  done
  # The folder that holds ROOT, unless it is a system folder that docs name for their own reasons
  # (a clone in /tmp must not make every "/tmp/..." example a violation).
  case "$parent" in
    /|/tmp|/var/tmp|/opt|/srv|/usr|/usr/local|/var|/mnt|/media) parent=/ ;;
  esac
  if [ "$parent" != "/" ]; then
    scan_fixed "$parent/" | awk '{ print "build machine path\t" $0 }'
  fi
  # Relative paths: a run of ".." steps that leaves the tree from the file's own folder (and so
  # from the root too).
  scan '(^|[^[:alnum:]_.])\.\.(/|[^[:alnum:]_./]|$)' | awk '
    {
      i = index($0, ":"); file = substr($0, 1, i - 1); rest = substr($0, i + 1)
      j = index(rest, ":"); text = substr(rest, j + 1)
      depth = gsub(/\//, "/", file)
      s = " " text " "; most = 0
      while (match(s, /[^[:alnum:]_.]\.\.(\/\.\.)*([^[:alnum:]_.\/]|\/)/)) {
        run = substr(s, RSTART + 1, RLENGTH - 1); n = gsub(/\.\./, "", run)
        if (n > most) most = n
        s = substr(s, RSTART + RLENGTH - 1)
      }
      if (most > depth) print "climbs out\t" $0
    }'
)

if [ -n "$out" ]; then
  printf '%s\n' "$out" | sort -u | sort -t: -k1,1 -k2,2n -s | awk -F'\t' '
    { i = index($2, ":"); file = substr($2, 1, i - 1); rest = substr($2, i + 1)
      j = index(rest, ":"); line = substr(rest, 1, j - 1); text = substr(rest, j + 1)
      sub(/^[ \t]+/, "", text); print file ":" line ": " $1 ": " substr(text, 1, 160) }'
  status=1
else
  status=0
fi

if [ $status -ne 0 ]; then
  echo "check-paths: the project may only name paths inside the repository (a clone has nothing beside it)" >&2
fi
exit $status
