#!/usr/bin/env bash
# The determinism lint (DESIGN.md section 2): component code must not reach real time, threads,
# sockets, files, the environment or unseeded randomness; it uses the Runtime interfaces only.
# The simulator (sim/) is held to the same rules: it implements the runtime in virtual time.
#
#   tools/check-determinism.sh [ROOT]     (ROOT defaults to the repository)
#
# Prints "file:line: rule: text" for each violation and exits 1 if there is any. A line may opt
# out with a trailing "// determinism-ok: <reason>" comment (reviewed like any other code).
# What a script cannot see (iteration order of unordered containers reaching output) is left to
# review and to the simulator's same-seed-same-trace check.
set -uo pipefail

root=${1:-$(cd "$(dirname "$0")/.." && pwd)}
dirs=()
for d in src/common src/namesrv src/broker src/client src/store src/remoting sim; do
  [ -d "$root/$d" ] && dirs+=("$root/$d")
done
[ ${#dirs[@]} -eq 0 ] && { echo "check-determinism: no component directories under $root" >&2; exit 2; }

# rule name | extended regex
rules=(
  "thread header|#[[:space:]]*include[[:space:]]*<(thread|mutex|shared_mutex|condition_variable|future|atomic|semaphore|stop_token)>"
  "random header|#[[:space:]]*include[[:space:]]*<random>"
  "file/stream header|#[[:space:]]*include[[:space:]]*<(fstream|filesystem|iostream|cstdio|stdio\.h|ctime|time\.h|fcntl\.h|unistd\.h|sys/[a-z_]+\.h|netinet/[a-z_]+\.h|arpa/inet\.h|netdb\.h|pthread\.h|dirent\.h)>"
  "asio|boost/asio|asio::"
  "real clock|system_clock|steady_clock|high_resolution_clock|utc_clock|file_clock"
  "time()|(^|[^[:alnum:]_.>:])(::)?(time|gettimeofday|clock_gettime)[[:space:]]*\("
  "rand()|(^|[^[:alnum:]_.>:])(::)?(s?rand|drand48|lrand48|arc4random)[[:space:]]*\("
  "random_device|random_device|mt19937|default_random_engine|uniform_int_distribution"
  "environment|getenv|setenv|environ\b"
  "file I/O|(^|[^[:alnum:]_])(fopen|freopen|fdopen|openat|creat|mmap|fsync|fdatasync)[[:space:]]*\(|(^|[^[:alnum:]_:])::open[[:space:]]*\("
  "socket|(^|[^[:alnum:]_])(socket|bind|listen|accept|connect)[[:space:]]*\([[:space:]]*(AF_|PF_|fd|sock)|sockaddr"
  "thread|std::thread|std::jthread|std::async|pthread_|sleep_for|sleep_until|usleep|nanosleep"
  "process identity|getpid|gethostname|getuid"
  "console output|std::cout|std::cerr|std::clog|(^|[^[:alnum:]_])(printf|puts|fprintf)[[:space:]]*\("
)

status=0
while IFS= read -r -d '' file; do
  for entry in "${rules[@]}"; do
    name=${entry%%|*}
    regex=${entry#*|}
    # Drop whole-line comments, then match; allow an explicit opt-out marker.
    while IFS= read -r hit; do
      [ -z "$hit" ] && continue
      line=${hit%%:*}
      text=${hit#*:}
      case "$text" in *"determinism-ok:"*) continue ;; esac
      trimmed=$(printf '%s' "$text" | sed -e 's/^[[:space:]]*//')
      case "$trimmed" in "//"*|"*"*|"/*"*) continue ;; esac
      echo "${file#"$root"/}:$line: $name: $trimmed"
      status=1
    done < <(grep -nE -- "$regex" "$file" 2>/dev/null)
  done
done < <(find "${dirs[@]}" -type f \( -name '*.h' -o -name '*.hpp' -o -name '*.cc' -o -name '*.cpp' \) -print0 | sort -z)

if [ $status -ne 0 ]; then
  echo "check-determinism: component code must use the Runtime interfaces (DESIGN.md section 2)" >&2
fi
exit $status
