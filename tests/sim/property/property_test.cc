// The ordering and delivery guarantees Ferry promises, as properties over generated cluster runs
// (sim/property/property.h; docs/properties.md). Each case is a whole cluster — production NameServer,
// brokers and clients — run in the simulator under a generated fault schedule, and judged by the
// History's checkers (sim/check). ctest runs a bounded number of cases per property
// (RC_PARAMS=max_success=N, tests/sim/CMakeLists.txt); `tools/test.sh --long` runs many more.
#include <gtest/gtest.h>
#include <rapidcheck/gtest.h>

#include <map>
#include <string>
#include <utility>

#include "sim/property/property.h"
#include "tests/sim/property/recorded.h"

namespace ferry::sim::property {
namespace {

// 1. Per-key order: on ordered topics read by orderly consumers, the acknowledged sends of each
// key are first consumed in send order (a redelivery after a failure may repeat, never reorder).
RC_GTEST_PROP(Guarantees, PerKeyOrder, ()) {
  Shape shape;
  shape.topics = TopicOrder::ordered;
  shape.consumers = {Flavor::orderly};
  const Outcome out = recorded(*gen_run(shape));
  require_check(out, "key-order");
}

// 2. Per-queue FIFO: a group's consumed offsets of a queue never go back but for an explained
// redelivery (a crash, a restart, a fault, a rebalance between the two deliveries).
RC_GTEST_PROP(Guarantees, PerQueueFifo, ()) {
  const Outcome out = recorded(*gen_run(Shape{}));
  require_check(out, "queue-offsets");
}

// 3. Orderly exclusivity: no two orderly consumers of a group process one queue at the same time,
// broker crashes and restarts included: a restarted broker grants no lock for one lock lifetime
// (rebalance_lock_manager.h; docs/properties.md).
RC_GTEST_PROP(Guarantees, OrderlyExclusive, ()) {
  Shape shape;
  shape.consumers = {Flavor::orderly};
  const Outcome out = recorded(*gen_run(shape));
  require_check(out, "orderly-exclusive");
}

// 4. At-least-once in clustering: after healing, every acknowledged message has been consumed by
// some member of each subscribed group (strict: no generated fault loses acknowledged data).
RC_GTEST_PROP(Guarantees, AtLeastOnceClustering, ()) {
  Shape shape;
  shape.consumers = {Flavor::concurrent, Flavor::orderly, Flavor::lite_pull};
  const Outcome out = recorded(*gen_run(shape));
  require_converged(out);
  require_check(out, "lost-acked");
}

// 5. Broadcast: every consumer that stays receives every message acknowledged after it first
// subscribed.
RC_GTEST_PROP(Guarantees, BroadcastReachesEveryConsumer, ()) {
  Shape shape;
  shape.consumers = {Flavor::broadcast};
  const Outcome out = recorded(*gen_run(shape));
  require_converged(out);
  require_check(out, "lost-acked");
}

// 6. Store prefix: after any broker restart, its log is a prefix of what it held before the
// crash, and holds everything that had been synced.
RC_GTEST_PROP(Guarantees, StorePrefix, ()) {
  Shape shape;
  shape.faults = {FaultKind::kill, FaultKind::power_off, FaultKind::slow_disk, FaultKind::partition};
  const Outcome out = recorded(*gen_run(shape));
  require_check(out, "store-prefix");
}

// 7. Transactions: a committed transactional message reaches every subscribed group, whether the
// producer's verdict or a check answered by another producer committed it (lost-acked owes it);
// a rolled-back one never reaches anybody (transactions), through kills of producers in their
// local phase, broker crashes and failovers.
RC_GTEST_PROP(Guarantees, TransactionsCommitOrNever, ()) {
  Shape shape;
  shape.topics = TopicOrder::unordered;
  shape.transactions = true;
  shape.consumers = {Flavor::concurrent, Flavor::lite_pull};
  const Outcome out = recorded(*gen_run(shape));
  require_converged(out);
  require_check(out, "transactions");
  require_check(out, "lost-acked");
}

// 8. POP consumption (RocketMQ 5): POP consumers sharing every queue with a push group beside
// them; what a POP consumer left unacknowledged comes back after its invisible time, never before
// and never after an ack answered in time (a restart of its broker excuses: pop-delivery), and
// every acknowledged message reaches both groups.
RC_GTEST_PROP(Guarantees, PopRedeliversWhatWasNotAcknowledged, ()) {
  Shape shape;
  shape.consumers = {Flavor::pop, Flavor::concurrent};
  const Outcome out = recorded(*gen_run(shape));
  require_converged(out);
  require_check(out, "pop-delivery");
  require_check(out, "lost-acked");
}

// 9. FIFO POP (RocketMQ 5's orderly POP): on ordered topics, a FIFO POP group gets one batch of a
// queue at a time, from the first message it has not acknowledged (pop-fifo), so each key's
// messages are first received in send order (key-order); what it left comes back from its queue
// after its invisible time (pop-delivery), and every acknowledged message arrives.
RC_GTEST_PROP(Guarantees, FifoPopHandsOutEachQueueInOrder, ()) {
  Shape shape;
  shape.topics = TopicOrder::ordered;
  shape.consumers = {Flavor::pop_fifo};
  const Outcome out = recorded(*gen_run(shape));
  require_converged(out);
  require_check(out, "pop-fifo");
  require_check(out, "key-order");
  require_check(out, "pop-delivery");
  require_check(out, "lost-acked");
}

// 10. Timer messages (RocketMQ 5): producers of unordered topics ask for delays of 1-20 s; none is
// consumed before its send plus its delay, none later than a precision plus 2 s after it unless a
// fault lies in between, and none is lost, through broker crashes, controller failovers (the new
// master takes over the pending timers) and wall-clock jumps, beside push, lite-pull and POP groups.
// (Not orderly groups: two orderly consumers starting together may both claim a queue, and the one
// refused its broker lock takes it at its next rebalance, 20 s later: a consumer's lateness, not the
// timer's, which the late bound would blame.)
RC_GTEST_PROP(Guarantees, TimersNeitherEarlyNorLost, ()) {
  Shape shape;
  shape.timers = true;
  shape.consumers = {Flavor::concurrent, Flavor::lite_pull, Flavor::pop};
  const Outcome out = recorded(*gen_run(shape));
  require_converged(out);
  require_check(out, "timer_delivery");
  require_check(out, "lost-acked");
}

}  // namespace
}  // namespace ferry::sim::property

namespace ferry::sim::property {
namespace {

// docs/properties.md's worked example: with no fault and nobody joining or leaving, every
// acknowledged message reaches every clustering group within 30 s of its acknowledgement. (Not
// 5 s: two orderly consumers starting together may both claim a queue, and the one refused its
// broker lock tries again at its next rebalance, 20 s later.)
RC_GTEST_PROP(Example, DeliveredWithinThirtySecondsWithoutFaults, ()) {
  Shape shape;
  shape.faults = {};
  shape.joins_and_leaves = false;
  shape.consumers = {Flavor::concurrent, Flavor::orderly, Flavor::lite_pull};
  const Outcome out = recorded(*gen_run(shape));
  require_converged(out);
  const sim::History& h = *out.result.history;
  // The first delivery of each message to each group.
  std::map<std::pair<std::string, std::string>, MonoTime> first;  // (group, producer#seq) -> when
  for (const sim::ConsumeRecord& c : h.consumes) first.try_emplace({c.group, c.id()}, c.at);
  for (const std::string& group : h.groups()) {
    for (const sim::SendRecord& s : h.sends) {
      if (s.outcome != sim::SendOutcome::ok || h.subscriptions.at(group).count(s.topic) == 0) continue;
      const auto it = first.find({group, s.id()});
      RC_ASSERT(it != first.end());
      RC_ASSERT(it->second - s.done_at <= std::chrono::seconds(30));
    }
  }
}

}  // namespace
}  // namespace ferry::sim::property
