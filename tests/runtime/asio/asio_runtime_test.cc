// AsioRuntime beyond the conformance suite: its own API (block_on, run/stop, signals) and the
// thread rules (posts from any thread; resumptions only on the loop; a blocking offload does
// not stall the loop; sync completes on the loop).
#include <arpa/inet.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <unistd.h>

#include <gtest/gtest.h>

#include <atomic>
#include <csignal>
#include <cstdlib>
#include <filesystem>
#include <future>
#include <stdexcept>
#include <thread>

#include "runtime/asio/asio_runtime.h"
#include "tests/support/temp_dir.h"

namespace ferry {
namespace {

using namespace std::chrono_literals;

class AsioRuntimeTest : public ::testing::Test {
 protected:
  AsioRuntimeTest() {
    AsioRuntime::Options options;
    options.node_name = "asio-unit";
    options.data_root = dir_ / "data";
    options.offload_threads = 2;
    rt_ = std::make_unique<AsioRuntime>(options);
  }
  testing::TempDir dir_{"asio-rt"};
  std::unique_ptr<AsioRuntime> rt_;  // declared after dir_: gone before the directory is removed
};

Task<int> add_later(Runtime* rt, int a, int b) {
  co_await rt->sleep(1ms);
  co_return a + b;
}

Task<int> fail_later(Runtime* rt) {
  co_await rt->sleep(1ms);
  throw std::runtime_error("task failed");
}

TEST_F(AsioRuntimeTest, BlockOnReturnsTheValueOrRethrows) {
  EXPECT_EQ(rt_->block_on(add_later(rt_.get(), 2, 3)), 5);
  EXPECT_THROW(rt_->block_on(fail_later(rt_.get())), std::runtime_error);
  EXPECT_EQ(rt_->block_on(add_later(rt_.get(), 4, 5)), 9) << "the loop runs again after a block_on";
}

TEST_F(AsioRuntimeTest, DataRootIsCreatedAndPathsAreRelativeToIt) {
  auto f = rt_->fs().open("hello.txt", OpenOptions{.create = true});
  ASSERT_TRUE(f.ok()) << f.error().to_string();
  const std::string text = "on disk";
  ASSERT_TRUE((*f)->pwrite(0, Bytes(reinterpret_cast<const std::uint8_t*>(text.data()), text.size())).ok());
  EXPECT_TRUE(std::filesystem::exists(dir_ / "data/hello.txt"));
  EXPECT_EQ(std::filesystem::file_size(dir_ / "data/hello.txt"), text.size());
}

TEST_F(AsioRuntimeTest, PostFromAnotherThreadRunsOnTheLoop) {
  std::atomic<bool> on_loop{false};
  std::thread other([&] {
    rt_->executor().post([&] {
      on_loop = rt_->on_loop_thread();
      rt_->stop();
    });
  });
  rt_->run();
  other.join();
  EXPECT_TRUE(on_loop);
}

TEST_F(AsioRuntimeTest, StopFromAnotherThreadEndsRun) {
  // The loop runs on its own thread and is idle (blocked waiting for work) when another thread
  // stops it; run() must return. A lost wake-up fails here, by name, instead of hanging the binary.
  std::promise<void> loop_running;
  rt_->executor().post([&loop_running] { loop_running.set_value(); });
  std::promise<void> run_returned;
  std::future<void> returned = run_returned.get_future();
  std::thread runner([this, &run_returned] {
    rt_->run();
    run_returned.set_value();
  });
  loop_running.get_future().wait();
  rt_->stop();
  const bool in_time = returned.wait_for(10s) == std::future_status::ready;
  EXPECT_TRUE(in_time) << "run() did not return within 10 s of stop() from another thread";
  if (!in_time) rt_->stop();  // so that the test ends and reports the failure
  runner.join();
  EXPECT_EQ(rt_->block_on(add_later(rt_.get(), 2, 3)), 5) << "the runtime runs again after the stop";
}

TEST_F(AsioRuntimeTest, StopBeforeRunMakesRunReturn) {
  rt_->stop();
  rt_->run();
  EXPECT_EQ(rt_->block_on(add_later(rt_.get(), 1, 1)), 2) << "the stop was consumed by run()";
}

Task<void> never_finishes(Runtime* rt) {
  for (;;) co_await rt->sleep(1s);
}

TEST_F(AsioRuntimeTest, BlockOnThrowsWhenStoppedFirst) {
  rt_->executor().post([rt = rt_.get()] { rt->stop(); });
  EXPECT_THROW(rt_->block_on(never_finishes(rt_.get())), std::runtime_error);
}

struct ThreadReport {
  bool after_offload_on_loop = false;
  bool offload_ran_off_loop = false;
  int ticks_during_offload = 0;
  bool after_sync_on_loop = false;
  bool sync_ok = false;
};

Task<void> ticker(Runtime* rt, int* ticks, const bool* stop) {
  while (!*stop) {
    co_await rt->sleep(2ms);
    ++*ticks;
  }
}

Task<void> threads_case(AsioRuntime* rt, ThreadReport* out) {
  bool stop_ticker = false;
  int ticks = 0;
  rt->spawn(ticker(rt, &ticks, &stop_ticker), "ticker");
  std::atomic<bool> off_loop{false};
  co_await rt->offload([&off_loop, rt] {
    off_loop = !rt->on_loop_thread();
    std::this_thread::sleep_for(60ms);  // blocks a pool thread, not the loop
  });
  out->offload_ran_off_loop = off_loop;
  out->ticks_during_offload = ticks;
  out->after_offload_on_loop = rt->on_loop_thread();
  stop_ticker = true;

  auto f = rt->fs().open("synced", OpenOptions{.create = true});
  if (!f.ok()) co_return;
  const std::uint8_t byte = 7;
  if (!(*f)->pwrite(0, Bytes(&byte, 1)).ok()) co_return;
  const Status s = co_await (*f)->sync();
  out->sync_ok = s.ok();
  out->after_sync_on_loop = rt->on_loop_thread();
  co_await rt->sleep(5ms);  // let the ticker see its flag
}

TEST_F(AsioRuntimeTest, BlockingWorkStaysOffTheLoopAndResumesOnIt) {
  ThreadReport r;
  rt_->block_on(threads_case(rt_.get(), &r));
  EXPECT_TRUE(r.offload_ran_off_loop);
  EXPECT_TRUE(r.after_offload_on_loop);
  EXPECT_GE(r.ticks_during_offload, 5) << "the loop kept running timers while the offload blocked";
  EXPECT_TRUE(r.sync_ok);
  EXPECT_TRUE(r.after_sync_on_loop);
}

TEST_F(AsioRuntimeTest, StopSignalRunsTheHandlerOnTheLoop) {
  int seen = 0;
  bool on_loop = false;
  rt_->on_stop_signal([&](int signal_number) {
    seen = signal_number;
    on_loop = rt_->on_loop_thread();
    rt_->stop();
  });
  rt_->executor().post([] { std::raise(SIGTERM); });
  rt_->run();
  EXPECT_EQ(seen, SIGTERM);
  EXPECT_TRUE(on_loop);
}

Task<void> connect_into_full_backlog(Runtime* rt, Endpoint at, int* timed_out, int* other) {
  // Keep every connection open: each fills a slot of a backlog nobody drains.
  std::vector<std::unique_ptr<Connection>> held;
  for (int i = 0; i < 16 && *timed_out == 0; ++i) {
    auto c = co_await rt->network().connect(at, 200ms);
    if (c.ok()) {
      held.push_back(std::move(*c));
    } else if (c.error().is(Errc::timed_out)) {
      ++*timed_out;
    } else {
      ++*other;
    }
  }
}

// A loopback listener with a backlog of 0 that never accepts: once its queue is full, the kernel
// drops further SYNs and connect() can only time out. (Plain sockets: the runtime's listeners
// always ask for the largest backlog.)
class SilentListener {
 public:
  SilentListener() {
    fd_ = ::socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
    sockaddr_in addr{};
    addr.sin_family = AF_INET;
    addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    socklen_t len = sizeof addr;
    ok_ = fd_ >= 0 && ::bind(fd_, reinterpret_cast<sockaddr*>(&addr), len) == 0 && ::listen(fd_, 0) == 0 &&
          ::getsockname(fd_, reinterpret_cast<sockaddr*>(&addr), &len) == 0;
    port_ = ntohs(addr.sin_port);
  }
  ~SilentListener() {
    if (fd_ >= 0) ::close(fd_);
  }
  bool ok() const { return ok_; }
  std::uint16_t port() const { return port_; }

 private:
  int fd_ = -1;
  bool ok_ = false;
  std::uint16_t port_ = 0;
};

TEST_F(AsioRuntimeTest, ConnectTimesOutAsAValue) {
  SilentListener silent;
  ASSERT_TRUE(silent.ok());
  int timed_out = 0, other = 0;
  rt_->block_on(connect_into_full_backlog(rt_.get(), Endpoint{"127.0.0.1", silent.port()}, &timed_out, &other));
  EXPECT_EQ(other, 0);
  EXPECT_EQ(timed_out, 1) << "a connect into a full backlog must end with Errc::timed_out";
}

}  // namespace
}  // namespace ferry
