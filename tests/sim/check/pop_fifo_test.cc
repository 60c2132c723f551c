// The pop-fifo check: a FIFO POP group gets one batch of a queue at a time, from the first
// message it has not acknowledged; and PopProgress (the liveness phase's view of a POP group).
#include "sim/check/pop_fifo.h"

#include <gtest/gtest.h>

#include <memory>

#include "sim/history/pop_progress.h"
#include "tests/sim/check/history_builder.h"

namespace ferry::sim::check {
namespace {

using testing::at_ms;
using testing::HistoryBuilder;
using testing::queue;

const MessageQueue kQ = queue(0, "broker-a", "Orders");
const MessageQueue kQ1 = queue(1, "broker-a", "Orders");

// A POP reply: offsets [from, to] of `q` (producer-0's messages from seq `from`), its POP sent at
// `sent_ms` and arrived at `ms`, invisible for `invisible_ms` from the POP's sending.
void batch(HistoryBuilder& b, const std::string& consumer, const MessageQueue& q, std::int64_t from, std::int64_t to, std::int64_t sent_ms,
           std::int64_t ms, std::int64_t invisible_ms, std::int32_t count = 0) {
  for (std::int64_t o = from; o <= to; ++o) {
    b.pop(consumer, "fifo-readers", "producer-0", static_cast<std::uint64_t>(o + q.queue_id.value() * 100), q, o, ms, 0, count);
    b.h.consumes.back().pop = PopDelivery{at_ms(sent_ms), at_ms(sent_ms + invisible_ms)};
  }
}

// The ack of the delivery `back` records before the last (0: the last), sent at `ms`.
void ack(HistoryBuilder& b, std::size_t back, std::int64_t ms) {
  PopAckRecord a;
  a.consume = b.h.consumes.size() - 1 - back;
  a.sent_at = at_ms(ms);
  a.done_at = at_ms(ms + 2);
  a.ok = true;
  b.h.pop_acks.push_back(a);
}

// Two consumers of a FIFO group: offsets 0-2 to fifo-0 (0 acknowledged, then it stops), handed
// out again from 1 once their 5 s are over, all acknowledged, then 4-5; queue 1 beside it.
HistoryBuilder clean() {
  HistoryBuilder b;
  for (const char* c : {"fifo-0", "fifo-1"}) {
    b.h.consumers[c].group = "fifo-readers";
    b.h.consumers[c].kind = "pop-fifo";
  }
  batch(b, "fifo-0", kQ, 0, 2, 1'000, 1'010, 5'000);
  ack(b, 2, 1'020);
  batch(b, "fifo-1", kQ1, 0, 1, 1'500, 1'510, 5'000);  // another queue: not blocked
  batch(b, "fifo-1", kQ, 1, 3, 6'100, 6'110, 5'000, 1);
  for (std::size_t i = 0; i < 3; ++i) ack(b, i, 6'120);
  batch(b, "fifo-0", kQ, 4, 5, 6'200, 6'210, 5'000);
  return b;
}

TEST(PopFifo, OneBatchOfAQueueAtATimeFromTheFirstUnacknowledged) {
  const Verdict v = check_pop_fifo(clean().h);
  EXPECT_TRUE(v.passed) << v.to_line();
  EXPECT_EQ(v.figures.at("fifo_groups"), 1);
  EXPECT_EQ(v.figures.at("batches"), 4);
}

TEST(PopFifo, ABatchWhileAnotherIsOutAndInvisibleFails) {
  HistoryBuilder b = clean();
  batch(b, "fifo-0", kQ1, 0, 1, 2'000, 2'010, 5'000, 1);  // queue 1's 0-1 are out until 6.5 s
  const Verdict v = check_pop_fifo(b.h);
  EXPECT_FALSE(v.passed);
  EXPECT_EQ(v.figures.at("overlapped"), 1) << v.to_line();
  EXPECT_NE(v.first_violation.find("fifo-readers handed fifo-0 offsets 0..1 of"), std::string::npos) << v.first_violation;
  EXPECT_NE(v.first_violation.find("overlapped, offset 0 handed to fifo-1 at 1510 ms was unacknowledged and invisible until 6500 ms"),
            std::string::npos)
      << v.first_violation;
  // A restart of the broker in between forgets the batch: excused.
  b.event(1'800, EventKind::start, "broker-a", "started again (incarnation 3)");
  const Verdict excused = check_pop_fifo(b.h);
  EXPECT_TRUE(excused.passed) << excused.to_line();
  EXPECT_EQ(excused.figures.at("excused"), 1);
}

TEST(PopFifo, GoingPastAnUnacknowledgedMessageFails) {
  HistoryBuilder b = clean();
  // Queue 1's batch (0-1) left unacknowledged; once visible the broker goes on at 2.
  batch(b, "fifo-0", kQ1, 2, 3, 7'000, 7'010, 5'000);
  const Verdict v = check_pop_fifo(b.h);
  EXPECT_FALSE(v.passed);
  EXPECT_EQ(v.figures.at("skipped"), 1) << v.to_line();
  EXPECT_NE(v.first_violation.find("skipped, offset 0, handed out before it, was not acknowledged"), std::string::npos)
      << v.first_violation;
  // A restart does not excuse it (the committed offset is where the queue goes on) ...
  b.event(6'800, EventKind::start, "broker-a", "started again (incarnation 3)");
  EXPECT_FALSE(check_pop_fifo(b.h).passed);
  // ... another master does (its offsets are its own).
  b.event(6'900, EventKind::promote, "broker-a-s1", "promoted");
  EXPECT_TRUE(check_pop_fifo(b.h).passed);
}

TEST(PopFifo, AnOffsetHandedOutOnlyAfterALaterOneWasSkipped) {
  HistoryBuilder b = clean();
  ack(b, 0, 6'220);
  ack(b, 1, 6'220);
  batch(b, "fifo-0", kQ, 7, 7, 12'000, 12'010, 5'000);  // 6 never handed out before 7
  batch(b, "fifo-1", kQ, 6, 6, 13'000, 13'010, 5'000);
  const Verdict v = check_pop_fifo(b.h);
  EXPECT_FALSE(v.passed);
  EXPECT_NE(v.first_violation.find("skipped, offset 6 was handed out only after it"), std::string::npos) << v.first_violation;
}

TEST(PopFifo, GroupsThatDoNotReceiveInOrderAreNotJudged) {
  HistoryBuilder b = clean();
  batch(b, "fifo-1", kQ1, 2, 3, 2'000, 2'010, 5'000);
  for (auto& [name, info] : b.h.consumers) info.kind = "pop";
  const Verdict v = check_pop_fifo(b.h);
  EXPECT_TRUE(v.passed) << v.to_line();
  EXPECT_EQ(v.figures.at("batches"), 0);
}

// The liveness view: a retry copy with more reconsumes settles a message whose earlier delivery
// was left, even when the copy's POP went out first (parked until the copy was revived).
TEST(PopProgressTest, ARetryCopyFromAnEarlierPopSettlesTheDeliveryItCameFrom) {
  const MessageQueue retry = queue(0, "broker-a", "%RETRY%fifo-readers_Orders");
  auto h = std::make_shared<HistoryBuilder>();
  h->pop("pop-0", "pop-readers", "producer-0", 1, kQ, 0, 5'000, 1'000);  // left
  h->pop("pop-1", "pop-readers", "producer-0", 1, retry, 0, 6'300, 1'000, 1);
  h->h.consumes.back().pop->requested_at = at_ms(4'990);  // parked from before the first POP
  std::shared_ptr<const History> view(h, &h->h);
  PopProgress progress(view, "pop-readers", 16);
  EXPECT_EQ(progress.unsettled().first, 1u);  // the copy is not acknowledged yet
  ack(*h, 0, 6'310);
  EXPECT_EQ(progress.unsettled().first, 0u);
  // Handed out again from its queue after that (a restart rolled the offset back): open again.
  h->pop("pop-0", "pop-readers", "producer-0", 1, kQ, 0, 8'000, 1'000);
  const auto open = progress.unsettled();
  EXPECT_EQ(open.first, 1u);
  ASSERT_NE(open.second, nullptr);
  EXPECT_EQ(open.second->at, at_ms(8'000));
}

// The order the broker handed a message out in: the consumers' times when they tell (a broker
// clock that jumped back says otherwise), else the broker's (a long poll sent first may be
// answered last).
TEST(PopOrder, ConsumerTimesWhenTheyTellElseTheBrokersClock) {
  HistoryBuilder b;
  b.pop("pop-0", "pop-readers", "producer-0", 1, kQ, 0, 1'000, 1'000);
  b.pop("pop-1", "pop-readers", "producer-0", 1, kQ, 0, 30'000, 1'000);
  b.h.consumes[1].pop->pop_time_ms = 1'000 - 120'000;  // its broker's clock jumped back two minutes
  std::vector<std::uint64_t> order{1, 0};
  pop_sort(b.h, order);
  EXPECT_EQ(order, (std::vector<std::uint64_t>{0, 1}));
  // A POP parked from 2.0 s answered at 3.2 s, after one sent at 2.1 s answered at 2.1 s.
  b.pop("pop-0", "pop-readers", "producer-0", 1, kQ, 0, 3'200, 1'000);
  b.h.consumes[2].pop->requested_at = at_ms(2'000);
  b.h.consumes[2].pop->pop_time_ms = 3'200;
  b.pop("pop-1", "pop-readers", "producer-0", 1, kQ, 0, 2'100, 1'000);
  order = {0, 2, 3};
  pop_sort(b.h, order);
  EXPECT_EQ(order, (std::vector<std::uint64_t>{0, 3, 2}));
  // Without the broker's time (a file before version 17): by when the POPs went out.
  b.h.consumes[2].pop->pop_time_ms = -1;
  order = {0, 3, 2};
  pop_sort(b.h, order);
  EXPECT_EQ(order, (std::vector<std::uint64_t>{0, 2, 3}));
}

}  // namespace
}  // namespace ferry::sim::check
