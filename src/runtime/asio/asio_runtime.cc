#include "runtime/asio/asio_runtime.h"

#include <boost/asio/executor_work_guard.hpp>
#include <boost/asio/io_context.hpp>
#include <boost/asio/post.hpp>
#include <boost/asio/signal_set.hpp>

#include <atomic>
#include <csignal>
#include <filesystem>
#include <map>
#include <optional>
#include <random>
#include <thread>
#include <utility>
#include <vector>

#include "runtime/asio/asio_executor.h"
#include "runtime/asio/asio_network.h"
#include "runtime/asio/asio_timers.h"
#include "runtime/asio/io_thread.h"
#include "runtime/asio/offload_pool.h"
#include "runtime/asio/posix_file_system.h"
#include "runtime/asio/system_clock.h"
#include "runtime/asio/tls_contexts.h"
#include "runtime/log.h"

namespace ferry {

namespace net = boost::asio;

namespace {

std::string prepare_data_root(const std::string& root) {
  FERRY_ASSERT(!root.empty(), "AsioRuntime needs Options::data_root");
  std::error_code ec;
  std::filesystem::create_directories(root, ec);
  FERRY_ASSERT(!ec, "cannot create data root '{}': {}", root, ec.message());
  const std::filesystem::path absolute = std::filesystem::absolute(root, ec);
  FERRY_ASSERT(!ec, "cannot resolve data root '{}': {}", root, ec.message());
  return absolute.lexically_normal().string();
}

std::shared_ptr<asio_rt::TlsHolder> load_tls_or_abort(const TlsOptions& options, const std::string& node) {
  auto loaded = asio_rt::TlsContexts::load(options);
  FERRY_ASSERT(loaded.ok(), "node {}: TLS settings do not load (check_tls_options first): {}", node,
               loaded.ok() ? std::string() : loaded.error().detail);
  return std::make_shared<asio_rt::TlsHolder>(asio_rt::TlsHolder{std::move(*loaded)});
}

// The files TLS options name, each with the key that names it.
std::vector<std::pair<std::string, std::string>> tls_files(const TlsOptions& o) {
  std::vector<std::pair<std::string, std::string>> files;
  auto add = [&files](const char* key, const std::string& path) {
    if (!path.empty()) files.emplace_back(key, path);
  };
  if (o.server.mode != TlsServerMode::disabled) {
    add("tls.server.certPath", o.server.cert_path);
    add("tls.server.keyPath", o.server.key_path);
    add("tls.server.trustCertPath", o.server.trust_cert_path);
  }
  if (o.client.enable) {
    add("tls.client.certPath", o.client.cert_path);
    add("tls.client.keyPath", o.client.key_path);
    add("tls.client.trustCertPath", o.client.trust_cert_path);
  }
  return files;
}

// What a file looks like to the watcher: its modification time and size ("" when unreadable).
std::string file_stamp(const std::string& path) {
  std::error_code ec;
  const auto time = std::filesystem::last_write_time(path, ec);
  if (ec) return {};
  const auto size = std::filesystem::file_size(path, ec);
  if (ec) return {};
  return std::to_string(time.time_since_epoch().count()) + "/" + std::to_string(size);
}

std::uint64_t os_seed() {
  std::random_device rd;
  return (static_cast<std::uint64_t>(rd()) << 32) ^ static_cast<std::uint64_t>(rd());
}

}  // namespace

// Members are destroyed bottom-up; the io_context goes last, after everything that posts to it
// or owns objects registered with it.
struct AsioRuntime::Impl {
  explicit Impl(Options opts)
      : options(std::move(opts)),
        random(os_seed()),
        logger(make_node_logger(options.node_name, nullptr, options.log)),
        offload_pool(executor, options.offload_threads),
        tls(load_tls_or_abort(options.tls, options.node_name)),
        network(io, executor, timers, options.advertised_host, tls, *logger),
        fs(prepare_data_root(options.data_root), asio_rt::DiskThreads{io_thread, alloc_thread}, options.sync_namespace) {
    timers.bind(executor);
  }

  Options options;
  net::io_context io{1};  // one thread runs it; other threads may still post
  std::atomic<bool> stop_requested{false};
  std::atomic<std::thread::id> loop_thread{};
  asio_rt::SystemClock clock;
  asio_rt::AsioExecutor executor{io, loop_thread};
  asio_rt::AsioTimers timers{io, clock};
  Random random;
  std::shared_ptr<spdlog::logger> logger;
  asio_rt::IoThread io_thread{executor};
  asio_rt::IoThread alloc_thread{executor};
  asio_rt::OffloadPool offload_pool;
  std::shared_ptr<asio_rt::TlsHolder> tls;
  asio_rt::AsioNetwork network;
  asio_rt::PosixFileSystem fs;
  std::function<void(int)> stop_handler;
  std::unique_ptr<net::signal_set> signals;
  std::unique_ptr<net::signal_set> reload_signals;    // SIGHUP (on_reload_signal)
  std::map<std::string, std::string> tls_stamps;      // watch_tls: path -> file_stamp
  std::optional<TimerId> tls_watch;
  std::string tls_refused;                            // the last reload error logged
};

AsioRuntime::AsioRuntime(Options options) : impl_(std::make_unique<Impl>(std::move(options))) {}

AsioRuntime::~AsioRuntime() {
  Impl& m = *impl_;
  // 1. The node's tasks: their awaiters cancel timers and mark pending I/O abandoned.
  m.executor.tasks().destroy_all();
  if (m.signals) {
    boost::system::error_code ignored;
    m.signals->cancel(ignored);
  }
  if (m.reload_signals) {
    boost::system::error_code ignored;
    m.reload_signals->cancel(ignored);
  }
  if (m.tls_watch) m.timers.cancel(*m.tls_watch);
  // 2. Threads that post to the loop finish what they run (their completions are then dropped).
  m.offload_pool.join();
  m.io_thread.join();
  m.alloc_thread.join();
  // 3. Members go; the io_context last, dropping every handler still queued.
}

void AsioRuntime::skew_wall_clock(std::int64_t delta_ms) { impl_->clock.skew_wall(delta_ms); }

Status AsioRuntime::reload_tls(const std::string& why) {
  Impl& m = *impl_;
  auto loaded = asio_rt::TlsContexts::load(m.options.tls);
  if (!loaded) {
    // Once per distinct error: the old contexts stay, and the watcher tries again at each change.
    if (loaded.error().detail != m.tls_refused) {
      m.tls_refused = loaded.error().detail;
      m.logger->error("TLS: reloading the certificates ({}) failed, the ones loaded before stay: {}", why,
                      loaded.error().detail);
    }
    return std::move(loaded).error();
  }
  m.tls_refused.clear();
  m.tls->current = std::move(*loaded);
  m.logger->info("TLS: certificates reloaded ({}); new connections use them, open ones keep theirs", why);
  return Status();
}

void AsioRuntime::watch_tls(Duration period) {
  Impl& m = *impl_;
  FERRY_ASSERT(period > Duration::zero(), "watch_tls period {} ns", period.count());
  m.tls_stamps.clear();
  for (const auto& [key, path] : tls_files(m.options.tls)) m.tls_stamps[path] = file_stamp(path);
  if (m.tls_watch) m.timers.cancel(*m.tls_watch);
  struct Tick {
    static void run(AsioRuntime* rt, Duration period) {
      Impl& m = *rt->impl_;
      m.tls_watch = m.timers.schedule(period, [rt, period] {
        Impl& im = *rt->impl_;
        std::string changed;
        for (const auto& [key, path] : tls_files(im.options.tls)) {
          const std::string now = file_stamp(path);
          if (im.tls_stamps[path] == now) continue;
          im.tls_stamps[path] = now;
          if (!changed.empty()) changed += ", ";
          changed += key + " changed";
        }
        if (!changed.empty()) (void)rt->reload_tls(changed);
        run(rt, period);
      });
    }
  };
  Tick::run(this, period);
}

void AsioRuntime::on_reload_signal() {
  Impl& m = *impl_;
  if (m.reload_signals) return;
  m.reload_signals = std::make_unique<net::signal_set>(m.io, SIGHUP);
  struct Wait {
    static void arm(AsioRuntime* rt) {
      rt->impl_->reload_signals->async_wait([rt](const boost::system::error_code& ec, int) {
        if (ec) return;  // cancelled: the runtime is going
        (void)rt->reload_tls("SIGHUP");
        arm(rt);
      });
    }
  };
  Wait::arm(this);
}

void AsioRuntime::destroy_tasks() { impl_->executor.tasks().destroy_all(); }

const std::string& AsioRuntime::node_name() const { return impl_->options.node_name; }
Clock& AsioRuntime::clock() { return impl_->clock; }
Timers& AsioRuntime::timers() { return impl_->timers; }
Executor& AsioRuntime::executor() { return impl_->executor; }
Network& AsioRuntime::network() { return impl_->network; }
FileSystem& AsioRuntime::fs() { return impl_->fs; }

std::unique_ptr<FileSystem> AsioRuntime::folder(std::string folder) {
  return std::make_unique<asio_rt::PosixFileSystem>(std::move(folder), asio_rt::DiskThreads{impl_->io_thread, impl_->alloc_thread},
                                                    /*sync_namespace=*/false);
}
Random& AsioRuntime::random() { return impl_->random; }
spdlog::logger& AsioRuntime::log() { return *impl_->logger; }

Task<void> AsioRuntime::offload(std::function<void()> fn) {
  Completion<std::exception_ptr> done(impl_->executor);
  // The pool thread only carries `done` across and returns it inside the completion; its state
  // is touched on the loop alone.
  impl_->offload_pool.post([fn = std::move(fn), done]() mutable -> std::function<void()> {
    std::exception_ptr error;
    try {
      fn();
    } catch (...) {
      error = std::current_exception();
    }
    fn = nullptr;  // the callback's captures die here, off the loop
    return [done = std::move(done), error] { done.complete(error); };
  });
  const std::exception_ptr error = co_await done.wait();
  if (error) std::rethrow_exception(error);
}

bool AsioRuntime::drive(const bool& done) {
  Impl& m = *impl_;
  FERRY_ASSERT(!on_loop_thread(), "run()/block_on() called from inside the loop of node {}", m.options.node_name);
  m.loop_thread.store(std::this_thread::get_id());
  struct ClearLoopThread {
    Impl& m;
    ~ClearLoopThread() { m.loop_thread.store(std::thread::id()); }
  } clear{m};
  auto keep_running = net::make_work_guard(m.io);
  for (;;) {
    // restart() before looking at the flags: a stop() racing with this check then either sets
    // the flag we are about to read or stops the io_context we are about to run.
    m.io.restart();
    if (done) return true;
    if (m.stop_requested.exchange(false)) return false;
    m.io.run();
  }
}

void AsioRuntime::wake() { impl_->io.stop(); }

void AsioRuntime::run() {
  static const bool never = false;
  (void)drive(never);
}

void AsioRuntime::stop() {
  impl_->stop_requested.store(true);
  impl_->io.stop();
}

bool AsioRuntime::on_loop_thread() const { return impl_->loop_thread.load() == std::this_thread::get_id(); }

namespace {
void wait_for_signal(net::signal_set& signals, std::function<void(int)>& handler, AsioRuntime& rt) {
  signals.async_wait([&signals, &handler, &rt](const boost::system::error_code& ec, int signal_number) {
    if (ec) return;  // cancelled: the runtime is going away
    if (handler) {
      handler(signal_number);
    } else {
      rt.stop();
    }
    wait_for_signal(signals, handler, rt);
  });
}
}  // namespace

void AsioRuntime::on_stop_signal(std::function<void(int)> handler) {
  Impl& m = *impl_;
  m.stop_handler = std::move(handler);
  if (m.signals) return;  // already waiting; the new handler is used from the next signal on
  m.signals = std::make_unique<net::signal_set>(m.io, SIGINT, SIGTERM);
  wait_for_signal(*m.signals, m.stop_handler, *this);
}

}  // namespace ferry
