// An in-process cluster on the production runtime for client tests: a NameServer, a Broker and a
// client, each on its own AsioRuntime whose loop runs on its own thread, talking TCP over
// 127.0.0.1 (the NameServer on a port the kernel picks, the broker on a free port), with the
// broker's store in a fresh temporary directory. The test thread drives everything the way an
// application does: objects of a node are built, called and destroyed on that node's loop
// (LoopThread::exec / call), consumers through the client_api wrappers, and listeners run on the
// client runtime's offload threads.
//
// Teardown follows the daemons: components stop gracefully on their loop, the loop stops, then
// the components are destroyed (nothing can resume into them any more), then the runtime.
//
// Every wait is bounded (kWaitLimit): a node that does not answer aborts the test binary with a
// message instead of hanging ctest. No assertion depends on how fast anything is.
#pragma once

#include <gtest/gtest.h>

#include <chrono>
#include <condition_variable>
#include <functional>
#include <future>
#include <list>
#include <memory>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

#include "broker/broker.h"
#include "client/admin_client.h"
#include "client/client_instance.h"
#include "client/lite_pull_consumer.h"
#include "client/producer.h"
#include "client/push_consumer.h"
#include "client_api/loop_call.h"
#include "namesrv/name_server.h"
#include "runtime/asio/asio_runtime.h"
#include "tests/support/received_messages.h"
#include "tests/support/temp_dir.h"

namespace ferry::client::asio_testing {

inline constexpr std::chrono::seconds kWaitLimit{60};

// Prints `what` and aborts: a bounded wait ran out.
[[noreturn]] void hung(const std::string& what);

// Waits for `f` at most kWaitLimit (else hung(what)), then returns its value.
template <typename T>
T await_future(std::future<T> f, const std::string& what) {
  if (f.wait_for(kWaitLimit) != std::future_status::ready) hung(what);
  return f.get();
}

// One node: an AsioRuntime whose loop runs on a thread of its own from construction to join().
class LoopThread {
 public:
  LoopThread(std::string name, std::string data_root);
  ~LoopThread();
  LoopThread(const LoopThread&) = delete;
  LoopThread& operator=(const LoopThread&) = delete;

  AsioRuntime& rt() { return *rt_; }
  const std::string& name() const { return name_; }

  // Runs fn() on the loop and waits until it returned.
  void exec(std::function<void()> fn);
  // Runs the Task that make() returns on the loop (client_api::call_on_loop) and returns its
  // value.
  template <typename Make>
  auto call(Make make) {
    return await_future(client_api::call_on_loop(*rt_, std::move(make)), name_ + ": a call on the loop");
  }
  // Stops the loop and joins its thread (idempotent). Afterwards the node's objects may be
  // destroyed on the calling thread; the runtime goes with the LoopThread.
  void join();

 private:
  std::string name_;
  std::unique_ptr<AsioRuntime> rt_;
  std::thread thread_;
};

// Messages a listener received, in arrival order; listeners add from offload threads.
using Received = test_support::ReceivedMessages;

// Repeats `check` on the test thread every 20 ms until it returns true (kWaitLimit at most).
bool eventually(const std::function<bool()>& check);

class AsioClusterTest : public ::testing::Test {
 protected:
  void SetUp() override;
  void TearDown() override;

  // UPDATE_AND_CREATE_TOPIC at the broker, then waits until the client sees the route.
  void create_topic(const std::string& topic, std::int32_t queues);
  // Consumers built on the client's loop and owned by the fixture (TearDown shuts them down on
  // the loop and destroys them after it stopped, before the instance). Configure and start them through the
  // client_api wrappers.
  PushConsumer& add_push(PushConsumerConfig config);
  LitePullConsumer& add_lite(LitePullConsumerConfig config);

  static std::string text(const MessageExt& m) { return std::string(m.body.begin(), m.body.end()); }
  static Message message(std::string topic, std::string body, std::string tag, std::string keys);

  ferry::testing::TempDir dir_{"client-asio"};  // outlives the nodes (declared first)
  std::unique_ptr<LoopThread> ns_node_, broker_node_, client_node_;
  std::unique_ptr<namesrv::NameServer> namesrv_;
  std::unique_ptr<broker::Broker> broker_;
  std::string namesrv_addr_;
  std::unique_ptr<ClientInstance> instance_;
  std::unique_ptr<Producer> producer_;
  std::unique_ptr<AdminClient> admin_;

 private:
  void start_broker();
  std::list<std::unique_ptr<PushConsumer>> pushes_;
  std::list<std::unique_ptr<LitePullConsumer>> lites_;
};

}  // namespace ferry::client::asio_testing
