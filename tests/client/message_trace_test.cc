// Message trace from Ferry's own client (client/trace_dispatcher.h) in a simulated cluster: a
// producer and a push consumer with enable_msg_trace leave, for each message, a Pub record and a
// SubBefore / SubAfter pair on RMQ_SYS_TRACE_TOPIC in RocketMQ's format, found by the message's
// msgId as `mqadmin queryMsgTraceById` finds them (QUERY_MESSAGE by key on the trace topic); a
// failed consumption says so with its context code; a transaction producer's verdicts leave
// EndTransaction records; the dispatcher's buffer is bounded.
#include "client/trace_dispatcher.h"

#include <map>

#include "client/producer.h"
#include "client/push_consumer.h"
#include "client/transaction_producer.h"
#include "common/names.h"
#include "tests/support/client_consumer_fixture.h"
#include "tests/support/swarm_env.h"

namespace ferry::client::testing {
namespace {

using namespace std::chrono_literals;

class MessageTraceTest : public ConsumerTest {
 protected:
  // Every trace context naming `msg_id`, from the trace messages a query by that key finds.
  // A topic the broker just created reaches the NameServer with its registration, which a fault
  // may delay (the next comes within 30 s): the query is asked again meanwhile, as a user would.
  std::vector<TraceContext> traces_of(const std::string& msg_id) {
    Result<std::vector<MessageExt>> found = run(admin().query_message(std::string(kTraceTopic), msg_id, 64, 0, INT64_MAX));
    for (int again = 0; !found.ok() && found.error().code == Errc::not_found && again < 60; ++again) {
      cluster().run_for(1s);
      found = run(admin().query_message(std::string(kTraceTopic), msg_id, 64, 0, INT64_MAX));
    }
    std::vector<TraceContext> out;
    if (!found.ok()) {
      ADD_FAILURE() << "query of " << msg_id << ": " << found.error().to_string() << seed_text();
      return out;
    }
    for (const MessageExt& m : *found) {
      EXPECT_EQ(m.topic, kTraceTopic);
      Result<std::vector<TraceContext>> contexts =
          decode_trace_data(std::string_view(reinterpret_cast<const char*>(m.body.data()), m.body.size()));
      EXPECT_TRUE(contexts.ok()) << contexts.error().to_string() << seed_text();
      if (!contexts.ok()) continue;
      for (TraceContext& c : *contexts) {
        if (c.bean.msg_id == msg_id) out.push_back(std::move(c));
      }
    }
    return out;
  }
  static std::vector<const TraceContext*> of_type(const std::vector<TraceContext>& cs, TraceType t) {
    std::vector<const TraceContext*> out;
    for (const TraceContext& c : cs) {
      if (c.type == t) out.push_back(&c);
    }
    return out;
  }
  // Until every context `d` took was answered by the broker (a send that failed under faults
  // leaves it short; then completeness is not asserted).
  bool all_sent(const TraceDispatcher& d) {
    return eventually([&] { return d.stats().sent_contexts + d.stats().failed_sends > 0 &&
                                   d.stats().sent_contexts == d.stats().appended; },
                      30s);
  }
};

TEST_F(MessageTraceTest, EachMessageHasItsPubAndSubRecordsFoundByItsMsgId) {
  boot({"broker-a"}, {{"T", 4}});
  auto out = std::make_shared<Deliveries>();
  PushConsumerConfig pc = push_config("TraceCG");
  pc.enable_msg_trace = true;
  const sim::NodeId c = add_push_consumer("consumer-1", pc, {"T", out});
  Producer& p = producer(ProducerConfig{.group = "TracePG", .enable_msg_trace = true});
  ASSERT_NE(p.trace(), nullptr);

  std::map<std::string, SendResult> sent;  // by msgId
  std::map<std::string, std::int32_t> body_size;  // by msgId
  for (int i = 0; i < 12; ++i) {
    Message m = text_message("T", numbered("traced-", i), "TagA");
    const auto size = static_cast<std::int32_t>(m.body.size());
    m.set_keys("order-" + std::to_string(i));
    Result<SendResult> r = run(p.send(std::move(m)));
    ASSERT_TRUE(r.ok()) << r.error().to_string() << seed_text();
    sent.emplace(r->msg_id, *r);
    body_size[r->msg_id] = size;
  }
  std::set<std::string> bodies;
  for (int i = 0; i < 12; ++i) bodies.insert(numbered("traced-", i));
  ASSERT_TRUE(wait_all(out, bodies, 120s)) << seed_text();
  const bool pubs_complete = all_sent(*p.trace());
  const bool subs_complete = all_sent(*push(c).trace());
  if (!ferry::testing::under_swarm()) {
    EXPECT_TRUE(pubs_complete && subs_complete) << "fault-free, every trace send is stored" << seed_text();
    EXPECT_EQ(p.trace()->stats().dropped, 0u);
  }
  EXPECT_EQ(p.trace()->stats().appended, 12u) << "one Pub per stored send";

  for (const auto& [msg_id, r] : sent) {
    const std::vector<TraceContext> cs = traces_of(msg_id);
    const auto pubs = of_type(cs, TraceType::pub);
    if (pubs_complete) {
      EXPECT_GE(pubs.size(), 1u) << msg_id << seed_text();
    }
    for (const TraceContext* pub : pubs) {
      EXPECT_EQ(pub->group, "TracePG");
      EXPECT_EQ(pub->region_id, "DefaultRegion");
      EXPECT_EQ(pub->bean.topic, "T");
      EXPECT_EQ(pub->bean.tags, "TagA");
      EXPECT_TRUE(pub->bean.keys.starts_with("order-")) << pub->bean.keys;
      EXPECT_EQ(pub->bean.offset_msg_id, r.offset_msg_id);
      EXPECT_EQ(pub->bean.store_host, broker_addr(0));
      EXPECT_EQ(pub->bean.body_length, body_size[msg_id]);
      EXPECT_EQ(pub->bean.msg_type, 0);
      EXPECT_EQ(pub->success, r.status == SendStatus::SEND_OK);
      EXPECT_GE(pub->cost_ms, 0);
    }
    const auto befores = of_type(cs, TraceType::sub_before);
    const auto afters = of_type(cs, TraceType::sub_after);
    if (subs_complete) {
      EXPECT_GE(befores.size(), 1u) << msg_id << seed_text();
      EXPECT_EQ(afters.size(), befores.size()) << msg_id << seed_text();
    }
    for (const TraceContext* before : befores) {
      EXPECT_EQ(before->group, "TraceCG");
      EXPECT_GE(before->bean.retry_times, 0);
    }
    for (const TraceContext* after : afters) {
      // A SubAfter answers the SubBefore of the same listener call (its request id).
      const bool answered = std::any_of(befores.begin(), befores.end(),
                                        [&](const TraceContext* b) { return b->request_id == after->request_id; });
      if (subs_complete) {
        EXPECT_TRUE(answered) << msg_id << " request " << after->request_id << seed_text();
      }
      EXPECT_EQ(after->group, "TraceCG");
      EXPECT_TRUE(after->success);
      EXPECT_EQ(after->context_code, static_cast<std::int32_t>(ConsumeReturnType::success));
      EXPECT_GT(after->timestamp_ms, 0);
    }
  }
}

TEST_F(MessageTraceTest, AFailedConsumptionIsTracedAsFailedAndItsRetryCounts) {
  boot({"broker-a"}, {{"T", 2}});
  auto out = std::make_shared<Deliveries>();
  PushConsumerConfig pc = push_config("TraceCG");
  pc.enable_msg_trace = true;
  Subscription sub{"T", out};
  sub.answer = [](const MessageExt& m, ConsumeConcurrentlyContext& ctx) {
    ctx.delay_level_when_next_consume = 1;  // 1 s
    return m.reconsume_times == 0 ? ConsumeConcurrentlyStatus::RECONSUME_LATER : ConsumeConcurrentlyStatus::CONSUME_SUCCESS;
  };
  const sim::NodeId c = add_push_consumer("consumer-1", pc, sub);
  Producer& p = producer();
  Result<SendResult> r = run(p.send(text_message("T", "once-refused")));
  ASSERT_TRUE(r.ok()) << r.error().to_string();
  ASSERT_TRUE(eventually([&] { return out->count_by_body["once-refused"] >= 2; }, 120s)) << seed_text();
  if (!all_sent(*push(c).trace())) GTEST_SKIP() << "a trace send failed under faults" << seed_text();

  const std::vector<TraceContext> cs = traces_of(r->msg_id);
  const auto afters = of_type(cs, TraceType::sub_after);
  const auto befores = of_type(cs, TraceType::sub_before);
  ASSERT_GE(afters.size(), 2u) << seed_text();
  std::map<std::string, std::int32_t> retry_by_request;
  for (const TraceContext* b : befores) retry_by_request[b->request_id] = b->bean.retry_times;
  bool failed_first = false;
  bool succeeded_on_retry = false;
  for (const TraceContext* a : afters) {
    ASSERT_TRUE(retry_by_request.contains(a->request_id)) << seed_text();
    const std::int32_t retry = retry_by_request[a->request_id];
    if (retry == 0) {
      failed_first = true;
      EXPECT_FALSE(a->success);
      EXPECT_EQ(a->context_code, static_cast<std::int32_t>(ConsumeReturnType::failed));
    } else {
      succeeded_on_retry = succeeded_on_retry || a->success;
      // Consumed from the retry topic, traced under the original topic and msgId.
      EXPECT_EQ(a->bean.msg_id, r->msg_id);
    }
  }
  EXPECT_TRUE(failed_first) << seed_text();
  EXPECT_TRUE(succeeded_on_retry) << seed_text();
}

TEST_F(MessageTraceTest, ALitePullConsumerTracesWhatItsPullsBring) {
  boot({"broker-a"}, {{"T", 2}});
  Producer& p = producer();
  Result<SendResult> r = run(p.send(text_message("T", "pulled", "TagL")));
  ASSERT_TRUE(r.ok()) << r.error().to_string();
  LitePullConsumerConfig lc = lite_config("LiteTraceCG");
  lc.enable_msg_trace = true;
  const sim::NodeId c = add_lite_consumer("lite-1", lc, [](LitePullConsumer& l) { EXPECT_TRUE(l.subscribe("T", "*").ok()); });
  bool polled = false;
  for (int i = 0; i < 60 && !polled; ++i) {
    const std::vector<MessageExt> got = run_on(c, lite(c).poll(1s), 10s);
    polled = std::any_of(got.begin(), got.end(), [&](const MessageExt& m) { return m.msg_id() == r->msg_id; });
  }
  ASSERT_TRUE(polled) << seed_text();
  if (!all_sent(*lite(c).trace())) GTEST_SKIP() << "a trace send failed under faults" << seed_text();
  const std::vector<TraceContext> cs = traces_of(r->msg_id);
  const auto befores = of_type(cs, TraceType::sub_before);
  const auto afters = of_type(cs, TraceType::sub_after);
  ASSERT_GE(befores.size(), 1u) << seed_text();
  ASSERT_EQ(afters.size(), befores.size()) << seed_text();
  EXPECT_EQ(befores.front()->group, "LiteTraceCG");
  EXPECT_EQ(afters.front()->request_id, befores.front()->request_id);
  EXPECT_TRUE(afters.front()->success);
}

TEST_F(MessageTraceTest, ATransactionLeavesAHalfPubAndItsEndTransaction) {
  boot({"broker-a"}, {{"TxT", 2}});
  TransactionListener listener;
  listener.execute = [](const Message&, const SendResult&) { return LocalTransactionState::commit; };
  listener.check = [](const MessageExt&) { return LocalTransactionState::commit; };
  TransactionProducer tp(instance(), ProducerConfig{.group = "TxTracePG", .enable_msg_trace = true}, listener);
  ASSERT_TRUE(tp.start().ok());
  Message m = text_message("TxT", "tx-body", "TxTag");
  m.set_keys("tx-key");
  Result<TransactionSendResult> r = run(tp.send_in_transaction(std::move(m)));
  ASSERT_TRUE(r.ok()) << r.error().to_string() << seed_text();
  ASSERT_EQ(r->state, LocalTransactionState::commit);
  if (!all_sent(*tp.producer().trace())) GTEST_SKIP() << "a trace send failed under faults" << seed_text();

  const std::vector<TraceContext> cs = traces_of(r->send.msg_id);
  const auto pubs = of_type(cs, TraceType::pub);
  ASSERT_GE(pubs.size(), 1u) << seed_text();
  EXPECT_EQ(pubs.front()->bean.msg_type, 1) << "a half message";
  EXPECT_EQ(pubs.front()->bean.topic, "TxT");
  const auto ends = of_type(cs, TraceType::end_transaction);
  ASSERT_EQ(ends.size(), 1u) << seed_text();
  const TraceContext& end = *ends.front();
  EXPECT_EQ(end.group, "TxTracePG");
  EXPECT_EQ(end.bean.topic, "TxT");
  EXPECT_EQ(end.bean.tags, "TxTag");
  EXPECT_EQ(end.bean.keys, "tx-key");
  EXPECT_EQ(end.bean.transaction_state, "COMMIT_MESSAGE");
  EXPECT_FALSE(end.bean.from_transaction_check);
  EXPECT_EQ(end.bean.store_host, broker_addr(0));
  run(tp.shutdown());
}

TEST_F(MessageTraceTest, TheBufferIsBoundedAndDropsAreCounted) {
  boot({"broker-a"}, {{"T", 2}});
  TraceDispatcher d(instance(), "BurstPG", TraceRole::produce, "");
  ASSERT_TRUE(d.start().ok());
  TraceContext c;
  c.type = TraceType::pub;
  c.group = "BurstPG";
  c.bean.topic = "T";
  std::size_t taken = 0;
  // All in one turn of the loop: no trace send can be answered meanwhile.
  for (std::size_t i = 0; i < TraceDispatcher::kContextsMax + 100; ++i) {
    c.bean.msg_id = fmt::format("ID{:06}", i);
    c.bean.keys = std::string(200, 'k');  // ~1000 contexts fill several batches of 118 000 bytes
    if (d.append(c)) ++taken;
  }
  EXPECT_EQ(taken, TraceDispatcher::kContextsMax);
  EXPECT_EQ(d.stats().dropped, 100u);
  EXPECT_GE(d.stats().sends, 2u) << "full batches leave at once";
  // Once the sends are answered the buffer takes contexts again.
  ASSERT_TRUE(eventually([&] { return d.stats().sent_contexts + d.stats().failed_sends > 0 && d.stats().sends >= 2; }, 30s));
  ASSERT_TRUE(eventually([&] { return d.append(c); }, 30s)) << seed_text();
  run(d.shutdown());
  EXPECT_FALSE(d.append(c)) << "shut down";
}

}  // namespace
}  // namespace ferry::client::testing
