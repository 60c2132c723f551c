#!/usr/bin/env bash
# The determinism lint (docs/runtime.md, "Determinism rules"): component code must not reach real time, threads,
# sockets, files, the environment or unseeded randomness; it uses the Runtime interfaces only.
# The simulator (sim/) is held to the same rules: it implements the runtime in virtual time. Two
# folders of it are exempt by name: sim/io, the simulator's only contact with files and the
# environment (history, scenario and replay files; docs/architecture.md), and sim/real, which runs
# scenario files on real processes (`mqsim run --real`: namespaces, child processes, threads).
#
#   tools/check-determinism.sh [ROOT]     (ROOT defaults to the repository)
#
# Prints "file:line: rule: text" for each violation and exits 1 if there is any. Comments (// and
# /* */, across lines) are removed before matching, so a line that begins with `*` is code unless
# it is inside a block comment. A line may opt out with a trailing "// determinism-ok: <reason>"
# comment (reviewed like any other code). Files: .h .hpp .cc .cpp .inl .ipp.
# What a script cannot see (iteration order of unordered containers reaching output) is left to
# review and to the simulator's same-seed-same-trace check.
set -uo pipefail

root=${1:-$(cd "$(dirname "$0")/.." && pwd)}
dirs=()
for d in src/common src/namesrv src/controller src/broker src/client src/store src/remoting src/proxy sim; do
  [ -d "$root/$d" ] && dirs+=("$root/$d")
done
[ ${#dirs[@]} -eq 0 ] && { echo "check-determinism: no component directories under $root" >&2; exit 2; }

# rule name | extended regex (matched against code with comments removed)
rules=(
  "thread header|#[[:space:]]*include[[:space:]]*<(thread|mutex|shared_mutex|condition_variable|future|atomic|semaphore|stop_token|barrier|latch)>"
  "random header|#[[:space:]]*include[[:space:]]*<random>"
  "file/stream header|#[[:space:]]*include[[:space:]]*<(fstream|filesystem|iostream|cstdio|stdio\.h|ctime|time\.h|fcntl\.h|unistd\.h|sys/[a-z_]+\.h|netinet/[a-z_]+\.h|arpa/inet\.h|netdb\.h|pthread\.h|dirent\.h)>"
  "asio|boost/asio|asio::"
  "real clock|system_clock|steady_clock|high_resolution_clock|utc_clock|file_clock|tai_clock|gps_clock|chrono::[[:alnum:]_]*_clock"
  "time()|(^|[^[:alnum:]_.>:])(::)?(time|gettimeofday|clock_gettime)[[:space:]]*\(|(^|[^[:alnum:]_.>:])(::|std::)(clock|localtime|gmtime|mktime|timespec_get)[[:space:]]*\(|std::time[[:space:]]*\("
  "rand()|(^|[^[:alnum:]_.>:])(::)?(s?rand|drand48|lrand48|arc4random|random_r)[[:space:]]*\(|std::s?rand[[:space:]]*\("
  "random_device|random_device|mt19937|default_random_engine|minstd_rand|ranlux|uniform_int_distribution|uniform_real_distribution"
  "environment|getenv|setenv|environ\b"
  "file I/O|(^|[^[:alnum:]_])(fopen|freopen|fdopen|openat|creat|mmap|fsync|fdatasync)[[:space:]]*\(|(^|[^[:alnum:]_:.>])::(open|read|write|pread|pwrite|close|lseek|unlink|rename|ftruncate)[[:space:]]*\(|std::(rename|remove|tmpfile|tmpnam)[[:space:]]*\("
  "socket|(^|[^[:alnum:]_])(socket|bind|listen|accept|connect)[[:space:]]*\([[:space:]]*(AF_|PF_|fd|sock)|sockaddr"
  "thread|std::thread|std::jthread|std::async|std::this_thread|std::(recursive_|timed_|shared_)?mutex|std::condition_variable|std::atomic|std::(lock_guard|unique_lock|scoped_lock)|pthread_|sleep_for|sleep_until|usleep|nanosleep"
  "process identity|getpid|gethostname|getuid"
  "console output|std::cout|std::cerr|std::clog|(^|[^[:alnum:]_])(printf|puts|fprintf)[[:space:]]*\("
)

# Every component file, its comments blanked (so a line that begins with `*` is code unless it is
# inside a /* */ comment), as "file:line:code". A line holding "determinism-ok:" is left out.
code=$(mktemp)
trap 'rm -f "$code"' EXIT
find "${dirs[@]}" \( -path "$root/sim/io" -o -path "$root/sim/real" \) -prune -o -type f \( -name '*.h' -o -name '*.hpp' -o -name '*.cc' -o -name '*.cpp' -o -name '*.inl' -o -name '*.ipp' \) -print0 |
  sort -z | xargs -0 awk -v root="$root/" '
    FNR == 1 { in_block = 0; name = FILENAME; if (index(name, root) == 1) name = substr(name, length(root) + 1) }
    {
      line = $0; out = ""; i = 1; n = length(line); quote = ""
      while (i <= n) {
        c = substr(line, i, 1); two = substr(line, i, 2)
        if (in_block) {
          if (two == "*/") { in_block = 0; i += 2; out = out "  " } else { i++; out = out " " }
          continue
        }
        if (quote != "") {
          out = out c
          if (c == "\\") { out = out substr(line, i + 1, 1); i += 2; continue }
          if (c == quote) quote = ""
          i++; continue
        }
        if (two == "//") break
        if (two == "/*") { in_block = 1; i += 2; out = out "  "; continue }
        if (c == "\"" || c == "'\''") quote = c
        out = out c; i++
      }
      if (index(line, "determinism-ok:") > 0) next
      if (out ~ /[^[:space:]]/) print name ":" FNR ":" out
    }' > "$code"

status=0
for entry in "${rules[@]}"; do
  name=${entry%%|*}
  regex=${entry#*|}
  while IFS= read -r hit; do
    [ -z "$hit" ] && continue
    file=${hit%%:*}; rest=${hit#*:}
    line=${rest%%:*}; text=${rest#*:}
    echo "$file:$line: $name: $(printf '%s' "$text" | sed -e 's/^[[:space:]]*//')"
    status=1
  done < <(cut -d: -f3- "$code" | grep -nE -- "$regex" | cut -d: -f1 | while read -r n; do sed -n "${n}p" "$code"; done)
done

if [ $status -ne 0 ]; then
  echo "check-determinism: component code must use the Runtime interfaces (docs/runtime.md, "Determinism rules")" >&2
fi
exit $status
