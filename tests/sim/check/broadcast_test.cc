// Broadcast consumers judged one by one (lost-acked, duplicates, key-order), and the scenario's
// corrupt and per_key_order settings, on hand-built histories.
#include <gtest/gtest.h>

#include "sim/check/checkers.h"
#include "sim/check/duplicates.h"
#include "sim/check/failover.h"
#include "sim/check/key_order.h"
#include "sim/check/lost_acked.h"
#include "sim/check/queue_offsets.h"
#include "sim/check/unexpected.h"
#include "sim/history/acked_progress.h"
#include "tests/sim/check/history_builder.h"

namespace ferry::sim::check {
namespace {

using testing::at_ms;
using testing::HistoryBuilder;
using testing::queue;

void watcher(History& h, const std::string& name, std::int64_t start_ms) {
  ConsumerInfo info;
  info.group = "w";
  info.topic = "Orders";
  info.broadcast = true;
  h.record_consumer(at_ms(start_ms), name, info);
  h.subscriptions["w"].insert("Orders");
}

// Three acknowledged sends at 0, 10, 20 ms (offsets 0..2 of queue 0).
HistoryBuilder three_sends() {
  HistoryBuilder b;
  for (std::uint64_t i = 0; i < 3; ++i) b.send("p", i, queue(0), static_cast<std::int64_t>(i));
  return b;
}

TEST(Broadcast, EveryBroadcastConsumerMustReceiveEverythingItself) {
  HistoryBuilder b = three_sends();
  watcher(b.h, "w-0", 0);
  watcher(b.h, "w-1", 0);
  for (std::uint64_t i = 0; i < 3; ++i) b.consume("w-0", "w", "p", i, queue(0), static_cast<std::int64_t>(i), 100);
  b.consume("w-1", "w", "p", 0, queue(0), 0, 100).consume("w-1", "w", "p", 2, queue(0), 2, 100);  // p#1 planted missing
  const Verdict v = check_lost_acked(b.h);
  EXPECT_FALSE(v.passed);
  EXPECT_EQ(v.figures.at("lost"), 1);
  EXPECT_EQ(v.figures.at("broadcast_consumers"), 2);
  EXPECT_NE(v.first_violation.find("p#1 acknowledged at 15 ms as "), std::string::npos) << v.first_violation;
  EXPECT_NE(v.first_violation.find("never consumed by broadcast consumer w-1 (w)"), std::string::npos) << v.first_violation;
  // The group as a whole consumed everything: only the per-consumer judgement catches it.
  EXPECT_TRUE(acked_not_consumed(b.h, "w", {"Orders"}).empty());
  // Two members each receiving every message are no duplicates.
  EXPECT_EQ(check_duplicates(b.h).figures.at("duplicates"), 0);
}

TEST(Broadcast, WhatCameBeforeAConsumerStartedOrWhereItStartedReadingIsNotOwed) {
  HistoryBuilder b = three_sends();
  watcher(b.h, "late", 5);   // p#0 was sent at 0 ms, before it started
  watcher(b.h, "last", 0);   // started reading queue 0 at offset 2 (consume_from LAST)
  watcher(b.h, "gone", 0);   // left for good: judged no more
  b.h.consumers["gone"].left_at = at_ms(50);
  b.consume("late", "w", "p", 1, queue(0), 1, 100).consume("late", "w", "p", 2, queue(0), 2, 100);
  b.consume("last", "w", "p", 2, queue(0), 2, 100);
  const Verdict v = check_lost_acked(b.h);
  EXPECT_TRUE(v.passed) << v.to_line();
  EXPECT_EQ(v.figures.at("broadcast_consumers"), 2);
  EXPECT_TRUE(acked_not_consumed_by(b.h, "late").empty());
  EXPECT_TRUE(acked_not_consumed_by(b.h, "last").empty());
  EXPECT_EQ(acked_not_consumed_by(b.h, "gone").size(), 3u) << "the liveness phase does not ask it (it is not live)";
}

TEST(Broadcast, AConsumerOwesAQueueFromItsFirstTake) {
  HistoryBuilder b = three_sends();  // p#0..2 sent at 0, 10, 20 ms at offsets 0..2
  watcher(b.h, "idle", 0);
  watcher(b.h, "skipper", 0);
  // Its first rebalance (the NameServer had no route until then) took queue 0 at its end, 3: it
  // consumed nothing, and owes nothing of what came before.
  b.h.takes.push_back(TakeRecord{at_ms(30), "idle", queue(0), QueueOffset(3)});
  // Took queue 0 at 5 ms from offset 2: p#1 was sent after the take, so it is owed wherever the
  // consumer chose to start.
  b.h.takes.push_back(TakeRecord{at_ms(5), "skipper", queue(0), QueueOffset(2)});
  b.consume("skipper", "w", "p", 2, queue(0), 2, 100);
  EXPECT_TRUE(acked_not_consumed_by(b.h, "idle").empty());
  const std::vector<const SendRecord*> owed = acked_not_consumed_by(b.h, "skipper");
  ASSERT_EQ(owed.size(), 1u);
  EXPECT_EQ(owed.front()->id(), "p#1");
  // A later take (after a rebalance or a restart) does not move where it started.
  b.h.takes.push_back(TakeRecord{at_ms(200), "skipper", queue(0), QueueOffset(3)});
  EXPECT_EQ(acked_not_consumed_by(b.h, "skipper").size(), 1u);
}

TEST(Broadcast, KeyOrderIsJudgedPerBroadcastConsumer) {
  HistoryBuilder b;
  for (std::uint64_t i = 0; i < 2; ++i) b.send("p", i, queue(0), static_cast<std::int64_t>(i), SendOutcome::ok, "k", true);
  watcher(b.h, "w-0", 0);
  watcher(b.h, "w-1", 0);
  // Interleaved, each in order: w-1's p#0 after w-0's p#1 is no reorder.
  b.consume("w-0", "w", "p", 0, queue(0), 0, 100).consume("w-0", "w", "p", 1, queue(0), 1, 110);
  b.consume("w-1", "w", "p", 0, queue(0), 0, 120).consume("w-1", "w", "p", 1, queue(0), 1, 130);
  const Verdict v = check_key_order(b.h);
  EXPECT_TRUE(v.passed) << v.to_line();
}

TEST(CheckSettings, CorruptFalseCountsCorruptDeliveriesWithoutFailing) {
  HistoryBuilder b = three_sends();
  b.consume("c", "g", "p", 0, queue(0), 0, 100);
  b.h.consumes.back().intact = false;
  EXPECT_FALSE(check_unexpected(b.h).passed);
  b.h.settings.corrupt_fails = false;
  const Verdict v = check_unexpected(b.h);
  EXPECT_TRUE(v.passed) << v.to_line();
  EXPECT_EQ(v.figures.at("corrupt"), 1);
}

TEST(CheckSettings, PerKeyOrderOverridesTheOrderedTopicDefault) {
  // Unordered sends (ordered = false), consumed out of order.
  HistoryBuilder b;
  for (std::uint64_t i = 0; i < 2; ++i) b.send("p", i, queue(0), static_cast<std::int64_t>(i), SendOutcome::ok, "k", false);
  b.consume("c", "g", "p", 1, queue(0), 1, 100).consume("c", "g", "p", 0, queue(0), 0, 110);
  EXPECT_TRUE(check_key_order(b.h).passed) << "by default only sends to ordered topics are judged";
  b.h.settings.per_key_order = true;
  const Verdict on = check_key_order(b.h);
  EXPECT_FALSE(on.passed) << on.to_line();
  EXPECT_EQ(on.figures.at("reorders"), 1);
  // Ordered sends out of order, with per_key_order = false: counted, not failed.
  for (SendRecord& s : b.h.sends) s.ordered = true;
  b.h.settings.per_key_order = false;
  const Verdict off = check_key_order(b.h);
  EXPECT_TRUE(off.passed) << off.to_line();
  EXPECT_EQ(off.figures.at("reorders"), 1);
}

// The liveness phase's incremental count agrees with the checker's full scan after every append:
// sends still in flight, completed later, consumptions arriving, a broadcast consumer's start.
TEST(AckedProgress, AgreesWithTheFullScanAsTheHistoryGrows) {
  auto h = std::make_shared<History>();
  h->subscriptions["g"].insert("Orders");
  watcher(*h, "w-0", 15);
  AckedProgress group = AckedProgress::for_group(h, "g");
  AckedProgress broadcast = AckedProgress::for_consumer(h, "w-0");
  auto agree = [&](const std::string& step) {
    const auto [gn, gfirst] = group.missing();
    const auto full_g = acked_not_consumed(*h, "g", {"Orders"});
    EXPECT_EQ(gn, full_g.size()) << step;
    EXPECT_EQ(gfirst, full_g.empty() ? nullptr : full_g.front()) << step;
    const auto [bn, bfirst] = broadcast.missing();
    const auto full_b = acked_not_consumed_by(*h, "w-0");
    EXPECT_EQ(bn, full_b.size()) << step;
    EXPECT_EQ(bfirst, full_b.empty() ? nullptr : full_b.front()) << step;
  };
  HistoryBuilder b;
  for (std::uint64_t i = 0; i < 6; ++i) b.send("p", i, queue(static_cast<std::int32_t>(i % 2)), static_cast<std::int64_t>(i / 2));
  b.send("p", 6, queue(0, "broker-a", "Other"), 0);  // another topic: owed to nobody here
  for (SendRecord s : b.h.sends) {
    // In flight first (outcome unknown, not completed), completed at the next step.
    const SendOutcome outcome = s.outcome;
    s.outcome = SendOutcome::unknown;
    s.done_at = MonoTime{};
    h->sends.push_back(s);
    agree("in flight " + s.id());
    h->sends.back().outcome = s.seq == 3 ? SendOutcome::failed : outcome;
    h->sends.back().done_at = s.sent_at + std::chrono::milliseconds(5);
    agree("completed " + s.id());
  }
  auto consume = [&](const std::string& consumer, const std::string& group, std::uint64_t seq) {
    const SendRecord& s = h->sends.at(seq);
    ConsumeRecord c;
    c.consumer = consumer;
    c.group = group;
    c.topic = s.topic;
    c.queue = s.queue;
    c.queue_offset = s.queue_offset;
    c.intact = true;
    c.producer = s.producer;
    c.seq = s.seq;
    c.key = s.key;
    h->consumes.push_back(c);
    agree(consumer + " consumed " + s.id());
  };
  for (std::uint64_t seq : {1u, 0u, 2u, 5u, 4u}) consume("c-0", "g", seq);
  EXPECT_EQ(group.missing().first, 0u) << "p#3 failed, p#6 is of another topic";
  EXPECT_EQ(broadcast.missing().first, 3u) << "w-0 started at 15 ms: it owes p#2, p#4, p#5";
  for (std::uint64_t seq : {4u, 5u}) consume("w-0", "w", seq);
  EXPECT_EQ(broadcast.missing().first, 0u) << "it started reading queue 0 at offset 2: p#2 (offset 1) came before";
  // The observer saw its take of queue 0 after the deliveries: from offset 1, at 12 ms (p#2 at
  // 20 ms came after it and is owed again).
  h->takes.push_back(TakeRecord{MonoTime(std::chrono::milliseconds(12)), "w-0", queue(0), QueueOffset(1)});
  agree("a take seen after the deliveries");
  EXPECT_EQ(broadcast.missing().first, 1u);
  consume("w-0", "w", 2);
  EXPECT_EQ(broadcast.missing().first, 0u);
}

}  // namespace
}  // namespace ferry::sim::check
