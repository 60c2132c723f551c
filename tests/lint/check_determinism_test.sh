#!/usr/bin/env bash
# Proves tools/check-determinism.sh catches planted violations (naming file and line) and accepts
# clean component code, comments and the opt-out marker.
set -uo pipefail
script="$1"
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
fail() { echo "FAIL: $*"; exit 1; }

mkdir -p "$tmp/src/store" "$tmp/src/broker" "$tmp/src/client"
cat > "$tmp/src/store/clean.cc" <<'CC'
#include <map>
// std::thread is mentioned in a comment only
/* a block comment that names std::mutex,
 * and std::this_thread::sleep_for on a line that begins with a star,
   and time(nullptr) */
Clock& clock() { return clock_; }
int n = rt.fs().rename("a", "b").ok() ? 1 : 0;
Task<void> flush(Runtime& rt) { co_await rt.sleep(500ms); auto f = rt.fs().open("x", {}); (void)f; }
WallMs now_ms(Runtime& rt) { return rt.clock().wall_ms(); }
std::uint64_t pick(Runtime& rt) { return rt.random().below(4); }
CC
out=$("$script" "$tmp" 2>&1); rc=$?
[ $rc -eq 0 ] || fail "clean code was flagged: $out"

plant() {  # plant FILE LINE_TEXT EXPECTED_RULE
  printf '#include <map>\nint ok = 1;\n%s\n' "$2" > "$tmp/$1"
  out=$("$script" "$tmp" 2>&1); rc=$?
  [ $rc -ne 0 ] || fail "planted '$2' was not caught"
  grep -q "^$1:3: $3" <<<"$out" || fail "planted '$2': expected '$1:3: $3', got: $out"
  rm -f "$tmp/$1"
}
plant src/broker/a.cc '#include <thread>' 'thread header'
plant src/broker/a.cc '#include <mutex>' 'thread header'
plant src/client/b.cc '#include <random>' 'random header'
plant src/store/c.cc 'auto t = std::chrono::steady_clock::now();' 'real clock'
plant src/store/c.cc 'auto t = std::chrono::system_clock::now();' 'real clock'
plant src/store/c.cc 'long t = time(nullptr);' 'time()'
plant src/store/c.cc 'int r = rand();' 'rand()'
plant src/store/c.cc 'std::random_device rd;' 'random_device'
plant src/store/c.cc 'const char* h = getenv("HOME");' 'environment'
plant src/store/c.cc 'FILE* f = fopen("x", "r");' 'file I/O'
plant src/store/c.cc 'int fd = ::open("x", 0);' 'file I/O'
plant src/store/c.cc '#include <boost/asio.hpp>' 'asio'
plant src/store/c.cc 'int s = socket(AF_INET, 1, 0);' 'socket'
plant src/store/c.cc 'std::thread t([]{});' 'thread'
# Holes closed later: qualified C calls, dereference lines, synchronisation types, any chrono clock,
# raw POSIX I/O, and the .inl/.ipp extensions.
plant src/store/c.cc 'auto t = std::time(nullptr);' 'time()'
plant src/store/c.cc 'int r = std::rand();' 'rand()'
plant src/store/c.cc 'auto c = std::clock();' 'time()'
plant src/store/c.cc '*out = std::rand() % 6;' 'rand()'
plant src/store/c.cc '*clock_ptr = ::time(nullptr);' 'time()'
plant src/store/c.cc 'std::mutex mu;' 'thread'
plant src/store/c.cc 'std::lock_guard<Lock> g(lock);' 'thread'
plant src/store/c.cc 'std::atomic<int> counter{0};' 'thread'
plant src/store/c.cc 'std::this_thread::yield();' 'thread'
plant src/store/c.cc 'auto t = std::chrono::tai_clock::now();' 'real clock'
plant src/store/c.cc 'auto t = std::chrono::my_fancy_clock::now();' 'real clock'
plant src/store/c.cc 'auto n = ::read(fd, buf, 16);' 'file I/O'
plant src/store/c.cc 'auto n = ::write(fd, buf, 16);' 'file I/O'
plant src/store/c.cc 'std::rename("a", "b");' 'file I/O'
plant src/store/c.inl 'int r = rand();' 'rand()'
plant src/store/c.ipp 'std::thread t([]{});' 'thread'
plant src/store/c.cc 'int x = 1; /* closed */ std::thread t([]{});' 'thread'

# The simulator is held to the rules, all but sim/io (exempt by name: files and the environment)
# and sim/real (real processes).
mkdir -p "$tmp/sim/scenario" "$tmp/sim/io" "$tmp/sim/iox" "$tmp/sim/real" "$tmp/sim/realx"
plant sim/realx/a.cc 'std::thread t([]{});' 'thread'
printf 'std::thread t([]{});\npid_t p = fork();\n' > "$tmp/sim/real/host.cc"
plant sim/scenario/a.cc 'FILE* f = fopen("x", "r");' 'file I/O'
plant sim/a.cc 'const char* h = getenv("HOME");' 'environment'
plant sim/iox/a.cc 'FILE* f = fopen("x", "r");' 'file I/O'
printf 'FILE* f = fopen("x", "r");\nconst char* h = getenv("HOME");\n' > "$tmp/sim/io/history_file.cc"
out=$("$script" "$tmp" 2>&1); rc=$?
[ $rc -eq 0 ] || fail "sim/io and sim/real were not exempt: $out"
rm -f "$tmp/sim/io/history_file.cc" "$tmp/sim/real/host.cc"

printf 'long t = time(nullptr);  // determinism-ok: test of the marker\n' > "$tmp/src/store/d.cc"
out=$("$script" "$tmp" 2>&1); rc=$?
[ $rc -eq 0 ] || fail "the opt-out marker was not honoured: $out"
echo "check-determinism: all planted violations caught"
