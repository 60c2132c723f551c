// The blocking consumer wrappers in simulation: calls handed to the loop complete their futures
// once the world runs; the push listener is a plain std::function (inline here, an offload
// thread in production); a lite poll future resolves with a batch.
#include <future>

#include "client_api/blocking_lite_pull_consumer.h"
#include "client_api/blocking_push_consumer.h"
#include "tests/support/client_consumer_fixture.h"

namespace ferry::client::testing {
namespace {

using namespace std::chrono_literals;

template <typename T>
bool ready(const std::future<T>& f) {
  return f.wait_for(0s) == std::future_status::ready;
}

TEST_F(ConsumerTest, BlockingPushAndLitePullConsumers) {
  boot({"broker-a"}, {{"T", 2}});
  PushConsumer push(instance(), push_config("BPG"));
  LitePullConsumer lite(instance(), lite_config("BLG"));

  client_api::BlockingPushConsumer bp(client_rt(), push);
  auto got = std::make_shared<std::set<std::string>>();
  std::future<Status> sub = bp.subscribe("T", "*");
  std::future<void> lis = bp.set_listener([got](const std::vector<MessageExt>& msgs, ConsumeConcurrentlyContext&) {
    for (const MessageExt& m : msgs) got->insert(body_text(m));
    return ConsumeConcurrentlyStatus::CONSUME_SUCCESS;
  });
  std::future<Status> started = bp.start();
  EXPECT_FALSE(ready(started)) << "calls run on the loop, not inline";
  client_api::BlockingLitePullConsumer bl(client_rt(), lite);
  std::future<Status> lsub = bl.subscribe("T", "*");
  std::future<Status> lstart = bl.start();
  ASSERT_TRUE(eventually([&] { return ready(started) && ready(lstart); }, 10s));
  ASSERT_TRUE(sub.get().ok());
  lis.get();
  ASSERT_TRUE(started.get().ok());
  ASSERT_TRUE(lsub.get().ok());
  ASSERT_TRUE(lstart.get().ok());

  std::set<std::string> sent = send_n("T", 10, "x");
  ASSERT_TRUE(eventually([&] { return *got == sent; }, 60s)) << got->size() << seed_text();

  // A poll may time out empty: a pull's reply can come as late as its 30 s timeout.
  std::set<std::string> polled;
  const MonoTime until = client_rt().now() + 90s;
  while (polled.size() < sent.size() && client_rt().now() < until) {
    std::future<std::vector<MessageExt>> f = bl.poll(2s);
    ASSERT_TRUE(eventually([&] { return ready(f); }, 30s)) << seed_text();
    for (const MessageExt& m : f.get()) polled.insert(body_text(m));
  }
  EXPECT_EQ(polled, sent) << seed_text();

  std::future<void> c = bl.commit();
  std::future<void> s1 = bl.shutdown();
  std::future<void> s2 = bp.shutdown();
  ASSERT_TRUE(eventually([&] { return ready(c) && ready(s1) && ready(s2); }, 30s));
}

}  // namespace
}  // namespace ferry::client::testing
