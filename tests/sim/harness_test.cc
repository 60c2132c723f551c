// make_sim_harness: the conformance harness runs tasks on a simulated node and reports a task
// that cannot finish as a test failure instead of hanging.
#include <gtest/gtest.h>
#include <gtest/gtest-spi.h>

#include "runtime/conformance.h"

namespace ferry::testing {
namespace {

Task<void> ping(Runtime* rt, Runtime* peer, std::string* got) {
  auto l = peer->network().listen(Endpoint{peer->network().host(), 0});
  FERRY_ASSERT(l.ok());
  auto c = co_await rt->network().connect((*l)->local(), 1s);
  FERRY_ASSERT(c.ok());
  auto s = co_await (*l)->accept();
  FERRY_ASSERT(s.ok());
  const std::string text = "ping";
  FERRY_ASSERT((co_await (*c)->write(Bytes(reinterpret_cast<const std::uint8_t*>(text.data()), text.size()))).ok());
  std::uint8_t buf[16];
  auto n = co_await (*s)->read_some(MutableBytes(buf, sizeof buf));
  FERRY_ASSERT(n.ok());
  got->assign(reinterpret_cast<const char*>(buf), *n);
}

TEST(SimHarness, RunsATaskBetweenTwoNodes) {
  auto h = make_sim_harness(7);
  EXPECT_EQ(h->name(), "sim");
  EXPECT_NE(h->rt().network().host(), h->peer().network().host());
  EXPECT_EQ(h->listen_address(h->rt()).port, 0);
  std::string got;
  EXPECT_TRUE(h->run(ping(&h->rt(), &h->peer(), &got), 10s));
  EXPECT_EQ(got, "ping");
}

Task<void> forever(Runtime* rt) {
  Completion<int> never(rt->executor());
  (void)co_await never.wait();
}

TEST(SimHarness, ReportsADeadlockAsAFailure) {
  auto h = make_sim_harness(8);
  EXPECT_NONFATAL_FAILURE(EXPECT_FALSE(h->run(forever(&h->rt()), 10s)), "deadlock");
}

}  // namespace
}  // namespace ferry::testing
