// store_bench: MessageStore append throughput on real files (Asio runtime: mmap'd CommitLog,
// syncs and fallocate on the I/O thread), next to a raw baseline measured in the same run on the
// same file system: sequential pwrite() of the same record bytes, without sync and with one
// fdatasync() per batch of 1, 16 and 256 records.
//
//   store_bench [--messages N] [--sync-messages M] [--size BYTES] [--queues Q] [--file-mb MB]
//               [--dir DIR] [--only async|sync|raw] [--repeat R]
//
// `--only raw` measures no store: only the file system's synced sequential write bandwidth
// (pwrite + fdatasync every 256 records, M records, median of R) and the latency of one
// fdatasync (M/10 times a record's pwrite then fdatasync, each timed: p50 / p99 / max), for
// tools/bench/compare.sh, which shows a broker's SYNC_FLUSH figures beside them.
//
// Modes (each on a fresh store directory):
//   ASYNC_FLUSH            N puts from one task; the 500 ms flush loop runs in the background
//                          (the task yields every 256 puts); compared with pwrite, no sync.
//   SYNC_FLUSH, W writers  M puts by W concurrent writers, each awaiting wait_durable() before
//                          its next put (group commit batches up to W); compared with pwrite
//                          plus fdatasync every W records.
// Every message has a 32-hex-char UNIQ_KEY (indexed) and a tag, over Q queues of one topic.
// Each mode and its baseline run R times (3), alternating; the median run of each is shown.
// Before the clock starts each store gets one synced message per queue and its next CommitLog
// file pre-allocated (see warm_up).
#include <fcntl.h>
#include <stdlib.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <memory>
#include <string>
#include <vector>

#include "common/properties.h"
#include "common/record_format.h"
#include "runtime/asio/asio_runtime.h"
#include "runtime/completion.h"
#include "store/message_store.h"

namespace ferry::bench {
namespace {

using Clock = std::chrono::steady_clock;

struct Options {
  std::int64_t messages = 200'000;
  std::int64_t sync_messages = 20'000;
  std::size_t size = 1024;
  std::int32_t queues = 8;
  std::int64_t file_mb = 128;
  std::string dir;
  std::string only;  // "", "async" or "sync": run only those modes (for profiling)
  int repeat = 3;    // runs per mode (and per baseline); the median is shown
};

struct Row {
  std::string name;
  std::int64_t messages = 0;
  std::int64_t bytes = 0;
  double seconds = 0;
  double rate() const { return seconds > 0 ? static_cast<double>(messages) / seconds : 0; }
  double mbps() const { return seconds > 0 ? static_cast<double>(bytes) / seconds / 1e6 : 0; }
};

// The messages to put: encoded properties with a fresh UNIQ_KEY per message, built before the
// clock starts (encoding properties is the producer's job, not the store's).
class MessageSource {
 public:
  MessageSource(std::size_t body_bytes, std::int32_t queues, std::int64_t count)
      : body_(body_bytes, 'x'), queues_(queues) {
    for (std::size_t i = 0; i < body_.size(); ++i) body_[i] = static_cast<char>('a' + i % 26);
    props_.reserve(static_cast<std::size_t>(count));
    for (std::int64_t seq = 0; seq < count; ++seq) {
      Properties p;
      char key[33];
      std::snprintf(key, sizeof key, "%016llX%016llX", 0xF0E1D2C3B4A59687ULL,
                    static_cast<unsigned long long>(seq));
      p.set("UNIQ_KEY", key);
      p.set("TAGS", seq % 2 == 0 ? "TagA" : "TagB");
      p.set("WAIT", "true");
      props_.push_back(*encode_properties(p));
    }
  }
  // Request `seq` (0 <= seq < count) refers to this source's buffers.
  store::PutRequest next(std::int64_t seq) const {
    store::PutRequest r;
    r.topic = "BenchTopic";
    r.queue_id = QueueId(static_cast<std::int32_t>(seq % queues_));
    r.body = Bytes(reinterpret_cast<const std::uint8_t*>(body_.data()), body_.size());
    r.properties = props_[static_cast<std::size_t>(seq)];
    r.born_timestamp_ms = 1'700'000'000'000;
    r.born_host = HostPort::v4(127, 0, 0, 1, 40000);
    return r;
  }

 private:
  std::string body_;
  std::int32_t queues_;
  std::vector<std::string> props_;
};

store::StoreConfig store_config(const Options& o, store::FlushMode mode) {
  store::StoreConfig c;
  c.root = "store";
  c.commit_log_file_size_bytes = o.file_mb * 1024 * 1024;
  c.flush_mode = mode;
  return c;
}

Task<Status> open_store(store::MessageStore* s) { co_return co_await s->open(); }
// Before the clock starts, the store is brought to where a broker that has been up is: one
// synced message per queue (each queue's first ConsumeQueue file and the first index file are
// created on first use, ~10-25 ms each here), and the next CommitLog file pre-allocated.
Task<void> warm_up(Runtime* rt, store::MessageStore* s, const MessageSource* src, std::int32_t queues) {
  PhysicalOffset end;
  for (std::int32_t q = 0; q < queues; ++q) {
    const store::PutResult r = s->put_message(src->next(q));
    if (r.status != store::PutStatus::ok) {
      std::fprintf(stderr, "warm-up put failed: %s\n", r.detail.c_str());
      std::exit(1);
    }
    end = r.end();
  }
  (void)co_await s->wait_durable(end);
  while (s->preallocating()) co_await rt->sleep(std::chrono::milliseconds(1));
}
Task<Status> shutdown_store(store::MessageStore* s) { co_return co_await s->shutdown(); }

Task<std::int64_t> async_puts(Runtime* rt, store::MessageStore* s, const MessageSource* src, std::int64_t n) {
  std::int64_t bytes = 0;
  for (std::int64_t i = 0; i < n; ++i) {
    const store::PutResult r = s->put_message(src->next(i));
    if (r.status != store::PutStatus::ok) {
      std::fprintf(stderr, "put failed: %s\n", r.detail.c_str());
      std::exit(1);
    }
    bytes += r.wrote_bytes;
    if (i % 256 == 255) co_await rt->sleep(Duration::zero());  // let the flush loops run
  }
  co_return bytes;
}

struct SyncShared {
  store::MessageStore* store;
  const MessageSource* src;
  std::int64_t next = 0;
  std::int64_t total = 0;
  std::int64_t bytes = 0;
  std::int32_t running = 0;
  Completion<bool> done;
};

Task<void> sync_writer(SyncShared* sh) {
  while (sh->next < sh->total) {
    const store::PutResult r = sh->store->put_message(sh->src->next(sh->next++));
    if (r.status != store::PutStatus::ok) {
      std::fprintf(stderr, "put failed: %s\n", r.detail.c_str());
      std::exit(1);
    }
    sh->bytes += r.wrote_bytes;
    const store::PutStatus st = co_await sh->store->wait_durable(r.end());
    if (st != store::PutStatus::ok) {
      std::fprintf(stderr, "wait_durable: %s\n", std::string(store::put_status_name(st)).c_str());
      std::exit(1);
    }
  }
  if (--sh->running == 0) sh->done.complete(true);
}

Task<std::int64_t> sync_puts(Runtime* rt, store::MessageStore* s, const MessageSource* src, std::int64_t n,
                             std::int32_t writers) {
  SyncShared sh{s, src, 0, n, 0, writers, Completion<bool>(rt->executor())};
  for (std::int32_t w = 0; w < writers; ++w) rt->spawn(sync_writer(&sh), "bench-writer");
  co_await sh.done.wait();
  co_return sh.bytes;
}

// Runs one store mode on a fresh directory; returns the row and the bytes of the first record.
Row run_store(const Options& o, const std::string& name, store::FlushMode mode, std::int32_t writers,
              std::int64_t n) {
  const std::string root = o.dir + "/" + std::to_string(static_cast<int>(mode)) + "-" + std::to_string(writers);
  AsioRuntime::Options ro;
  ro.node_name = "store-bench";
  ro.data_root = root;
  ro.offload_threads = 1;
  Row row{name, n, 0, 0};
  {
    AsioRuntime rt(ro);
    store::MessageStore store(rt, store_config(o, mode));
    const Status st = rt.block_on(open_store(&store));
    if (!st.ok()) {
      std::fprintf(stderr, "open: %s\n", st.error().to_string().c_str());
      std::exit(1);
    }
    store.start();
    const MessageSource warm(o.size, o.queues, o.queues);
    rt.block_on(warm_up(&rt, &store, &warm, o.queues));
    const MessageSource src(o.size, o.queues, n);
    const auto t0 = Clock::now();
    row.bytes = mode == store::FlushMode::async_flush ? rt.block_on(async_puts(&rt, &store, &src, n))
                                                      : rt.block_on(sync_puts(&rt, &store, &src, n, writers));
    row.seconds = std::chrono::duration<double>(Clock::now() - t0).count();
    const Status down = rt.block_on(shutdown_store(&store));
    if (!down.ok()) std::fprintf(stderr, "shutdown: %s\n", down.error().to_string().c_str());
  }
  std::error_code ignored;
  std::filesystem::remove_all(root, ignored);
  return row;
}

// Sequential pwrite of n records of `record_bytes`, with fdatasync every `batch` records
// (0: never).
Row run_baseline(const Options& o, const std::string& name, std::int64_t n, std::int64_t record_bytes,
                 std::int64_t batch) {
  const std::string path = o.dir + "/baseline";
  const int fd = ::open(path.c_str(), O_CREAT | O_TRUNC | O_WRONLY, 0644);
  if (fd < 0) {
    std::perror("open baseline");
    std::exit(1);
  }
  std::vector<char> record(static_cast<std::size_t>(record_bytes), 'r');
  Row row{name, n, n * record_bytes, 0};
  const auto t0 = Clock::now();
  off_t at = 0;
  for (std::int64_t i = 0; i < n; ++i) {
    if (::pwrite(fd, record.data(), record.size(), at) != static_cast<ssize_t>(record.size())) {
      std::perror("pwrite");
      std::exit(1);
    }
    at += static_cast<off_t>(record.size());
    if (batch > 0 && (i + 1) % batch == 0) ::fdatasync(fd);
  }
  if (batch > 0) ::fdatasync(fd);
  row.seconds = std::chrono::duration<double>(Clock::now() - t0).count();
  ::close(fd);
  ::unlink(path.c_str());
  return row;
}

// M/10 single-record pwrite + fdatasync pairs, each timed (the latency a SYNC_FLUSH send cannot
// beat); prints one line.
void run_sync_latency(const Options& o, std::int64_t record_bytes) {
  const std::string path = o.dir + "/sync-latency";
  const int fd = ::open(path.c_str(), O_CREAT | O_TRUNC | O_WRONLY, 0644);
  if (fd < 0) {
    std::perror("open sync-latency");
    std::exit(1);
  }
  const std::int64_t n = std::max<std::int64_t>(o.sync_messages / 10, 1);
  std::vector<char> record(static_cast<std::size_t>(record_bytes), 'r');
  std::vector<std::int64_t> ns;
  ns.reserve(static_cast<std::size_t>(n));
  off_t at = 0;
  for (std::int64_t i = 0; i < n; ++i) {
    const auto t0 = Clock::now();
    if (::pwrite(fd, record.data(), record.size(), at) != static_cast<ssize_t>(record.size()) || ::fdatasync(fd) != 0) {
      std::perror("pwrite + fdatasync");
      std::exit(1);
    }
    ns.push_back(std::chrono::duration_cast<std::chrono::nanoseconds>(Clock::now() - t0).count());
    at += static_cast<off_t>(record.size());
  }
  ::close(fd);
  ::unlink(path.c_str());
  std::sort(ns.begin(), ns.end());
  auto pct = [&](double p) {
    return static_cast<double>(ns[static_cast<std::size_t>(p / 100.0 * static_cast<double>(ns.size() - 1) + 0.5)]) / 1e6;
  };
  std::printf("fdatasync latency: p50 %.3f ms p99 %.3f ms max %.3f ms (n=%lld, one %lld-byte pwrite + fdatasync each)\n",
              pct(50), pct(99), pct(100), static_cast<long long>(n), static_cast<long long>(record_bytes));
}

std::int64_t record_bytes_for(const Options& o) {
  // The size of one stored record for this body and these properties (as the store encodes it).
  const MessageSource src(o.size, o.queues, 1);
  const store::PutRequest r = src.next(0);
  return static_cast<std::int64_t>(
      record::record_size(/*born_v6=*/false, /*store_v6=*/false, r.body.size(), r.topic.size(), r.properties.size()));
}

// The run with the median rate (the lower middle one for an even count).
Row median(std::vector<Row> runs) {
  std::sort(runs.begin(), runs.end(), [](const Row& a, const Row& b) { return a.rate() < b.rate(); });
  return runs[(runs.size() - 1) / 2];
}

void print(const Row& r, const Row* base) {
  std::printf("| %-30s | %9lld | %12.0f | %9.1f |", r.name.c_str(), static_cast<long long>(r.messages),
              r.rate(), r.mbps());
  if (base != nullptr) {
    std::printf(" %-28s | %6.2f |\n", base->name.c_str(), base->rate() > 0 ? r.rate() / base->rate() : 0.0);
  } else {
    std::printf(" %-28s | %6s |\n", "", "");
  }
}

}  // namespace
}  // namespace ferry::bench

int main(int argc, char** argv) {
  using namespace ferry;
  using namespace ferry::bench;
  Options o;
  for (int i = 1; i < argc; ++i) {
    const std::string a = argv[i];
    auto value = [&]() -> const char* { return i + 1 < argc ? argv[++i] : ""; };
    if (a == "--messages") {
      o.messages = std::atoll(value());
    } else if (a == "--sync-messages") {
      o.sync_messages = std::atoll(value());
    } else if (a == "--size") {
      o.size = static_cast<std::size_t>(std::atoll(value()));
    } else if (a == "--queues") {
      o.queues = std::atoi(value());
    } else if (a == "--file-mb") {
      o.file_mb = std::atoll(value());
    } else if (a == "--repeat") {
      o.repeat = std::atoi(value());
    } else if (a == "--dir") {
      o.dir = value();
    } else if (a == "--only" && i + 1 < argc &&
               (std::string(argv[i + 1]) == "async" || std::string(argv[i + 1]) == "sync" || std::string(argv[i + 1]) == "raw")) {
      o.only = value();
    } else {
      std::fprintf(stderr,
                   "usage: %s [--messages N] [--sync-messages M] [--size BYTES] [--queues Q] "
                   "[--file-mb MB] [--dir DIR] [--only async|sync|raw] [--repeat R]\n", argv[0]);
      return a == "--help" ? 0 : 2;
    }
  }
  if (o.repeat <= 0 || o.messages <= 0 || o.sync_messages <= 0 || o.queues <= 0 || o.file_mb <= 0 ||
      o.size > 4 * 1024 * 1024) {
    std::fprintf(stderr, "bad options\n");
    return 2;
  }
  bool own_dir = false;
  if (o.dir.empty()) {
    std::string pattern = (std::filesystem::temp_directory_path() / "ferry-store-bench-XXXXXX").string();
    if (::mkdtemp(pattern.data()) == nullptr) {
      std::perror("mkdtemp");
      return 1;
    }
    o.dir = pattern;
    own_dir = true;
  }
  std::filesystem::create_directories(o.dir);

  const std::int64_t record = record_bytes_for(o);
  std::printf("store_bench: %lld-byte bodies (%lld-byte records), %d queues, %lld MiB CommitLog files, in %s\n\n",
              static_cast<long long>(o.size), static_cast<long long>(record), o.queues,
              static_cast<long long>(o.file_mb), o.dir.c_str());

  if (o.only == "raw") {
    std::vector<Row> runs;
    for (int r = 0; r < o.repeat; ++r) runs.push_back(run_baseline(o, "pwrite + fdatasync/256", o.sync_messages, record, 256));
    const Row m = median(runs);
    std::printf("raw synced write: %.1f MB/s, %.0f records/s (pwrite + fdatasync every 256 records, %lld records, median of %d)\n",
                m.mbps(), m.rate(), static_cast<long long>(m.messages), o.repeat);
    run_sync_latency(o, record);
    if (own_dir) {
      std::error_code ignored;
      std::filesystem::remove_all(o.dir, ignored);
    }
    return 0;
  }

  // Each mode runs `repeat` times, alternating with its baseline so that both see the same
  // machine; the table shows the median run of each (the machine's background varies).
  std::vector<std::pair<Row, Row>> rows;  // {store, baseline}
  auto measure = [&](const std::string& name, store::FlushMode mode, std::int32_t writers, std::int64_t n,
                     const std::string& base_name, std::int64_t batch) {
    std::vector<Row> stores;
    std::vector<Row> bases;
    for (int r = 0; r < o.repeat; ++r) {
      bases.push_back(run_baseline(o, base_name, n, record, batch));
      stores.push_back(run_store(o, name, mode, writers, n));
    }
    rows.emplace_back(median(stores), median(bases));
  };
  if (o.only != "sync") {
    measure("ASYNC_FLUSH", store::FlushMode::async_flush, 1, o.messages, "pwrite, no sync", 0);
  }
  for (const std::int32_t writers : {1, 16, 256}) {
    if (o.only == "async") break;
    const std::int64_t n = writers == 1 ? std::max<std::int64_t>(o.sync_messages / 10, 1) : o.sync_messages;
    measure("SYNC_FLUSH, " + std::to_string(writers) + " writer" + (writers > 1 ? "s" : ""),
            store::FlushMode::sync_flush, writers, n, "pwrite + fdatasync/" + std::to_string(writers), writers);
  }

  std::printf("| %-30s | %9s | %12s | %9s | %-28s | %6s |\n", "mode", "messages", "messages/s", "MB/s",
              "baseline", "ratio");
  std::printf("|%s|%s|%s|%s|%s|%s|\n", std::string(32, '-').c_str(), std::string(11, '-').c_str(),
              std::string(14, '-').c_str(), std::string(11, '-').c_str(), std::string(30, '-').c_str(),
              std::string(8, '-').c_str());
  for (const auto& [row, base] : rows) print(row, &base);
  for (const auto& [row, base] : rows) print(base, nullptr);

  if (own_dir) {
    std::error_code ignored;
    std::filesystem::remove_all(o.dir, ignored);
  }
  return 0;
}
