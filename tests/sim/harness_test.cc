// make_sim_harness: the conformance harness runs tasks on a simulated node and reports a task
// that cannot finish as a test failure instead of hanging.
#include <gtest/gtest.h>
#include <gtest/gtest-spi.h>

#include "tests/runtime/conformance.h"
#include "tests/support/co_assert.h"

namespace ferry::testing {
namespace {

Task<void> ping(Runtime* rt, Runtime* peer, std::string* got) {
  auto l = peer->network().listen(Endpoint{peer->network().host(), 0});
  CO_ASSERT(l.ok(), "listen: {}", l.error().to_string());
  auto c = co_await rt->network().connect((*l)->local(), 1s);
  CO_ASSERT(c.ok(), "connect: {}", c.error().to_string());
  auto s = co_await (*l)->accept();
  CO_ASSERT(s.ok(), "accept: {}", s.error().to_string());
  const std::string text = "ping";
  const Status w = co_await (*c)->write(Bytes(reinterpret_cast<const std::uint8_t*>(text.data()), text.size()));
  CO_ASSERT(w.ok(), "write: {}", w.error().to_string());
  std::uint8_t buf[16];
  auto n = co_await (*s)->read_some(MutableBytes(buf, sizeof buf));
  CO_ASSERT(n.ok(), "read: {}", n.error().to_string());
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

// CO_ASSERT (tests/support/co_assert.h) fails the one test, with the caller's condition and
// message, and leaves the coroutine: nothing after it runs and the binary goes on.
Task<void> assert_then_mark(Runtime* rt, bool condition, bool* after) {
  co_await rt->sleep(1ms);
  CO_ASSERT(condition, "saw {}", 42);
  *after = true;
}

Task<int> assert_or_value(Runtime* rt, bool condition) {
  co_await rt->sleep(1ms);
  CO_ASSERT_OR(condition, -1, "saw {}", 7);
  co_return 1;
}

Task<void> record_value(Runtime* rt, bool condition, int* out) { *out = co_await assert_or_value(rt, condition); }

TEST(SimHarness, CoAssertFailsOneTestAndLeavesTheCoroutine) {
  auto h = make_sim_harness(9);
  bool after = false;
  EXPECT_NONFATAL_FAILURE(h->run(assert_then_mark(&h->rt(), false, &after), 10s), "CO_ASSERT(condition) failed: saw 42");
  EXPECT_FALSE(after) << "the code after a failed CO_ASSERT ran";
  EXPECT_TRUE(h->run(assert_then_mark(&h->rt(), true, &after), 10s));
  EXPECT_TRUE(after);
  int v = 0;
  EXPECT_NONFATAL_FAILURE(h->run(record_value(&h->rt(), false, &v), 10s), "saw 7");
  EXPECT_EQ(v, -1);
  EXPECT_TRUE(h->run(record_value(&h->rt(), true, &v), 10s));
  EXPECT_EQ(v, 1);
}

}  // namespace
}  // namespace ferry::testing
