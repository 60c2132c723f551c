// mqbench hostile: what another client sees while a broker serves a hostile request (issue 17's
// freezes), against a baseline measured in the same run.
//
// A probe (hostile_probe.h) sends a 1-byte SEND every few ms on its own connection for the whole
// run. First a quiet baseline; then each hostile case in turn, on a connection of its own, each
// followed by a quiet gap. For each case: the probe's p50 / p99 / max latency over the samples
// that overlapped the case (from the hostile request until its outcome, at least one second),
// beside the baseline's, and the hostile request's own outcome (reply code and time, or how the
// connection ended). Every wait has a deadline, so a frozen or crashed broker ends the case with
// a timeout, not a hang.
//
// The cases:
//  (a) a SEND whose properties field holds 1 MiB of distinct short keys;
//  (b) a PULL with a tag filter that matches nothing over a queue of --messages small messages
//      (tag "a"), maxMsgNums --pull-max;
//  (c) VIEW_MESSAGE_BY_ID inside a record (at the body of a message whose first 4 bytes read as a
//      64 KiB size) and at a huge offset (2^62);
//  (d) a slow reader: --slow-pulls pulls of about 256 KiB replies each on one connection whose
//      receive buffer is 4 KiB and which never reads; the broker's RssAnon (/proc/PID/status) is
//      sampled before, at its peak during, and after the connection is closed, when the broker
//      runs here (--pid, or the only process named mqbroker).
//
// Set-up (idempotent, so old and new brokers get the same data shape): topics HostileProbe,
// HostileScan, HostileView and HostileBig (one queue each); HostileView given one crafted message
// per run, then HostileScan filled up to --messages messages and HostileBig up to 16 of 60 KiB.
#include <fmt/format.h>

#include <cstdio>
#include <dirent.h>
#include <fstream>
#include <optional>
#include <thread>

#include "common/record_format.h"
#include "remoting/response_code.h"
#include "tools/bench/hostile_probe.h"
#include "tools/bench/hostile_setup.h"
#include "tools/bench/mqbench.h"
#include "tools/bench/mqbench_common.h"
#include "tests/support/proc_status.h"
#include "tests/support/requests.h"

namespace ferry::bench {

namespace {

constexpr std::string_view kSub = "hostile";
constexpr auto kMinWindow = std::chrono::seconds(1);
constexpr auto kQuietGap = std::chrono::milliseconds(300);
constexpr std::int64_t kBigMessages = 16;
constexpr std::size_t kBigBodyBytes = 60 * 1024;  // a record under 64 KiB: fits a small maxMessageSize too

struct Options {
  std::string broker;
  std::int64_t messages = 100'000;
  std::int32_t pull_max = 1'000'000;
  std::int64_t slow_pulls = 4'000;
  std::chrono::milliseconds interval{5};
  std::chrono::milliseconds baseline{2'000};
  std::chrono::milliseconds probe_timeout{60'000};
  std::chrono::milliseconds hostile_timeout{120'000};
  std::chrono::milliseconds slow_hold{3'000};
  std::int64_t pid = 0;
  std::string cases = "abcd";
};

double ms_since(WireClock::time_point t0) {
  return std::chrono::duration<double, std::milli>(WireClock::now() - t0).count();
}

std::string shorten(std::string s, std::size_t max = 90) {
  for (char& c : s) {
    if (static_cast<unsigned char>(c) < 0x20) c = ' ';
  }
  if (s.size() > max) s = s.substr(0, max) + "...";
  return s;
}

// "reply 13 MESSAGE_ILLEGAL after 2.10 ms, 0 body bytes: remark" or "connection ended after ...".
std::string outcome_text(const Result<WireReply>& r, WireClock::time_point t0) {
  if (!r.ok()) {
    const char* what = r.error().is(Errc::timed_out) ? "no reply (timed out)" : "connection ended";
    return fmt::format("{} after {:.2f} ms: {}", what, ms_since(t0), shorten(r.error().to_string()));
  }
  std::string extra;
  if (const std::string* next = r->command.ext_fields.find("nextBeginOffset")) {
    extra = fmt::format(", nextBeginOffset {}", *next);
  }
  return fmt::format("reply {} after {:.2f} ms, {} body bytes{}{}", testing::code_text(r->command.code), ms_since(t0),
                     r->body_bytes, extra, r->command.remark ? ": " + shorten(*r->command.remark) : "");
}

std::string stats_text(const ProbeStats& s) {
  return fmt::format("n={} p50 {:.2f} p99 {:.2f} max {:.2f} ms{}", s.count, s.p50_ms, s.p99_ms, s.max_ms,
                     s.failed > 0 ? fmt::format(" ({} failed)", s.failed) : "");
}

// RssAnon of `pid` in KiB, or nullopt (tests/support/proc_status.h).
std::optional<std::int64_t> rss_anon_kib(std::int64_t pid) {
  if (pid <= 0 || pid > INT32_MAX) return std::nullopt;
  return testing::rss_anon_kib(static_cast<pid_t>(pid));
}

// The pid of the only process named mqbroker, or 0 (none, or several).
std::int64_t find_broker_pid() {
  DIR* d = ::opendir("/proc");
  if (d == nullptr) return 0;
  std::int64_t found = 0;
  int count = 0;
  while (dirent* e = ::readdir(d)) {
    const std::string name = e->d_name;
    if (name.empty() || name.find_first_not_of("0123456789") != std::string::npos) continue;
    std::ifstream comm("/proc/" + name + "/comm");
    std::string c;
    if (std::getline(comm, c) && c == "mqbroker") {
      found = std::stoll(name);
      ++count;
    }
  }
  ::closedir(d);
  return count == 1 ? found : 0;
}

class HostileRun {
 public:
  explicit HostileRun(Options o) : o_(std::move(o)), probe_(o_.broker, "HostileProbe", o_.interval, o_.probe_timeout) {}

  int run() {
    if (Status st = set_up(); !st.ok()) {
      std::fprintf(stderr, "mqbench hostile: set-up failed: %s\n", st.error().to_string().c_str());
      return kExitFailed;
    }
    probe_.start();
    const auto b0 = WireClock::now();
    std::this_thread::sleep_for(o_.baseline);
    baseline_ = probe_.stats(b0, WireClock::now());
    std::printf("broker %s; probe: a 1-byte SEND every %lld ms\n", o_.broker.c_str(),
                static_cast<long long>(o_.interval.count()));
    std::printf("quiet baseline              probe %s\n", stats_text(baseline_).c_str());
    if (o_.cases.find('a') != std::string::npos) case_properties();
    if (o_.cases.find('b') != std::string::npos) case_filter_scan();
    if (o_.cases.find('c') != std::string::npos) case_view();
    if (o_.cases.find('d') != std::string::npos) case_slow_reader();
    std::printf("done\n");
    return kExitOk;
  }

 private:
  Status set_up() {
    WireConn conn;
    FERRY_TRY(conn.connect(o_.broker, kSetupCallTimeout));
    for (const char* t : {"HostileProbe", "HostileScan", "HostileView", "HostileBig"}) FERRY_TRY(create_topic(conn, t));
    // The crafted record first: on a fresh store the scanned queue's records follow it, so the
    // size its body forges (64 KiB) lies within written bytes, as an attacker would choose it.
    const std::string crafted = std::string("\x00\x01\x00\x00", 4) + "hostile";
    auto at = fill_queue(conn, "HostileView", 1, crafted, "", 1);
    if (!at.ok()) return std::move(at).error();
    crafted_record_ = *at;
    auto have = max_offset(conn, "HostileScan");
    if (!have.ok()) return std::move(have).error();
    if (*have < o_.messages) {
      const auto t0 = WireClock::now();
      auto filled = fill_queue(conn, "HostileScan", o_.messages - *have, "0123456789abcdef", "TAGS\x01" "a", 256);
      if (!filled.ok()) return std::move(filled).error();
      std::printf("set-up: %lld messages sent to HostileScan in %.1f s\n", static_cast<long long>(o_.messages - *have),
                  ms_since(t0) / 1000);
    }
    auto big = max_offset(conn, "HostileBig");
    if (!big.ok()) return std::move(big).error();
    if (*big < kBigMessages) {
      auto filled = fill_queue(conn, "HostileBig", kBigMessages - *big, std::string(kBigBodyBytes, 'b'), "", 4);
      if (!filled.ok()) return std::move(filled).error();
    }
    return {};
  }

  // Runs one hostile request: `fire` returns its outcome text. Prints the case line.
  template <typename Fire>
  void run_case(const std::string& label, Fire fire) {
    std::this_thread::sleep_for(kQuietGap);
    const auto t0 = WireClock::now();
    const std::string outcome = fire(t0);
    const auto end = std::max(WireClock::now(), t0 + kMinWindow);
    std::this_thread::sleep_until(end);
    probe_.wait_answered_since(end, o_.probe_timeout);
    const ProbeStats during = probe_.stats(t0, end);
    std::printf("%-27s probe %s   (quiet: p50 %.2f p99 %.2f max %.2f ms)\n", label.c_str(), stats_text(during).c_str(),
                baseline_.p50_ms, baseline_.p99_ms, baseline_.max_ms);
    std::printf("%-27s hostile: %s\n", "", outcome.c_str());
    std::fflush(stdout);
  }

  // One request on a fresh connection, its reply awaited.
  std::string call_once(remoting::RemotingCommand request, WireClock::time_point t0) {
    WireConn conn;
    if (Status st = conn.connect(o_.broker, kSetupCallTimeout); !st.ok()) {
      return "could not connect: " + st.error().to_string();
    }
    return outcome_text(conn.call(std::move(request), o_.hostile_timeout, 0), t0);
  }

  void case_properties() {
    std::string props;
    std::size_t keys = 0;
    while (props.size() < (1u << 20)) {
      if (!props.empty()) props.push_back('\x02');
      props += fmt::format("k{:x}\x01v", keys++);
    }
    run_case(fmt::format("(a) properties, {} keys", keys), [&](WireClock::time_point t0) {
      return call_once(hostile_send("HostileProbe", "x", props), t0);
    });
  }

  void case_filter_scan() {
    run_case(fmt::format("(b) filter scan, {} msgs", o_.messages), [&](WireClock::time_point t0) {
      return call_once(hostile_pull("HostileScan", 0, o_.pull_max, "nomatch"), t0);
    });
  }

  void case_view() {
    // The body of a record with IPv4 hosts starts after the fixed fields before it.
    constexpr std::int64_t kBodyPos = record::kBornHostPos + record::kHostV4Bytes + record::kStoreTimestampBytes +
                                      record::kHostV4Bytes + record::kReconsumeTimesBytes +
                                      record::kPreparedTransactionOffsetBytes + record::kBodyLengthBytes;
    static_assert(kBodyPos == 88, "RocketMQ's record puts the body at byte 88 with IPv4 hosts");
    run_case("(c) view inside a record", [&](WireClock::time_point t0) {
      return call_once(testing::view_request(crafted_record_ + kBodyPos), t0);
    });
    run_case("(c) view at offset 2^62", [&](WireClock::time_point t0) {
      return call_once(testing::view_request(std::int64_t{1} << 62), t0);
    });
  }

  void case_slow_reader() {
    const std::int64_t pid = o_.pid > 0 ? o_.pid : find_broker_pid();
    const std::optional<std::int64_t> rss_before = rss_anon_kib(pid);
    std::int64_t rss_peak = rss_before.value_or(0);
    std::string outcome;
    run_case(fmt::format("(d) slow reader, {} pulls", o_.slow_pulls), [&](WireClock::time_point t0) {
      WireConn conn;
      if (Status st = conn.connect(o_.broker, kSetupCallTimeout, 4096); !st.ok()) {
        return "could not connect: " + st.error().to_string();
      }
      std::int64_t written = 0;
      std::string how = "all written";
      const auto stall_limit = std::chrono::seconds(2);
      while (written < o_.slow_pulls) {
        auto done = conn.send_without_blocking(hostile_pull("HostileBig", 0, 32, "*"), WireClock::now() + stall_limit);
        if (!done.ok()) {
          how = "connection ended: " + done.error().to_string();
          break;
        }
        if (!*done) {
          how = fmt::format("writes stalled {} s (the broker stopped reading)", stall_limit.count());
          break;
        }
        ++written;
        if (written % 256 == 0) rss_peak = std::max(rss_peak, rss_anon_kib(pid).value_or(0));
      }
      const auto hold_until = WireClock::now() + o_.slow_hold;
      while (WireClock::now() < hold_until) {
        rss_peak = std::max(rss_peak, rss_anon_kib(pid).value_or(0));
        std::this_thread::sleep_for(std::chrono::milliseconds(100));
      }
      conn.close();
      return fmt::format("{} of {} pulls written in {:.0f} ms ({}), held {} s unread, then closed", written,
                         o_.slow_pulls, ms_since(t0) - static_cast<double>(o_.slow_hold.count()), how,
                         o_.slow_hold.count() / 1000);
    });
    std::this_thread::sleep_for(std::chrono::seconds(1));
    const std::optional<std::int64_t> rss_after = rss_anon_kib(pid);
    if (rss_before && rss_after) {
      std::printf("%-27s broker pid %lld RssAnon: before %lld KiB, peak %lld KiB (+%lld), 1 s after close %lld KiB\n", "",
                  static_cast<long long>(pid), static_cast<long long>(*rss_before), static_cast<long long>(rss_peak),
                  static_cast<long long>(rss_peak - *rss_before), static_cast<long long>(*rss_after));
    } else {
      std::printf("%-27s broker RssAnon not measured (no --pid, and not exactly one process named mqbroker here)\n", "");
    }
  }

  Options o_;
  HostileProbe probe_;
  ProbeStats baseline_;
  std::int64_t crafted_record_ = 0;
};

}  // namespace

int hostile_main(std::span<const std::string> args) {
  static const std::vector<cli::FlagSpec> kSpecs = {
      {'b', "broker", "ADDR", "the broker, ip:port (default: the master serving TBW102, asked of -n)"},
      {'m', "messages", "N", "messages in the scanned queue (default 100000)"},
      {0, "pull-max", "N", "maxMsgNums of the filtered pull (default 1000000)"},
      {0, "slow-pulls", "N", "pulls the slow reader sends (default 4000)"},
      {'i', "interval-ms", "MS", "the probe's period (default 5)"},
      {0, "baseline-s", "S", "quiet baseline before the cases (default 2)"},
      {0, "probe-timeout-s", "S", "the probe's wait for one reply (default 60)"},
      {0, "timeout-s", "S", "the wait for a hostile request's outcome (default 120)"},
      {0, "pid", "PID", "the broker's pid, for its RssAnon (default: the only process named mqbroker)"},
      {'c', "cases", "LETTERS", "which cases to run, of abcd (default abcd)"},
  };
  auto parsed = parse_args(kSub, "the latency another client sees while a broker serves hostile requests", kSpecs, args);
  if (std::holds_alternative<int>(parsed)) return std::get<int>(parsed);
  const BenchArgs& a = std::get<BenchArgs>(parsed);
  if (a.tls.client.enable) return usage_error(kSub, "--tls / --tls-config: hostile speaks plain TCP only (raw frames)");
  Options o;
  auto num = [&](std::string_view name, std::int64_t lo, std::int64_t hi, std::int64_t fallback) -> std::optional<std::int64_t> {
    auto v = a.flags.int_in(name, lo, hi, fallback);
    if (!v.ok()) return std::nullopt;
    return *v;
  };
  const auto messages = num("messages", 1, 100'000'000, o.messages);
  const auto pull_max = num("pull-max", 1, INT32_MAX, o.pull_max);
  const auto slow = num("slow-pulls", 1, 10'000'000, o.slow_pulls);
  const auto interval = num("interval-ms", 1, 10'000, o.interval.count());
  const auto baseline = num("baseline-s", 1, 3600, 2);
  const auto probe_timeout = num("probe-timeout-s", 1, 3600, 60);
  const auto timeout = num("timeout-s", 1, 3600, 120);
  const auto pid = num("pid", 0, INT32_MAX, 0);
  if (!messages || !pull_max || !slow || !interval || !baseline || !probe_timeout || !timeout || !pid) {
    return usage_error(kSub, "a number flag is out of range (see --help)");
  }
  o.messages = *messages;
  o.pull_max = static_cast<std::int32_t>(*pull_max);
  o.slow_pulls = *slow;
  o.interval = std::chrono::milliseconds(*interval);
  o.baseline = std::chrono::seconds(*baseline);
  o.probe_timeout = std::chrono::seconds(*probe_timeout);
  o.hostile_timeout = std::chrono::seconds(*timeout);
  o.pid = *pid;
  o.cases = a.flags.get_or("cases", "abcd");
  if (o.cases.empty() || o.cases.find_first_not_of("abcd") != std::string::npos) {
    return usage_error(kSub, "--cases takes letters of abcd");
  }
  if (auto b = a.flags.get("broker")) {
    o.broker = *b;
  } else {
    auto found = broker_of(a.namesrv.front(), "TBW102");
    if (!found.ok()) {
      std::fprintf(stderr, "mqbench hostile: no broker found: %s\n", found.error().to_string().c_str());
      return kExitFailed;
    }
    o.broker = *found;
  }
  return HostileRun(std::move(o)).run();
}

}  // namespace ferry::bench
