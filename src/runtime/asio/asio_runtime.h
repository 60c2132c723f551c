// AsioRuntime: the production Runtime of one node (a NameServer, a Broker or a client instance).
//
// Threads
//  * The loop: whichever thread calls run() or block_on() runs the node's io_context; all
//    component code, every timer callback and every coroutine resumption happens there.
//  * Two I/O threads: one syncs (msync/fdatasync for File::sync, directory fsync for
//    FileSystem::sync_dir), the other reserves space (fallocate for File::allocate); each job
//    completes back on the loop through Executor::post.
//  * The offload pool (Options::offload_threads, offload_pool.h, plus its monitor thread): runs
//    Runtime::offload callbacks, which may block (user listeners), then resumes the awaiter on
//    the loop. A burst of short callbacks runs on one thread and their completions come back to
//    the loop together; callbacks stuck behind a blocked one get threads of their own within
//    about a millisecond.
// No coroutine is ever resumed off the loop thread.
//
// Lifetime: construct, hand `*this` to the node's components, run() (or block_on()), then
// destroy the components and the runtime on the loop thread. The destructor destroys the node's
// remaining tasks first (their awaiters cancel timers and drop pending I/O), then waits for the
// I/O threads and the offload pool to finish what they are running, then drops whatever is still
// queued for the loop. Listeners, Connections and Files must be destroyed before the runtime.
//
// Which methods may be called from any thread: stop(), executor().post() (and spawn(), which
// posts), clock(). Everything else belongs to the loop thread.
#pragma once

#include <exception>
#include <functional>
#include <memory>
#include <optional>
#include <stdexcept>
#include <string>
#include <type_traits>
#include <utility>

#include "runtime/asio/tls_options.h"
#include "runtime/log.h"
#include "runtime/runtime.h"

namespace ferry {

class AsioRuntime final : public Runtime {
 public:
  struct Options {
    std::string node_name = "node";
    // The directory every FileSystem path is relative to; created (with parents) if missing.
    std::string data_root;
    // What network().host() reports: the address other nodes reach this node at.
    std::string advertised_host = "127.0.0.1";
    // Threads running Runtime::offload callbacks (at least 1).
    std::size_t offload_threads = 4;
    // fsync the parent directory before a create/rename/remove/create_dirs returns, so that
    // namespace operations are durable when they return (file_system.h). Off: only sync_dir()
    // makes them durable.
    bool sync_namespace = true;
    // TLS for this node's listeners (server) and connects (client); off by default. Check it
    // with check_tls_options() first: the constructor asserts that it loads.
    TlsOptions tls;
    // Where the node's logger writes, and its level (runtime/log.h): the process defaults
    // unless given.
    LogSettings log = default_log_settings();
  };

  // Aborts (FERRY_ASSERT) when data_root is empty or cannot be created: a daemon cannot run
  // without its data directory, and this runs at start-up, before any node code.
  explicit AsioRuntime(Options options);
  ~AsioRuntime() override;
  AsioRuntime(const AsioRuntime&) = delete;
  AsioRuntime& operator=(const AsioRuntime&) = delete;

  // Runtime
  const std::string& node_name() const override;
  Clock& clock() override;
  Timers& timers() override;
  Executor& executor() override;
  Network& network() override;
  FileSystem& fs() override;
  Random& random() override;
  spdlog::logger& log() override;
  Task<void> offload(std::function<void()> fn) override;

  // Runs the loop on the calling thread until stop(). A stop() that came before run() makes
  // run() return at once; each stop() ends one run() (or one block_on()).
  void run();
  // Asks the loop to return from run()/block_on() as soon as the current handler finishes.
  // Thread-safe (signal handlers installed with on_stop_signal, other threads, the loop itself).
  // Tasks stay suspended, not destroyed; run() again resumes the node.
  void stop();

  // Spawns `task` on this node and runs the loop on the calling thread until it finishes;
  // returns its value or rethrows its exception. Throws std::runtime_error if stop() ends the
  // loop first (the task then stays suspended in the node's task set). For tools and tests.
  template <typename T>
  T block_on(Task<T> task);

  // Loads the TLS options' certificate and key files again (the same paths, new contents): on
  // success every accept and connect from now on uses them, open connections keep theirs (none is
  // dropped), and an info line says `why`; on error the old ones stay and the error is returned
  // (and logged at error level once per distinct error). Loop thread only.
  Status reload_tls(const std::string& why);
  // Every `period`, looks at the modification time and size of each file the TLS options name
  // and reloads (reload_tls) when one changed. Loop thread only; the timer goes with the runtime.
  void watch_tls(Duration period);
  // On SIGHUP, reload_tls("SIGHUP"). Loop thread only.
  void on_reload_signal();

  // On SIGINT or SIGTERM, runs `handler(signal_number)` on the loop (a graceful shutdown:
  // unregister, flush, then stop()). An empty handler means: stop(). Handles every later
  // signal too. Installing replaces the previous handler. Call on the loop thread.
  void on_stop_signal(std::function<void(int)> handler);

  // A FileSystem over `folder` (relative to the working directory, or absolute), outside the
  // data root: a daemon's configuration folder, say, offered to the node read-only through a
  // ReadOnlyFileSystem (runtime/read_only_file_system.h). A missing folder is not an error here:
  // opening a file in it is (not_found). Its syncs run on this runtime's I/O threads; namespace
  // operations are made durable by sync_dir() only. Loop thread only; destroy it before the
  // runtime.
  std::unique_ptr<FileSystem> folder(std::string folder);

  // Destroys every task of the node now without resuming it (their awaiters cancel timers and
  // abandon pending I/O, as in the destructor): what a crash does to a node's code. For a host that
  // must drop an app without its shutdown (sim/real's ClientHost kills one this way, then destroys
  // the app, then the runtime). Call on the loop thread, outside run().
  void destroy_tasks();

  // The node's wall clock (clock().wall_ms()) jumps by `delta_ms`, kept; the monotonic clock does
  // not move. An NTP step or a VM restored from a snapshot, for a node that shares its process
  // with others (sim/real's ClientHost: a daemon gets libfaketime instead). Thread-safe.
  void skew_wall_clock(std::int64_t delta_ms);

  // True on the thread currently running the loop (for assertions).
  bool on_loop_thread() const;

 private:
  struct Impl;

  template <typename T>
  struct BlockOnSlot {
    std::optional<std::conditional_t<std::is_void_v<T>, bool, T>> value;
    std::exception_ptr error;
    bool done = false;
  };
  template <typename T>
  static Task<void> block_on_driver(Task<T> task, std::shared_ptr<BlockOnSlot<T>> slot, AsioRuntime* rt);

  // Runs the loop until `done` is true (checked whenever the loop is woken by wake()) or stop()
  // is called. Returns true when `done` became true.
  bool drive(const bool& done);
  void wake();  // loop thread: make drive() re-check its condition

  std::unique_ptr<Impl> impl_;
};

template <typename T>
Task<void> AsioRuntime::block_on_driver(Task<T> task, std::shared_ptr<BlockOnSlot<T>> slot, AsioRuntime* rt) {
  try {
    if constexpr (std::is_void_v<T>) {
      co_await std::move(task);
      slot->value.emplace(true);
    } else {
      slot->value.emplace(co_await std::move(task));
    }
  } catch (...) {
    slot->error = std::current_exception();
  }
  slot->done = true;
  rt->wake();
}

template <typename T>
T AsioRuntime::block_on(Task<T> task) {
  auto slot = std::make_shared<BlockOnSlot<T>>();
  spawn(block_on_driver<T>(std::move(task), slot, this), "block_on");
  if (!drive(slot->done)) throw std::runtime_error("AsioRuntime::block_on: stopped before the task finished");
  if (slot->error) std::rethrow_exception(slot->error);
  if constexpr (!std::is_void_v<T>) return std::move(*slot->value);
}

}  // namespace ferry
