// filter_bench: what a pull's subscription filter costs per message, on a real store (Asio
// runtime, mmap'd CommitLog and ConsumeQueue), next to the tag path measured in the same run.
//
//   filter_bench [--messages N] [--size BYTES] [--repeat R] [--dir DIR]
//
// N messages (200000, BYTES of body each, 1024) go to one queue, with the properties a client
// sends: TAGS (TagA / TagB alternately), KEYS, UNIQ_KEY, and two user properties, a = i % 100
// and region (eu / us / ap). Each row then reads the whole queue as pulls do (get_messages, 32
// at a time, from next_begin_offset) with one subscription, R times (3); the median run is
// shown, as ns per ConsumeQueue unit scanned and units per second, with the first row (TAG "*",
// no filter: the baseline) for comparison. Rows that select every message compare directly with
// the baseline; the others also skip what they do not select.
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <string>
#include <vector>

#include "common/properties.h"
#include "common/subscription_filter.h"
#include "runtime/asio/asio_runtime.h"
#include "store/message_store.h"

namespace ferry::bench {
namespace {

using Clock = std::chrono::steady_clock;

struct Options {
  std::int64_t messages = 200'000;
  std::size_t size = 1024;
  int repeat = 3;
  std::string dir;
};

struct Filter {
  const char* label;
  ExpressionType type;
  const char* expression;
};

constexpr Filter kFilters[] = {
    {"TAG *  (baseline: no filter)", ExpressionType::tag, "*"},
    {"SQL92 TRUE", ExpressionType::sql92, "TRUE"},
    {"TAG TagA || TagB", ExpressionType::tag, "TagA || TagB"},
    {"SQL92 a >= 0", ExpressionType::sql92, "a >= 0"},
    {"TAG TagA", ExpressionType::tag, "TagA"},
    {"SQL92 TAGS = 'TagA'", ExpressionType::sql92, "TAGS = 'TagA'"},
    {"SQL92 a > 49 AND region IN ('eu', 'us')", ExpressionType::sql92, "a > 49 AND region IN ('eu', 'us')"},
};

Task<Status> open_store(store::MessageStore* s) { co_return co_await s->open(); }
Task<Status> shutdown_store(store::MessageStore* s) { co_return co_await s->shutdown(); }

void fill(store::MessageStore& store, const Options& o) {
  const std::string body(o.size, 'b');
  const char* regions[] = {"eu", "us", "ap"};
  for (std::int64_t i = 0; i < o.messages; ++i) {
    Properties p;
    p.set("TAGS", i % 2 == 0 ? "TagA" : "TagB");
    p.set("KEYS", "order-" + std::to_string(i));
    p.set("UNIQ_KEY", "7F0000010000" + std::to_string(1'000'000'000 + i));
    p.set("a", std::to_string(i % 100));
    p.set("region", regions[i % 3]);
    store::PutRequest r;
    r.topic = "T";
    r.queue_id = QueueId(0);
    r.body = Bytes(reinterpret_cast<const std::uint8_t*>(body.data()), body.size());
    const std::string encoded = *encode_properties(p);
    r.properties = encoded;
    r.born_timestamp_ms = 1'700'000'000'000;
    r.born_host = HostPort::v4(10, 0, 0, 1, 5555);
    const store::PutResult put = store.put_message(r);
    if (put.status != store::PutStatus::ok) {
      std::fprintf(stderr, "put failed: %s\n", put.detail.c_str());
      std::exit(1);
    }
  }
}

struct Run {
  double seconds = 0;
  std::int64_t scanned = 0;
  std::int64_t selected = 0;
};

Run read_all(store::MessageStore& store, const SubscriptionFilter& filter) {
  Run run;
  const SubscriptionFilter* f = filter.selects_all() ? nullptr : &filter;  // as the pull path does
  QueueOffset at(0);
  const auto t0 = Clock::now();
  while (true) {
    store::GetMessageResult g = store.get_messages("T", QueueId(0), at, 32, f);
    if (g.status != store::GetStatus::found && g.status != store::GetStatus::no_matched_message) break;
    run.selected += static_cast<std::int64_t>(g.messages.size());
    run.scanned += (g.next_begin_offset - at);
    at = g.next_begin_offset;
  }
  run.seconds = std::chrono::duration<double>(Clock::now() - t0).count();
  return run;
}

int main_(int argc, char** argv) {
  Options o;
  for (int i = 1; i < argc; ++i) {
    const std::string a = argv[i];
    const auto value = [&]() -> std::string {
      if (i + 1 >= argc) {
        std::fprintf(stderr, "%s needs a value\n", a.c_str());
        std::exit(2);
      }
      return argv[++i];
    };
    if (a == "--messages") o.messages = std::stoll(value());
    else if (a == "--size") o.size = static_cast<std::size_t>(std::stoll(value()));
    else if (a == "--repeat") o.repeat = std::max(1, std::stoi(value()));
    else if (a == "--dir") o.dir = value();
    else {
      std::fprintf(stderr, "usage: filter_bench [--messages N] [--size BYTES] [--repeat R] [--dir DIR]\n");
      return 2;
    }
  }
  if (o.dir.empty()) o.dir = (std::filesystem::temp_directory_path() / "ferry-filter-bench").string();
  std::error_code ignored;
  std::filesystem::remove_all(o.dir, ignored);

  AsioRuntime::Options ro;
  ro.node_name = "filter-bench";
  ro.data_root = o.dir;
  ro.offload_threads = 1;
  AsioRuntime rt(ro);
  store::StoreConfig sc;
  sc.root = "store";
  sc.commit_log_file_size_bytes = 256LL * 1024 * 1024;
  store::MessageStore store(rt, sc);
  if (const Status st = rt.block_on(open_store(&store)); !st.ok()) {
    std::fprintf(stderr, "open: %s\n", st.error().to_string().c_str());
    return 1;
  }
  fill(store, o);
  read_all(store, SubscriptionFilter());  // warm the page cache

  std::printf("filter_bench: %lld messages of %zu bytes in one queue, read 32 at a time; median of %d runs\n\n",
              static_cast<long long>(o.messages), o.size, o.repeat);
  std::printf("| %-42s | %9s | %10s | %12s | %8s |\n", "subscription", "selected", "ns/unit", "units/s", "vs base");
  std::printf("|%s|%s|%s|%s|%s|\n", std::string(44, '-').c_str(), std::string(11, '-').c_str(),
              std::string(12, '-').c_str(), std::string(14, '-').c_str(), std::string(10, '-').c_str());
  double base_ns = 0;
  for (const Filter& f : kFilters) {
    auto compiled = SubscriptionFilter::compile(f.type, f.expression);
    if (!compiled.ok()) {
      std::fprintf(stderr, "%s: %s\n", f.expression, compiled.error().to_string().c_str());
      return 1;
    }
    std::vector<Run> runs;
    for (int r = 0; r < o.repeat; ++r) runs.push_back(read_all(store, *compiled));
    std::sort(runs.begin(), runs.end(), [](const Run& a, const Run& b) { return a.seconds < b.seconds; });
    const Run& m = runs[runs.size() / 2];
    const double ns = m.seconds * 1e9 / static_cast<double>(std::max<std::int64_t>(1, m.scanned));
    if (base_ns == 0) base_ns = ns;
    std::printf("| %-42s | %9lld | %10.1f | %12.0f | %7.2fx |\n", f.label, static_cast<long long>(m.selected), ns,
                1e9 / ns, ns / base_ns);
  }
  if (const Status down = rt.block_on(shutdown_store(&store)); !down.ok()) {
    std::fprintf(stderr, "shutdown: %s\n", down.error().to_string().c_str());
  }
  std::filesystem::remove_all(o.dir, ignored);
  return 0;
}

}  // namespace
}  // namespace ferry::bench

int main(int argc, char** argv) { return ferry::bench::main_(argc, argv); }
