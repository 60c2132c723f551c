// POP consumption on one broker (broker/pop_service.h): what a POP hands out stays invisible
// for its invisible time; what is acknowledged never comes back; what is not comes back on the
// group's POP retry topic with its handle, once per expiry, and goes to the DLQ past
// retryMaxTimes; a changed invisible time and a batch ack act on their handles; checkpoints
// survive a kill; FIFO hands out one batch of a queue at a time; a long poll wakes on arrival.
#include <algorithm>
#include <set>

#include "broker/pop_checkpoint.h"
#include "broker/pop_order_manager.h"
#include "common/pop_receipt.h"
#include "remoting/body/batch_ack_body.h"
#include "remoting/header/pop_header.h"
#include "tests/broker/broker_fixture.h"
#include "tests/support/broker_inspector.h"

#include <rapidcheck/gtest.h>  // after gtest (the fixture)

using ferry::testing::BrokerInspector;

namespace ferry::broker::testing {
namespace {

using namespace std::chrono_literals;
using remoting::PopMessageRequestHeader;

struct Popped {
  Call call;
  std::vector<MessageExt> messages;
  std::vector<ReceiptHandle> handles;  // one per message
  std::vector<std::string> bodies() const {
    std::vector<std::string> out;
    for (const MessageExt& m : messages) out.push_back(body_text(m));
    return out;
  }
  std::vector<std::string> sorted_bodies() const {
    auto out = bodies();
    std::sort(out.begin(), out.end());
    return out;
  }
};

class PopTest : public BrokerTest {
 protected:
  const PopService& service() { return BrokerInspector(broker()).pop(); }

  void send_bodies(std::initializer_list<std::string_view> bodies, std::int32_t queue = 0) {
    for (std::string_view b : bodies) {
      Msg m;
      m.body = std::string(b);
      m.queue_id = queue;
      ASSERT_EQ(send(m).reply.code, code::SUCCESS) << b;
    }
  }

  // One POP as a client sends it; the handles built as RocketMQ's clients build them (POP_CK when
  // the broker set it, else from the header's startOffsetInfo).
  Popped pop(std::int64_t invisible_ms, std::int32_t max = 32, bool order = false, std::int32_t queue = -1,
             std::int64_t poll_ms = 0, const std::string& group = "G") {
    PopMessageRequestHeader h;
    h.consumer_group = group;
    h.topic = "T";
    h.queue_id = queue;
    h.max_msg_nums = max;
    h.invisible_time = invisible_ms;
    h.poll_time = poll_ms;
    h.born_time = 0;
    h.init_mode = remoting::kPopInitModeMin;
    if (order) h.order = true;
    Popped p;
    p.call = call(plain_request(rc::POP_MESSAGE, h.to_fields()), std::chrono::milliseconds(poll_ms) + 5s);
    if (p.call.reply.code != code::SUCCESS) return p;
    p.messages = messages_of(p.call.reply);
    auto rh = remoting::PopMessageResponseHeader::from_fields(p.call.reply.ext_fields);
    EXPECT_TRUE(rh.ok()) << rh.error().to_string();
    if (!rh) return p;
    auto info = OffsetInfo::parse(rh->start_offset_info.value_or(""), rh->msg_offset_info.value_or(""),
                                  rh->order_count_info.value_or(""));
    EXPECT_TRUE(info.ok()) << info.error().to_string();
    for (const MessageExt& m : p.messages) {
      EXPECT_EQ(m.topic, "T") << "a POP hands messages out as of the topic asked for";
      if (auto ck = m.properties.get(kPropertyPopCk)) {
        auto handle = ReceiptHandle::parse(*ck);
        EXPECT_TRUE(handle.ok()) << handle.error().to_string();
        p.handles.push_back(handle.ok() ? *handle : ReceiptHandle{});
        continue;
      }
      const std::string key = OffsetInfo::queue_key(PopRetry::none, m.queue_id.value());
      EXPECT_TRUE(info.ok() && info->start_offsets.contains(key)) << key;
      p.handles.push_back(ReceiptHandle{.ck_offset = info.ok() ? info->start_offsets[key] : 0,
                                        .pop_time = rh->pop_time,
                                        .invisible_time = rh->invisible_time,
                                        .revive_qid = rh->revive_qid,
                                        .retry = PopRetry::none,
                                        .broker_name = config_.broker_name,
                                        .queue_id = m.queue_id.value(),
                                        .queue_offset = m.queue_offset.value()});
    }
    return p;
  }

  // POPs until `n` messages came or a POP finds nothing: a POP may hand out fewer than there are
  // (a short batch is legal, and buggify takes it). `call` is the first POP's.
  Popped pop_n(std::size_t n, std::int64_t invisible_ms, const std::string& group = "G") {
    Popped all;
    for (int i = 0; i < 40 && all.messages.size() < n; ++i) {
      Popped p = pop(invisible_ms, static_cast<std::int32_t>(std::min<std::size_t>(32, n - all.messages.size())), false, -1,
                     0, group);
      if (i == 0) all.call = p.call;
      if (p.call.reply.code != code::SUCCESS) break;
      all.messages.insert(all.messages.end(), p.messages.begin(), p.messages.end());
      all.handles.insert(all.handles.end(), p.handles.begin(), p.handles.end());
    }
    return all;
  }

  Call ack(const ReceiptHandle& h, const std::string& group = "G") {
    remoting::AckMessageRequestHeader a;
    a.consumer_group = group;
    a.topic = pop_real_topic("T", group, h.retry);
    a.queue_id = QueueId(h.queue_id);
    a.extra_info = h.encode();
    a.offset = QueueOffset(h.queue_offset);
    return call(plain_request(rc::ACK_MESSAGE, a.to_fields()));
  }

  Call change(const ReceiptHandle& h, std::int64_t invisible_ms) {
    remoting::ChangeInvisibleTimeRequestHeader c;
    c.consumer_group = "G";
    c.topic = pop_real_topic("T", "G", h.retry);
    c.queue_id = QueueId(h.queue_id);
    c.extra_info = h.encode();
    c.offset = QueueOffset(h.queue_offset);
    c.invisible_time = invisible_ms;
    return call(plain_request(rc::CHANGE_MESSAGE_INVISIBLETIME, c.to_fields()));
  }

  // POPs (invisible `invisible_ms`) until one finds nothing, acknowledging everything: the bodies.
  std::vector<std::string> drain(std::int64_t invisible_ms = 60'000) {
    std::vector<std::string> out;
    for (int i = 0; i < 50; ++i) {
      Popped p = pop(invisible_ms);
      if (p.call.reply.code != code::SUCCESS) break;
      for (std::size_t j = 0; j < p.messages.size(); ++j) {
        out.push_back(body_text(p.messages[j]));
        EXPECT_EQ(ack(p.handles[j]).reply.code, code::SUCCESS);
      }
    }
    std::sort(out.begin(), out.end());
    return out;
  }
};

TEST_F(PopTest, WhatIsNotAcknowledgedComesBackOnTheRetryTopicOnce) {
  boot();
  send_bodies({"a", "b", "c", "d"});
  const MonoTime popped_at = now();
  Popped first = pop_n(4, 10'000);
  ASSERT_EQ(first.call.reply.code, code::SUCCESS) << first.call.remark();
  ASSERT_EQ(first.bodies(), (std::vector<std::string>{"a", "b", "c", "d"}));
  EXPECT_EQ(first.call.field("invisibleTime"), "10000");
  if (first.call.field("msgOffsetInfo") == "0 0 0,1,2,3") {  // one POP took them all (no short batch)
    EXPECT_EQ(first.call.field("restNum"), "0");
    EXPECT_EQ(service().revive().open_count(), 1u);
  }
  EXPECT_LT(std::stoi(first.call.field("reviveQid")), config_.revive_queue_num);

  if (now() < popped_at + 9s) {
    Popped hidden = pop(10'000);
    EXPECT_EQ(hidden.call.reply.code, code::POLLING_TIMEOUT) << "handed out twice while invisible: " << hidden.bodies().size();
  }
  EXPECT_EQ(ack(first.handles[0]).reply.code, code::SUCCESS);
  EXPECT_EQ(ack(first.handles[2]).reply.code, code::SUCCESS);
  EXPECT_EQ(ack(first.handles[2]).reply.code, code::SUCCESS) << "a second ack of the same handle is no error";

  run_until_time(popped_at + 12s);
  Popped back = pop_n(2, 10'000);
  ASSERT_EQ(back.call.reply.code, code::SUCCESS) << back.call.remark();
  EXPECT_EQ(back.sorted_bodies(), (std::vector<std::string>{"b", "d"}));
  for (std::size_t i = 0; i < back.messages.size(); ++i) {
    const MessageExt& m = back.messages[i];
    EXPECT_EQ(m.reconsume_times, 1);
    EXPECT_EQ(back.handles[i].retry, PopRetry::v1);
    EXPECT_EQ(m.properties.get("RETRY_TOPIC"), std::optional<std::string_view>("T"));
    EXPECT_TRUE(m.properties.get(kPropertyFirstPopTime).has_value());
    EXPECT_EQ(ack(back.handles[i]).reply.code, code::SUCCESS);
  }
  EXPECT_EQ(service().revive().revived_messages(), 2u);
  const metrics::Snapshot s = broker().metrics().collect();
  EXPECT_EQ(s.value("rocketmq_pop_revive_retry_messages_total"), 2);
  EXPECT_EQ(s.value("rocketmq_pop_checkpoint_buffer_size"), static_cast<double>(service().revive().open_count()));
  run_for(12s);
  EXPECT_EQ(pop(10'000).call.reply.code, code::POLLING_TIMEOUT) << "acknowledged retries come back";
  EXPECT_EQ(service().revive().open_count(), 0u);
  EXPECT_EQ(all_of("%RETRY%G_T").size(), 2u) << "each unacknowledged message was re-put once";
}

TEST_F(PopTest, GroupsShareNothingAndAPullConsumerSeesEveryMessage) {
  boot();
  send_bodies({"x", "y"});
  EXPECT_EQ(pop_n(2, 30'000, "G").sorted_bodies(), (std::vector<std::string>{"x", "y"}));
  EXPECT_EQ(pop_n(2, 30'000, "H").sorted_bodies(), (std::vector<std::string>{"x", "y"}));
  EXPECT_EQ(all_of("T").size(), 2u) << "a pull consumer of another group reads the topic as ever";
}

TEST_F(PopTest, AChangedInvisibleTimeAndABatchAckActOnTheirHandles) {
  boot();
  send_bodies({"keep", "one", "two"});
  const MonoTime popped_at = now();
  Popped p = pop_n(3, 20'000);
  ASSERT_EQ(p.bodies(), (std::vector<std::string>{"keep", "one", "two"}));
  const MonoTime changing = now();
  Call changed = change(p.handles[0], 60'000);
  ASSERT_EQ(changed.reply.code, code::SUCCESS) << changed.remark();
  const MonoTime changed_at = now();
  auto rh = remoting::ChangeInvisibleTimeResponseHeader::from_fields(changed.reply.ext_fields);
  ASSERT_TRUE(rh.ok()) << rh.error().to_string();
  EXPECT_EQ(rh->invisible_time, 60'000);
  const ReceiptHandle renewed = p.handles[0].after_change(rh->pop_time, rh->invisible_time, rh->revive_qid);
  EXPECT_EQ(change(p.handles[0], 1'000).reply.code, code::NO_MESSAGE) << "the old handle is stale";

  remoting::body::BatchAckMessageRequestBody batch;
  batch.broker_name = config_.broker_name;
  for (std::size_t i : {1, 2}) {  // one entry per checkpoint: the two may have come in two POPs
    const ReceiptHandle& h = p.handles[i];
    if (!batch.acks.empty() && batch.acks.back().start_offset == h.ck_offset && batch.acks.back().pop_time == h.pop_time) {
      batch.acks.back().offsets.push_back(h.queue_offset);
      continue;
    }
    batch.acks.push_back(remoting::body::BatchAck{.consumer_group = "G", .topic = "T", .retry = PopRetry::none,
                                                  .start_offset = h.ck_offset, .queue_id = 0, .revive_qid = h.revive_qid,
                                                  .pop_time = h.pop_time, .invisible_time = 20'000,
                                                  .offsets = {h.queue_offset}});
  }
  RemotingCommand req = plain_request(rc::BATCH_ACK_MESSAGE);
  req.body = batch.encode();
  EXPECT_EQ(call(req).reply.code, code::SUCCESS);
  // Under swarm faults the calls may take long: acks that came after the invisible time came too
  // late (their messages came back already, as they should).
  const bool acked_in_time = now() < popped_at + 18s;

  RemotingCommand empty = plain_request(rc::BATCH_ACK_MESSAGE);
  empty.body = remoting::body::BatchAckMessageRequestBody{}.encode();
  EXPECT_EQ(call(empty).reply.code, code::NO_MESSAGE);

  run_until_time(popped_at + 25s);
  if (acked_in_time && now() < changing + 55s) {
    Popped early = pop(5'000);
    EXPECT_EQ(early.call.reply.code, code::POLLING_TIMEOUT) << "the changed one is invisible for 60 s: "
                                                            << ::testing::PrintToString(early.bodies());
  }
  run_until_time(changed_at + 65s);
  Popped back = pop_n(acked_in_time ? 1 : 3, 5'000);
  ASSERT_FALSE(back.messages.empty());
  const std::vector<std::string> returned = back.bodies();
  EXPECT_NE(std::find(returned.begin(), returned.end(), "keep"), returned.end());
  for (const ReceiptHandle& h : back.handles) EXPECT_EQ(ack(h).reply.code, code::SUCCESS);
  EXPECT_EQ(ack(renewed).reply.code, code::SUCCESS) << "late: nothing to do, and no error";
  if (acked_in_time) {
    EXPECT_EQ(back.bodies(), (std::vector<std::string>{"keep"}));
    EXPECT_EQ(all_of("%RETRY%G_T").size(), 1u);
  }
}

TEST_F(PopTest, PastRetryMaxTimesAMessageGoesToTheDeadLetterTopic) {
  boot();
  SubscriptionGroupConfig g;
  g.group_name = "G";
  g.retry_max_times = 1;
  BrokerInspector(broker()).put_group(g);
  send_bodies({"poison"});
  ASSERT_EQ(pop(2'000).bodies(), (std::vector<std::string>{"poison"}));
  run_for(4s);
  Popped again = pop_n(1, 2'000);
  ASSERT_EQ(again.bodies(), (std::vector<std::string>{"poison"}));
  EXPECT_EQ(again.messages[0].reconsume_times, 1);
  run_for(4s);
  EXPECT_EQ(pop(2'000).call.reply.code, code::POLLING_TIMEOUT);
  const auto dead = all_of("%DLQ%G");
  ASSERT_EQ(dead.size(), 1u);
  EXPECT_EQ(body_text(dead[0]), "poison");
  EXPECT_EQ(dead[0].retry_topic(), std::optional<std::string_view>("T"));
  EXPECT_EQ(service().revive().dead_lettered(), 1u);
  EXPECT_EQ(broker().metrics().collect().value("rocketmq_send_to_dlq_messages_total", {"G", "T", "false"}), 1)
      << "the revive's DLQ counts as a send-back's does";
}

TEST_F(PopTest, RefusalsSayWhatIsWrong) {
  boot();
  send_bodies({"m"});
  EXPECT_EQ(pop(10'000, 33).call.reply.code, code::SYSTEM_ERROR);
  EXPECT_EQ(pop(0).call.reply.code, code::SYSTEM_ERROR);
  EXPECT_EQ(pop(10'000, 1, false, 9).call.reply.code, code::SYSTEM_ERROR) << "queue 9 of a 4-queue topic";
  Popped p = pop(10'000);
  ASSERT_EQ(p.messages.size(), 1u);
  ReceiptHandle bad_offset = p.handles[0];
  bad_offset.queue_offset = 99;
  EXPECT_EQ(ack(bad_offset).reply.code, code::NO_MESSAGE);
  ReceiptHandle bad_queue = p.handles[0];
  bad_queue.queue_id = 17;
  EXPECT_EQ(ack(bad_queue).reply.code, code::MESSAGE_ILLEGAL);
  remoting::AckMessageRequestHeader garbled;
  garbled.consumer_group = "G";
  garbled.topic = "T";
  garbled.queue_id = QueueId(0);
  garbled.extra_info = "not a handle";
  garbled.offset = QueueOffset(0);
  Call g = call(plain_request(rc::ACK_MESSAGE, garbled.to_fields()));
  EXPECT_EQ(g.reply.code, code::SYSTEM_ERROR);
  EXPECT_NE(g.remark().find("receipt handle"), std::string::npos) << g.remark();
  RemotingCommand junk = plain_request(rc::BATCH_ACK_MESSAGE);
  junk.body = {'{', 'x'};
  EXPECT_EQ(call(junk).reply.code, code::SYSTEM_ERROR);
  EXPECT_EQ(ack(p.handles[0]).reply.code, code::SUCCESS) << "the refusals changed nothing";
}

// Checkpoints are stored in the revive log: a killed broker brings back what was handed out and
// not acknowledged, and never what was acknowledged.
TEST_F(PopTest, CheckpointsAndAcksSurviveAKill) {
  config_.flush_disk_type = store::FlushMode::sync_flush;
  boot();
  send_bodies({"a", "b", "c", "d"});
  Popped p = pop_n(4, 20'000);
  ASSERT_EQ(p.bodies(), (std::vector<std::string>{"a", "b", "c", "d"}));
  ASSERT_EQ(ack(p.handles[1]).reply.code, code::SUCCESS);
  run_for(11s);  // the consumer offset the POP moved is persisted (every 5 s)
  cluster().kill(cluster().broker_node(0));
  cluster().start(cluster().broker_node(0));
  wait_running();
  reconnect_clients();
  EXPECT_GE(service().revive().open_count(), 1u) << "replayed from the revive log";
  run_for(12s);
  const std::vector<std::string> back = drain();
  if (ferry::testing::under_swarm()) {
    // Faults may lose the offset's persist: the topic's messages may come again too.
    for (std::string_view b : {"a", "c", "d"}) EXPECT_NE(std::find(back.begin(), back.end(), b), back.end()) << b;
  } else {
    EXPECT_EQ(back, (std::vector<std::string>{"a", "c", "d"}));
  }
}

TEST_F(PopTest, AGracefulRestartKeepsCheckpointsAndTheirProgress) {
  boot();
  send_bodies({"a", "b"});
  Popped p = pop_n(2, 15'000);
  ASSERT_EQ(p.bodies(), (std::vector<std::string>{"a", "b"}));
  ASSERT_EQ(ack(p.handles[0]).reply.code, code::SUCCESS);
  graceful_restart();
  EXPECT_EQ(service().revive().open_count(), 1u);
  run_for(18s);
  EXPECT_EQ(drain(), (std::vector<std::string>{"b"}));
  graceful_restart();
  EXPECT_EQ(service().revive().open_count(), 0u);
  EXPECT_EQ(service().revive().replayed_records(), 0u) << "the progress offset skips closed checkpoints";
}

TEST_F(PopTest, FifoHandsOutOneBatchOfAQueueAtATime) {
  without_buggify("asserts each batch's size (a short batch is legal, and buggify takes it)");
  boot();
  send_bodies({"1", "2", "3", "4"});
  const MonoTime start = now();
  Popped a = pop(5'000, 2, true, 0);
  ASSERT_EQ(a.bodies(), (std::vector<std::string>{"1", "2"}));
  EXPECT_EQ(a.call.field("reviveQid"), "999");
  EXPECT_EQ(a.call.field("orderCountInfo"), "0 0 0");
  if (now() < start + 4s) {
    EXPECT_EQ(pop(5'000, 2, true, 0).call.reply.code, code::POLLING_TIMEOUT) << "the batch is not done";
  }
  EXPECT_EQ(broker().metrics().collect().value("ferry_pop_fifo_batches"), 1);
  ASSERT_EQ(ack(a.handles[1]).reply.code, code::SUCCESS);
  if (now() < start + 4s) {
    EXPECT_EQ(pop(5'000, 2, true, 0).call.reply.code, code::POLLING_TIMEOUT) << "message 1 is not acknowledged";
  }
  ASSERT_EQ(ack(a.handles[0]).reply.code, code::SUCCESS);
  const MonoTime second = now();
  Popped b = pop(5'000, 2, true, 0);
  ASSERT_EQ(b.bodies(), (std::vector<std::string>{"3", "4"}));
  ReceiptHandle outside = b.handles[0];
  outside.queue_offset = 0;  // acknowledged already: stale, no error
  EXPECT_EQ(ack(outside).reply.code, code::SUCCESS);
  // A long-polled FIFO POP waits for the batch's invisible time, not for its whole poll time.
  Popped again = pop(5'000, 2, true, 0, 15'000);
  ASSERT_EQ(again.bodies(), (std::vector<std::string>{"3", "4"})) << "the same batch, in order, after its invisible time";
  EXPECT_LT(now() - second, 7s) << "answered when the batch became visible again";
  EXPECT_EQ(again.call.field("orderCountInfo"), "0 qo0%2 1;0 qo0%3 1;0 0 1");
  ASSERT_EQ(ack(again.handles[0]).reply.code, code::SUCCESS);
  ASSERT_EQ(ack(again.handles[1]).reply.code, code::SUCCESS);
  EXPECT_EQ(pop(5'000, 2, true, 0).call.reply.code, code::POLLING_TIMEOUT);
  EXPECT_EQ(all_of("%RETRY%G_T").size(), 0u) << "FIFO uses no retry topic";
}

TEST_F(PopTest, ALongPollIsAnsweredWhenAMessageArrives) {
  without_buggify("measures that the arrival answers the held POP");
  boot();
  send_bodies({"first"});
  ASSERT_EQ(drain(), (std::vector<std::string>{"first"}));
  SendLater sender(cluster(), addr_, 2s, Msg{.body = "wake up"});
  const MonoTime start = now();
  Popped p = pop(10'000, 32, false, -1, 15'000);
  const Duration took = now() - start;
  ASSERT_EQ(p.bodies(), (std::vector<std::string>{"wake up"}));
  EXPECT_LT(took, 3s) << "woken by the arrival, not the poll time";
  EXPECT_EQ(service().hold().parked(), 0u);
  ASSERT_TRUE(cluster().run_until([&] { return sender.done(); }, 10s).ok());
  const MonoTime idle = now();
  EXPECT_EQ(pop(10'000, 32, false, -1, 3'000).call.reply.code, code::POLLING_TIMEOUT);
  EXPECT_GE(now() - idle, 3s - drift_slack(3s)) << "held for its poll time";
}

TEST(PopCheckpointRecord, RoundTripsWithRocketMqsKeysAndRefusesNonsense) {
  PopCheckpoint ck;
  ck.key = PopCheckpointKey{"T", "G", 2, 100, 1'700'000'000'000};
  ck.invisible_time = 60'000;
  ck.offset_diffs = {0, 3};
  ck.acked_bits = 1;
  ck.broker_name = "broker-a";
  const std::string text = encode_checkpoint(ck);
  EXPECT_EQ(text, R"({"so":100,"pt":1700000000000,"q":2,"t":"T","c":"G","it":60000,"bm":1,"n":2,"d":[0,3],)"
                  R"("bn":"broker-a","rp":0})");
  auto back = decode_checkpoint(text);
  ASSERT_TRUE(back.ok()) << back.error().to_string();
  EXPECT_EQ(*back, ck);
  EXPECT_EQ(back->index_of(103), 1);
  EXPECT_EQ(back->index_of(101), -1);
  EXPECT_FALSE(back->all_acked());
  EXPECT_FALSE(decode_checkpoint(R"({"so":1})").ok());
  EXPECT_FALSE(decode_checkpoint(R"({"so":1,"pt":1,"q":0,"t":"T","c":"G","it":1,"n":3,"d":[0]})").ok());
  const PopAckRecord ack{.key = ck.key, .broker_name = "broker-a", .offsets = {103}};
  auto ack_back = decode_ack(encode_ack(ack));
  ASSERT_TRUE(ack_back.ok()) << ack_back.error().to_string();
  EXPECT_EQ(*ack_back, ack);
}

}  // namespace
}  // namespace ferry::broker::testing

// Outside ferry::broker::testing, whose `rc` names the request codes (RapidCheck's is ::rc).
namespace ferry::broker::pop_model_test {
namespace {

// FIFO bookkeeping against a model, over random POPs, acks and time: the committed offset never
// passes a message that was not acknowledged, never goes back, and a queue is blocked exactly
// while a message of its batch is unacknowledged and invisible.
RC_GTEST_PROP(PopOrderManagerModel, NeverSkipsAnUnacknowledgedMessage, ()) {
  PopOrderManager m;
  const PopOrderManager::Key key{"T", "G", 0};
  const std::int64_t messages = *rc::gen::inRange<std::int64_t>(1, 40);
  std::int64_t committed = 0;
  WallMs now = 1'000;
  WallMs pop_time = 0;
  std::vector<std::int64_t> batch;
  std::set<std::int64_t> acked_ever;
  std::set<std::int64_t> acked_in_batch;
  std::int64_t invisible = 0;
  const int steps = *rc::gen::inRange(1, 80);
  for (int step = 0; step < steps; ++step) {
    const int op = *rc::gen::inRange(0, 3);
    if (op == 0) {  // a POP
      const auto until = m.blocked_until(key, std::nullopt, now);
      bool model_blocked = false;
      for (const std::int64_t o : batch) {
        if (acked_in_batch.count(o) == 0 && now < pop_time + invisible) model_blocked = true;
      }
      RC_ASSERT(until.has_value() == model_blocked);
      if (until || committed >= messages) continue;
      const std::int64_t n = *rc::gen::inRange<std::int64_t>(1, 5);
      batch.clear();
      for (std::int64_t o = committed; o < std::min(messages, committed + n); ++o) batch.push_back(o);
      acked_in_batch.clear();
      pop_time = now;
      invisible = *rc::gen::inRange<std::int64_t>(1, 100);
      (void)m.handed_out(key, pop_time, invisible, batch, std::nullopt);
    } else if (op == 1 && !batch.empty()) {  // an ack of one message of the batch
      const std::int64_t o = *rc::gen::elementOf(batch);
      const PopOrderManager::Ack a = m.ack(key, pop_time, o, committed);
      RC_ASSERT(a.outcome != PopOrderManager::AckOutcome::illegal || o < committed);
      acked_in_batch.insert(o);
      acked_ever.insert(o);
      if (a.outcome == PopOrderManager::AckOutcome::commit) {
        RC_ASSERT(a.next >= committed);
        committed = a.next;
      }
      if (std::all_of(batch.begin(), batch.end(), [&](std::int64_t b) { return acked_in_batch.count(b) > 0; })) batch.clear();
    } else {  // time passes
      now += *rc::gen::inRange<std::int64_t>(1, 60);
    }
    for (std::int64_t o = 0; o < committed; ++o) RC_ASSERT(acked_ever.count(o) > 0);
  }
}

}  // namespace
}  // namespace ferry::broker::pop_model_test
