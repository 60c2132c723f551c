#include "tools/bench/mqbench_common.h"

#include <fmt/format.h>
#include <unistd.h>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <random>

#include "cli/credentials.h"
#include "cli/namesrv_addrs.h"
#include "cli/serialize_type_env.h"
#include "cli/tls_flags.h"
#include "client/client_errors.h"
#include "common/crc.h"
#include "remoting/response_code.h"
#include "runtime/log.h"
#include "tools/bench/mqbench.h"

namespace ferry::bench {

namespace {

void put_be(std::vector<std::uint8_t>& b, std::size_t at, std::uint64_t v, int bytes) {
  for (int i = 0; i < bytes; ++i) b[at + static_cast<std::size_t>(i)] = static_cast<std::uint8_t>(v >> (8 * (bytes - 1 - i)));
}

std::uint32_t crc_of_tail(const std::vector<std::uint8_t>& b) {
  return crc32_update(0, Bytes(b.data() + 12, b.size() - 12));
}

}  // namespace

std::variant<BenchArgs, int> parse_args(std::string_view sub, std::string_view summary,
                                        const std::vector<cli::FlagSpec>& specs, std::span<const std::string> args) {
  std::vector<cli::FlagSpec> all = specs;
  all.push_back({'n', "namesrvAddr", "ADDRS", "NameServers, 'ip:port;ip:port' (default $NAMESRV_ADDR or 127.0.0.1:9876)"});
  all.push_back(cli::kTlsFlag);
  all.push_back(cli::kTlsConfigFlag);
  all.push_back({'h', "help", "", "show this help"});
  for (const cli::FlagSpec& s : cli::credential_flags()) all.push_back(s);
  Result<cli::ParsedFlags> f = cli::parse_flags(all, args);
  if (!f.ok()) return usage_error(sub, f.error().detail);
  if (f->has("help")) {
    std::fputs(fmt::format("usage: mqbench {} [flags]\n{}\n\nflags:\n{}", sub, summary, cli::flags_help(all)).c_str(),
               stdout);
    return kExitOk;
  }
  const char* env = std::getenv("NAMESRV_ADDR");
  Result<std::vector<std::string>> addrs =
      cli::parse_namesrv_addrs(f->get_or("namesrvAddr", env && *env ? env : "127.0.0.1:9876"));
  if (!addrs.ok()) return usage_error(sub, addrs.error().detail);
  Result<TlsOptions> tls = cli::client_tls_from_flags(*f);
  if (!tls.ok()) return usage_error(sub, tls.error().detail);
  Result<remoting::acl::Credentials> credentials = cli::credentials_from(*f);
  if (!credentials.ok()) return usage_error(sub, credentials.error().detail);
  return BenchArgs{std::move(*f), std::move(*addrs), std::move(*tls), std::move(*credentials)};
}

int usage_error(std::string_view sub, std::string_view message) {
  std::fputs(fmt::format("mqbench {}: {}\nrun 'mqbench {} --help' for its flags\n", sub, message, sub).c_str(), stderr);
  return kExitUsage;
}

BenchRuntime::BenchRuntime(std::size_t offload_threads, TlsOptions tls) {
  if (std::getenv("FERRY_LOG") == nullptr) set_default_log_level(spdlog::level::warn);
  AsioRuntime::Options opts;
  opts.node_name = "mqbench";
  opts.data_root = data_root_.path();
  opts.offload_threads = std::max<std::size_t>(1, offload_threads);
  opts.sync_namespace = false;
  opts.tls = std::move(tls);
  rt_ = std::make_unique<AsioRuntime>(opts);
}

BenchRuntime::~BenchRuntime() { rt_.reset(); }  // the runtime goes before its data root

client::ClientConfig BenchRuntime::client_config(const std::vector<std::string>& namesrv, int index) const {
  client::ClientConfig cfg;
  cfg.namesrv_addrs = namesrv;
  cfg.instance_name = fmt::format("mqbench-{}-{}", ::getpid(), index);
  cfg.uniq_id_pid = static_cast<std::int32_t>(::getpid());
  cfg.uniq_id_process_hash = static_cast<std::int32_t>(std::random_device{}());
  Result<std::optional<remoting::SerializeType>> header = cli::serialize_type_from_env();
  if (!header.ok()) throw std::invalid_argument(header.error().detail);
  if (*header) cfg.rpc.request_header = **header;
  cfg.credentials = credentials_;
  return cfg;
}

BodyMaker::BodyMaker(std::size_t size_bytes) : templ_(size_bytes, 0) {
  if (size_bytes < kBodyHeaderBytes) throw std::invalid_argument("mqbench: body smaller than its header");
  std::copy(kBodyMagic.begin(), kBodyMagic.end(), templ_.begin());
  std::uint64_t x = 0x9E3779B97F4A7C15ull;  // a fixed filler: every run sends the same bytes
  for (std::size_t i = kBodyHeaderBytes; i < size_bytes; ++i) {
    x ^= x << 13;
    x ^= x >> 7;
    x ^= x << 17;
    templ_[i] = static_cast<std::uint8_t>('!' + x % 94);
  }
}

std::int64_t wall_now_us() {
  const auto wall = std::chrono::system_clock::now().time_since_epoch();
  return std::chrono::duration_cast<std::chrono::microseconds>(wall).count();
}

std::vector<std::uint8_t> BodyMaker::make(std::uint32_t producer, std::uint64_t sequence) const {
  std::vector<std::uint8_t> b = templ_;
  put_be(b, 12, producer, 4);
  put_be(b, 16, sequence, 8);
  put_be(b, 24, static_cast<std::uint64_t>(wall_now_us()), 8);
  put_be(b, 8, crc_of_tail(b), 4);
  return b;
}

BodyCheck check_body(const std::vector<std::uint8_t>& body) {
  if (body.size() < kBodyHeaderBytes || !std::equal(kBodyMagic.begin(), kBodyMagic.end(), body.begin())) {
    return BodyCheck::foreign;
  }
  std::uint32_t stored = 0;
  for (std::size_t i = 8; i < 12; ++i) stored = (stored << 8) | body[i];
  return stored == crc_of_tail(body) ? BodyCheck::ok : BodyCheck::corrupt;
}

std::int64_t body_stamp_us(const std::vector<std::uint8_t>& body) {
  std::uint64_t v = 0;
  for (std::size_t i = 24; i < 32 && i < body.size(); ++i) v = (v << 8) | body[i];
  return static_cast<std::int64_t>(v);
}

void ErrorTally::add(const std::string& kind, const std::string& example) {
  ++total_;
  auto it = kinds_.find(kind);
  if (it == kinds_.end()) {
    if (kinds_.size() >= kKindsMax) it = kinds_.try_emplace("other").first;
    else it = kinds_.try_emplace(kind).first;
    if (it->second.example.empty()) it->second.example = example;
  }
  ++it->second.count;
}

void ErrorTally::add(const Error& e) {
  if (std::optional<std::int32_t> code = client::reply_code_of(e)) {
    const std::string_view name = remoting::response_code::name(*code);
    add(fmt::format("broker reply {} ({})", name.empty() ? "?" : name, *code), e.to_string());
    return;
  }
  add(std::string(errc_name(e.code)), e.to_string());
}

std::string ErrorTally::render() const {
  std::vector<std::pair<std::string, Entry>> sorted(kinds_.begin(), kinds_.end());
  std::stable_sort(sorted.begin(), sorted.end(), [](const auto& a, const auto& b) { return a.second.count > b.second.count; });
  std::string out;
  for (const auto& [kind, e] : sorted) {
    std::string example = e.example.size() > 160 ? e.example.substr(0, 157) + "..." : e.example;
    out += fmt::format("  {:<40} {:>10}  e.g. {}\n", kind, e.count, example);
  }
  return out;
}

Task<void> until_tick(WakeSignal& wake, SteadyTime start, int tick) {
  const SteadyTime due = start + std::chrono::seconds(tick);
  const SteadyTime now = steady_now();
  if (due <= now) co_return;
  Task<bool> w = wake.wait_for(due - now);
  (void)co_await std::move(w);
}

std::string ms_text(std::int64_t us) { return fmt::format("{:.2f}", static_cast<double>(us) / 1000.0); }

std::string percentiles_text(const LatencyHistogram& h) {
  return fmt::format("p50 {} p99 {} p999 {} max {}", ms_text(h.percentile_us(50)), ms_text(h.percentile_us(99)),
                     ms_text(h.percentile_us(99.9)), ms_text(h.max_us()));
}

}  // namespace ferry::bench

namespace ferry::bench {

std::string json_latency(const LatencyHistogram& h) {
  auto ms = [](double us) { return us / 1000.0; };
  return fmt::format("{{\"p50\":{:.3f},\"p99\":{:.3f},\"p999\":{:.3f},\"max\":{:.3f},\"mean\":{:.3f},\"n\":{}}}",
                     ms(static_cast<double>(h.percentile_us(50))), ms(static_cast<double>(h.percentile_us(99))),
                     ms(static_cast<double>(h.percentile_us(99.9))), ms(static_cast<double>(h.max_us())), ms(h.mean_us()),
                     h.count());
}

}  // namespace ferry::bench
