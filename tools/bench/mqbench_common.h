// What `mqbench produce` and `mqbench consume` share: the client runtime (one AsioRuntime whose
// loop runs on the main thread and drives every client instance), the benchmark's message body
// format, error tallies, and the number formatting of the report lines.
//
// Body format (so that `mqbench consume` can check what it receives):
//   bytes 0..7   "MQBENCH1"
//   bytes 8..11  CRC-32 (the zlib polynomial) of bytes 12.., big-endian
//   bytes 12..15 producer index, big-endian
//   bytes 16..23 sequence number within the producer, big-endian
//   bytes 24..31 the producer's wall clock (system_clock) in microseconds since the epoch when it
//                made the body, just before the send call; big-endian
//   bytes 32..   filler (printable pseudo-random characters, the same for every message)
// The consumer's end-to-end latency is its wall clock at receipt minus bytes 24..31 (microsecond
// resolution, unlike the message's millisecond born timestamp); across machines it is only as
// good as their clocks' agreement.
#pragma once

#include <chrono>
#include <cstdint>
#include <map>
#include <memory>
#include <string>
#include <string_view>
#include <variant>
#include <vector>

#include "cli/flags.h"
#include "client/client_instance.h"
#include "remoting/acl/signature.h"
#include "runtime/asio/asio_runtime.h"
#include "runtime/result.h"
#include "runtime/task.h"
#include "runtime/wake_signal.h"
#include "cli/latency_histogram.h"
#include "tests/support/temp_dir.h"

namespace ferry::bench {

// The latency records every mode prints (src/cli/latency_histogram.h).
using cli::LatencyHistogram;
using cli::LatencySamples;

inline constexpr std::string_view kBodyMagic = "MQBENCH1";
inline constexpr std::size_t kBodyHeaderBytes = 32;

// The loop runtime and where its (unused) data root lives; the directory is removed on
// destruction. Client logs go to stderr at "warn" unless FERRY_LOG says otherwise.
class BenchRuntime {
 public:
  // `offload_threads`: threads for listener callbacks (consume); at least 1.
  // `tls`: the client side of every connection (--tls / --tls-config, cli/tls_flags.h).
  BenchRuntime(std::size_t offload_threads, TlsOptions tls);
  ~BenchRuntime();
  BenchRuntime(const BenchRuntime&) = delete;
  BenchRuntime& operator=(const BenchRuntime&) = delete;

  AsioRuntime& rt() { return *rt_; }
  // A client config on `namesrv` with instance name "mqbench-{pid}-{index}", signing with the
  // credentials set_credentials() gave (none by default).
  client::ClientConfig client_config(const std::vector<std::string>& namesrv, int index) const;
  void set_credentials(remoting::acl::Credentials c) { credentials_ = std::move(c); }

 private:
  testing::TempDir data_root_{"mqbench"};  // tests/support/temp_dir.h
  std::unique_ptr<AsioRuntime> rt_;
  remoting::acl::Credentials credentials_;
};

// The wall clock in microseconds since the epoch (the body's stamp, the consumer's receipt).
std::int64_t wall_now_us();

// Builds message bodies of `size_bytes` (>= kBodyHeaderBytes) in the format above.
class BodyMaker {
 public:
  explicit BodyMaker(std::size_t size_bytes);
  // Stamped with wall_now_us().
  std::vector<std::uint8_t> make(std::uint32_t producer, std::uint64_t sequence) const;

 private:
  std::vector<std::uint8_t> templ_;
};

enum class BodyCheck : std::uint8_t { ok, foreign, corrupt };
// ok: an mqbench body whose CRC matches; foreign: not an mqbench body (too short or no magic);
// corrupt: an mqbench body whose CRC does not match.
BodyCheck check_body(const std::vector<std::uint8_t>& body);
// Bytes 24..31 of a body check_body() called ok.
std::int64_t body_stamp_us(const std::vector<std::uint8_t>& body);

// Counts failures by kind and keeps the first detail of each kind (bounded: at most
// kKindsMax kinds, later new kinds count as "other").
class ErrorTally {
 public:
  static constexpr std::size_t kKindsMax = 32;
  void add(const std::string& kind, const std::string& example);
  // The kind of a client error: "broker reply NAME (code)" when the broker answered with a
  // code, else the Errc name ("timed_out", "busy", "closed", ...).
  void add(const Error& e);
  std::uint64_t total() const { return total_; }
  // "  kind  count  e.g. detail" lines, most frequent first; empty when there are none.
  std::string render() const;

 private:
  struct Entry {
    std::uint64_t count = 0;
    std::string example;
  };
  std::map<std::string, Entry> kinds_;
  std::uint64_t total_ = 0;
};

// Command-line handling of a subcommand: its flags plus -n (NameServers, default $NAMESRV_ADDR
// or 127.0.0.1:9876), --tls, --tls-config FILE (cli/tls_flags.h) and -h. Returns the parsed flags and NameServers, or the exit code after
// printing the help (0) or a usage error (2).
struct BenchArgs {
  cli::ParsedFlags flags;
  std::vector<std::string> namesrv;
  TlsOptions tls;  // from --tls / --tls-config (checked: the files load)
  remoting::acl::Credentials credentials;  // --access-key/--secret-key or FERRY_ACCESS_KEY/FERRY_SECRET_KEY
};
std::variant<BenchArgs, int> parse_args(std::string_view sub, std::string_view summary,
                                        const std::vector<cli::FlagSpec>& specs, std::span<const std::string> args);
// Prints "mqbench SUB: message" and a pointer to --help; returns kExitUsage.
int usage_error(std::string_view sub, std::string_view message);

using SteadyTime = std::chrono::steady_clock::time_point;
inline SteadyTime steady_now() { return std::chrono::steady_clock::now(); }
inline double seconds_between(SteadyTime a, SteadyTime b) { return std::chrono::duration<double>(b - a).count(); }

// The per-second report's pacing: waits until `start` + `tick` seconds, or until `wake` is woken
// (the run is stopping; the caller checks its own flag).
Task<void> until_tick(WakeSignal& wake, SteadyTime start, int tick);

// "0.62" (microseconds shown as milliseconds, two decimals).
std::string ms_text(std::int64_t us);
// "p50 0.62 p99 2.31 p999 4.10 max 6.02" of `h`, in ms.
std::string percentiles_text(const LatencyHistogram& h);
// {"p50":0.62,"p99":2.31,"p999":4.1,"max":6.02,"mean":0.7,"n":1000} of `h`, in ms.
std::string json_latency(const LatencyHistogram& h);

}  // namespace ferry::bench
