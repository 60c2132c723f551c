// The client's main paths on the production runtime: a NameServer, a Broker (store in a temp
// directory) and a client in this process, each on its own Asio loop thread, over TCP on
// 127.0.0.1. The test thread uses the client as an application does (client_api wrappers,
// listeners on offload threads):
//  * sync, async and oneway sends (one body big enough to be compressed) reach a clustering push
//    consumer with body, tags, keys and msgId intact; a second group subscribed to one tag gets
//    exactly that tag;
//  * an orderly consumer sees every queue in offset order, one listener call per queue at a time;
//  * a lite pull consumer assigns queues, polls, commits (committed() and the broker agree),
//    seeks to an offset, to the beginning and to the end;
//  * the admin client creates a topic and reports its route, status, messages by key and msgId,
//    and the group's progress;
//  * RECONSUME_LATER sends a message back, and it returns through %RETRY%{group}.
// Waits are bounded (asio_cluster.h); nothing depends on how fast the machine is.
#include <algorithm>
#include <map>
#include <set>
#include <span>

#include "tests/client/asio_cluster.h"
#include "client/queue_selector.h"
#include "client_api/blocking_lite_pull_consumer.h"
#include "client_api/blocking_pop_consumer.h"
#include "client_api/blocking_producer.h"
#include "client_api/blocking_push_consumer.h"
#include "common/message_const.h"
#include "common/names.h"

namespace ferry::client::asio_testing {
namespace {

using namespace std::chrono_literals;

std::string str(std::optional<std::string_view> v) { return v ? std::string(*v) : std::string("<absent>"); }
std::string numbered(std::string_view prefix, int i) { return fmt::format("{}{}", prefix, i); }

std::set<std::string> bodies_of(const std::vector<MessageExt>& ms) {
  std::set<std::string> s;
  for (const MessageExt& m : ms) s.insert(std::string(m.body.begin(), m.body.end()));
  return s;
}

bool has_all(const std::vector<MessageExt>& ms, const std::set<std::string>& want) {
  const std::set<std::string> got = bodies_of(ms);
  return std::includes(got.begin(), got.end(), want.begin(), want.end());
}

// The queue of `queue_id` among the topic's writable queues.
QueueSelector to_queue(int queue_id) {
  return [queue_id](std::span<const MessageQueue> qs, const Message&, Random&) {
    for (std::size_t i = 0; i < qs.size(); ++i) {
      if (qs[i].queue_id == QueueId(queue_id)) return i;
    }
    return qs.size();
  };
}

ConcurrentListener recording_into(std::shared_ptr<Received> got) {
  return [got](const std::vector<MessageExt>& msgs, ConsumeConcurrentlyContext&) {
    got->add(msgs);
    return ConsumeConcurrentlyStatus::CONSUME_SUCCESS;
  };
}

class AsioLoopback : public AsioClusterTest {
 protected:
  // Builds, configures (subscribe + listener, through BlockingPushConsumer) and starts a push
  // consumer.
  template <typename Listener>
  PushConsumer& start_push(PushConsumerConfig pc, const std::string& topic, const std::string& expr, Listener listener) {
    PushConsumer& c = add_push(pc);
    client_api::BlockingPushConsumer b(client_node_->rt(), c);
    Status sub = await_future(b.subscribe(topic, expr), "subscribe");
    EXPECT_TRUE(sub.ok()) << sub.error().to_string();
    await_future(b.set_listener(std::move(listener)), "set_listener");
    Status started = await_future(b.start(), "start");
    EXPECT_TRUE(started.ok()) << started.error().to_string();
    return c;
  }
  // Polls until `want` messages came (or kWaitLimit passed).
  static std::vector<MessageExt> poll_n(client_api::BlockingLitePullConsumer& bl, std::size_t want) {
    std::vector<MessageExt> got;
    const auto end = std::chrono::steady_clock::now() + kWaitLimit;
    while (got.size() < want && std::chrono::steady_clock::now() < end) {
      std::vector<MessageExt> batch = await_future(bl.poll(500ms), "poll");
      got.insert(got.end(), batch.begin(), batch.end());
    }
    return got;
  }
  std::vector<QueueProgress> progress(const std::string& group, const std::string& topic) {
    AdminClient* a = admin_.get();
    Result<std::vector<QueueProgress>> p = client_node_->call([a, group, topic] { return a->consumer_progress(group, topic); });
    return p.ok() ? std::move(*p) : std::vector<QueueProgress>();
  }
  // Whether the broker has `group` at the end of every queue of `topic`; `persist` first sends a
  // push consumer's offsets (it would on its own within 10 s).
  bool caught_up(const std::string& group, const std::string& topic, std::size_t queues, PushConsumer* persist = nullptr) {
    if (persist != nullptr) client_node_->call([persist] { return persist->persist_offsets(); });
    std::vector<QueueProgress> p = progress(group, topic);
    if (p.size() != queues) return false;
    for (const QueueProgress& q : p) {
      if (q.lag() != 0) return false;
    }
    return true;
  }
};

TEST_F(AsioLoopback, SyncAsyncAndOnewaySendsReachPushConsumersIntact) {
  create_topic("LoopT", 4);
  PushConsumerConfig pc;
  pc.group = "LoopCG";
  pc.consume_from_where = ConsumeFromWhere::CONSUME_FROM_FIRST_OFFSET;
  auto got = std::make_shared<Received>();
  start_push(pc, "LoopT", "*", recording_into(got));
  pc.group = "LoopTagCG";
  auto got_a = std::make_shared<Received>();
  start_push(pc, "LoopT", "TagA", recording_into(got_a));

  struct Sent {
    std::string tag;
    std::string keys;
    std::string msg_id;  // empty for oneway sends
  };
  std::map<std::string, Sent> sent;
  client_api::BlockingProducer bp(client_node_->rt(), *producer_);
  auto make = [&](const std::string& body, int i) {
    const std::string tag = i % 2 == 0 ? "TagA" : "TagB";
    sent[body] = Sent{tag, "key-" + body + " order-" + std::to_string(i), ""};
    return message("LoopT", body, tag, sent[body].keys);
  };
  for (int i = 0; i < 10; ++i) {
    const std::string body = numbered("sync-", i);
    Result<SendResult> r = await_future(bp.send(make(body, i)), "send");
    ASSERT_TRUE(r.ok()) << r.error().to_string();
    sent[body].msg_id = r->msg_id;
  }
  const std::string big = "big-" + std::string(10000, 'x');  // over 4 KiB: compressed on the wire
  Result<SendResult> rb = await_future(bp.send(make(big, 0)), "send");
  ASSERT_TRUE(rb.ok()) << rb.error().to_string();
  sent[big].msg_id = rb->msg_id;
  std::map<std::string, std::future<Result<SendResult>>> async;
  for (int i = 0; i < 10; ++i) {
    const std::string body = numbered("async-", i);
    auto done = std::make_shared<std::promise<Result<SendResult>>>();
    async[body] = done->get_future();
    bp.send_async(make(body, i), [done](Result<SendResult> r) { done->set_value(std::move(r)); });
  }
  for (auto& [body, f] : async) {
    Result<SendResult> r = await_future(std::move(f), "async send callback");
    ASSERT_TRUE(r.ok()) << body << ": " << r.error().to_string();
    sent[body].msg_id = r->msg_id;
  }
  for (int i = 0; i < 10; ++i) {
    Status s = await_future(bp.send_oneway(make(numbered("oneway-", i), i)), "send_oneway");
    ASSERT_TRUE(s.ok()) << s.error().to_string();
  }

  std::set<std::string> all, tag_a;
  for (const auto& [body, s] : sent) {
    all.insert(body);
    if (s.tag == "TagA") tag_a.insert(body);
  }
  ASSERT_TRUE(got->wait_until([&](const auto& ms) { return has_all(ms, all); })) << bodies_of(got->snapshot()).size();
  ASSERT_TRUE(got_a->wait_until([&](const auto& ms) { return has_all(ms, tag_a); })) << bodies_of(got_a->snapshot()).size();
  for (const MessageExt& m : got->snapshot()) {
    const std::string body(m.body.begin(), m.body.end());
    ASSERT_EQ(sent.count(body), 1u) << "unexpected body " << body.substr(0, 40);
    const Sent& s = sent[body];
    EXPECT_EQ(m.topic, "LoopT");
    EXPECT_EQ(str(m.tags()), s.tag) << body;
    EXPECT_EQ(str(m.properties.get(prop::kKeys)), s.keys) << body;
    if (!s.msg_id.empty()) {
      EXPECT_EQ(std::string(m.msg_id()), s.msg_id) << body;
    }
    EXPECT_EQ(m.reconsume_times, 0);
  }
  EXPECT_EQ(bodies_of(got->snapshot()), all);
  EXPECT_EQ(bodies_of(got_a->snapshot()), tag_a) << "the TagA group got exactly the TagA messages";
}

TEST_F(AsioLoopback, OrderlyConsumerSeesEachQueueInOrderOneCallAtATime) {
  create_topic("LoopOrder", 4);
  struct Track {
    std::mutex mu;
    std::map<int, int> running;  // by queue id
    int most_at_once = 0;
  };
  auto track = std::make_shared<Track>();
  auto got = std::make_shared<Received>();
  PushConsumerConfig pc;
  pc.group = "LoopOG";
  pc.consume_from_where = ConsumeFromWhere::CONSUME_FROM_FIRST_OFFSET;
  OrderlyListener listener = [track, got](const std::vector<MessageExt>& msgs, ConsumeOrderlyContext& ctx) {
    const int q = ctx.queue.queue_id.value();
    {
      std::lock_guard<std::mutex> lock(track->mu);
      track->most_at_once = std::max(track->most_at_once, ++track->running[q]);
    }
    std::this_thread::sleep_for(1ms);  // a listener that takes a moment: overlapping calls would show
    got->add(msgs);
    std::lock_guard<std::mutex> lock(track->mu);
    --track->running[q];
    return ConsumeOrderlyStatus::SUCCESS;
  };
  start_push(pc, "LoopOrder", "*", listener);

  client_api::BlockingProducer bp(client_node_->rt(), *producer_);
  constexpr int kOrders = 6;
  constexpr int kSteps = 10;
  std::set<std::string> sent;
  for (int step = 0; step < kSteps; ++step) {
    for (int order = 0; order < kOrders; ++order) {
      const std::string body = fmt::format("order-{}-step-{}", order, step);
      Result<SendResult> r = await_future(bp.send(message("LoopOrder", body, "", ""), select_by_hash(numbered("order-", order))), "send");
      ASSERT_TRUE(r.ok()) << r.error().to_string();
      sent.insert(body);
    }
  }
  ASSERT_TRUE(got->wait_until([&](const auto& ms) { return has_all(ms, sent); })) << got->snapshot().size();
  std::map<int, std::int64_t> last_offset;  // by queue
  std::map<int, int> last_step;             // by order
  std::map<int, int> queue_of_order;
  for (const MessageExt& m : got->snapshot()) {
    const int q = m.queue_id.value();
    auto lo = last_offset.find(q);
    if (lo != last_offset.end()) {
      EXPECT_GT(m.queue_offset.value(), lo->second) << "queue " << q << " out of order";
    }
    last_offset[q] = m.queue_offset.value();
    int order = -1, step = -1;
    ASSERT_EQ(std::sscanf(std::string(m.body.begin(), m.body.end()).c_str(), "order-%d-step-%d", &order, &step), 2);
    auto ls = last_step.find(order);
    if (ls != last_step.end()) {
      EXPECT_EQ(step, ls->second + 1) << "order " << order;
    }
    last_step[order] = step;
    auto [it, fresh] = queue_of_order.emplace(order, q);
    EXPECT_EQ(it->second, q) << "order " << order << " spread over queues";
  }
  EXPECT_EQ(got->snapshot().size(), sent.size()) << "nothing consumed twice";
  std::lock_guard<std::mutex> lock(track->mu);
  EXPECT_EQ(track->most_at_once, 1) << "two listener calls of one queue overlapped";
}

TEST_F(AsioLoopback, LitePullConsumerAssignsPollsCommitsAndSeeks) {
  create_topic("LoopLite", 2);
  client_api::BlockingProducer bp(client_node_->rt(), *producer_);
  for (int i = 0; i < 20; ++i) {
    Result<SendResult> r = await_future(bp.send(message("LoopLite", numbered("lite-", i), "", ""), to_queue(i % 2)), "send");
    ASSERT_TRUE(r.ok()) << r.error().to_string();
    ASSERT_EQ(r->queue.queue_id, QueueId(i % 2));
  }
  LitePullConsumerConfig lc;
  lc.group = "LoopLG";
  lc.auto_commit = false;
  lc.consume_from_where = ConsumeFromWhere::CONSUME_FROM_FIRST_OFFSET;
  LitePullConsumer& l = add_lite(lc);
  client_api::BlockingLitePullConsumer bl(client_node_->rt(), l);
  const MessageQueue mq0{"LoopLite", "broker-a", QueueId(0)};
  const MessageQueue mq1{"LoopLite", "broker-a", QueueId(1)};
  ASSERT_TRUE(await_future(bl.assign({mq0, mq1}), "assign").ok());
  ASSERT_TRUE(await_future(bl.start(), "start").ok());

  std::vector<MessageExt> first = poll_n(bl, 20);
  ASSERT_EQ(first.size(), 20u);
  std::map<int, std::vector<std::int64_t>> offsets;
  for (const MessageExt& m : first) offsets[m.queue_id.value()].push_back(m.queue_offset.value());
  for (int q : {0, 1}) {
    std::vector<std::int64_t> want(10);
    for (int i = 0; i < 10; ++i) want[static_cast<std::size_t>(i)] = i;
    EXPECT_EQ(offsets[q], want) << "queue " << q;
  }

  await_future(bl.commit(), "commit");
  for (const MessageQueue& mq : {mq0, mq1}) {
    Result<std::optional<QueueOffset>> c = await_future(bl.committed(mq), "committed");
    ASSERT_TRUE(c.ok()) << c.error().to_string();
    EXPECT_EQ(*c, std::optional<QueueOffset>(QueueOffset(10))) << mq.to_string();
  }
  EXPECT_TRUE(eventually([&] { return caught_up("LoopLG", "LoopLite", 2); })) << "the broker has the commit";

  ASSERT_TRUE(await_future(bl.seek(mq0, QueueOffset(3)), "seek").ok());
  std::vector<MessageExt> replay = poll_n(bl, 7);
  ASSERT_EQ(replay.size(), 7u);
  for (std::size_t i = 0; i < replay.size(); ++i) {
    EXPECT_EQ(replay[i].queue_id, QueueId(0));
    EXPECT_EQ(replay[i].queue_offset.value(), static_cast<std::int64_t>(3 + i));
  }
  ASSERT_TRUE(await_future(bl.seek_to_begin(mq1), "seek_to_begin").ok());
  std::vector<MessageExt> again = poll_n(bl, 10);
  ASSERT_EQ(again.size(), 10u);
  for (const MessageExt& m : again) EXPECT_EQ(m.queue_id, QueueId(1));
  EXPECT_EQ(again.front().queue_offset.value(), 0);
  EXPECT_FALSE(await_future(bl.seek(mq0, QueueOffset(11)), "seek").ok()) << "beyond the max offset";

  ASSERT_TRUE(await_future(bl.seek_to_end(mq0), "seek_to_end").ok());
  ASSERT_TRUE(await_future(bp.send(message("LoopLite", "after-end", "", ""), to_queue(0)), "send").ok());
  std::vector<MessageExt> fresh = poll_n(bl, 1);
  ASSERT_EQ(fresh.size(), 1u);
  EXPECT_EQ(std::string(fresh.front().body.begin(), fresh.front().body.end()), "after-end");
  EXPECT_EQ(fresh.front().queue_offset.value(), 10);
}

TEST_F(AsioLoopback, AdminReportsRouteStatusMessagesAndConsumerProgress) {
  create_topic("LoopAdmin", 3);
  AdminClient* a = admin_.get();
  Result<remoting::body::TopicRouteData> route = client_node_->call([a] { return a->topic_route("LoopAdmin"); });
  ASSERT_TRUE(route.ok()) << route.error().to_string();
  ASSERT_EQ(route->queue_datas.size(), 1u);
  EXPECT_EQ(route->queue_datas[0].read_queue_nums, 3);
  EXPECT_EQ(route->queue_datas[0].write_queue_nums, 3);
  ASSERT_EQ(route->broker_datas.size(), 1u);
  EXPECT_EQ(route->broker_datas[0].broker_addrs.at(0), broker_->address());
  Result<std::vector<std::string>> topics = client_node_->call([a] { return a->topic_list(); });
  ASSERT_TRUE(topics.ok()) << topics.error().to_string();
  EXPECT_EQ(std::count(topics->begin(), topics->end(), "LoopAdmin"), 1);
  Result<remoting::body::ClusterInfo> cluster = client_node_->call([a] { return a->cluster_info(); });
  ASSERT_TRUE(cluster.ok()) << cluster.error().to_string();
  EXPECT_EQ(cluster->broker_addr_table.count("broker-a"), 1u);

  client_api::BlockingProducer bp(client_node_->rt(), *producer_);
  std::map<int, std::int64_t> per_queue;
  std::vector<SendResult> results;
  for (int i = 0; i < 9; ++i) {
    Result<SendResult> r = await_future(bp.send(message("LoopAdmin", numbered("admin-", i), "", numbered("admin-key-", i))), "send");
    ASSERT_TRUE(r.ok()) << r.error().to_string();
    ++per_queue[r->queue.queue_id.value()];
    results.push_back(*r);
  }
  Result<std::vector<QueueStatus>> status = client_node_->call([a] { return a->topic_status("LoopAdmin"); });
  ASSERT_TRUE(status.ok()) << status.error().to_string();
  ASSERT_EQ(status->size(), 3u);
  for (const QueueStatus& q : *status) {
    EXPECT_EQ(q.min_offset.value(), 0) << q.queue.to_string();
    EXPECT_EQ(q.max_offset.value(), per_queue[q.queue.queue_id.value()]) << q.queue.to_string();
  }

  // By key (the index is built as the store dispatches) and by offset msgId.
  const WallMs until = client_node_->rt().wall_ms() + 3'600'000;
  Result<std::vector<MessageExt>> by_key = Error(Errc::not_found, "not asked");
  EXPECT_TRUE(eventually([&] {
    by_key = client_node_->call([a, until] { return a->query_message("LoopAdmin", "admin-key-4", 32, 0, until); });
    return by_key.ok() && by_key->size() == 1;
  })) << (by_key.ok() ? "" : by_key.error().to_string());
  if (by_key.ok() && by_key->size() == 1) {
    EXPECT_EQ(std::string(by_key->front().body.begin(), by_key->front().body.end()), "admin-4");
  }
  const std::string offset_id = results[2].offset_msg_id;
  Result<MessageExt> viewed = client_node_->call([a, offset_id] { return a->view_message(offset_id); });
  ASSERT_TRUE(viewed.ok()) << viewed.error().to_string();
  EXPECT_EQ(std::string(viewed->body.begin(), viewed->body.end()), "admin-2");
  EXPECT_EQ(std::string(viewed->msg_id()), results[2].msg_id);

  // A group's progress: everything to go before it consumes, caught up after.
  std::int64_t lag_before = 0;
  for (const QueueProgress& q : progress("LoopAdminCG", "LoopAdmin")) lag_before += q.lag();
  EXPECT_EQ(lag_before, 9);
  PushConsumerConfig pc;
  pc.group = "LoopAdminCG";
  pc.consume_from_where = ConsumeFromWhere::CONSUME_FROM_FIRST_OFFSET;
  auto got = std::make_shared<Received>();
  PushConsumer& c = start_push(pc, "LoopAdmin", "*", recording_into(got));
  ASSERT_TRUE(got->wait_until([](const auto& ms) { return bodies_of(ms).size() == 9; }));
  ASSERT_TRUE(eventually([&] { return caught_up("LoopAdminCG", "LoopAdmin", 3, &c); }));
  for (const QueueProgress& q : progress("LoopAdminCG", "LoopAdmin")) {
    EXPECT_EQ(q.consumer_offset.value(), per_queue[q.queue.queue_id.value()]) << q.queue.to_string();
  }
}

TEST_F(AsioLoopback, ReconsumeLaterGoesThroughTheRetryTopicAndComesBack) {
  create_topic("LoopRetry", 2);
  auto got = std::make_shared<Received>();
  PushConsumerConfig pc;
  pc.group = "LoopRG";
  pc.consume_from_where = ConsumeFromWhere::CONSUME_FROM_FIRST_OFFSET;
  ConcurrentListener listener = [got](const std::vector<MessageExt>& msgs, ConsumeConcurrentlyContext& ctx) {
    std::vector<MessageExt> seen = msgs;
    for (MessageExt& m : seen) m.properties.set("TEST_QUEUE_TOPIC", ctx.queue.topic);
    got->add(seen);
    if (msgs.front().reconsume_times > 0) return ConsumeConcurrentlyStatus::CONSUME_SUCCESS;
    ctx.delay_level_when_next_consume = 1;  // 1 s
    return ConsumeConcurrentlyStatus::RECONSUME_LATER;
  };
  PushConsumer& c = start_push(pc, "LoopRetry", "*", listener);

  client_api::BlockingProducer bp(client_node_->rt(), *producer_);
  std::map<std::string, std::string> ids;
  for (int i = 0; i < 3; ++i) {
    Result<SendResult> r = await_future(bp.send(message("LoopRetry", numbered("retry-", i), "TagR", "")), "send");
    ASSERT_TRUE(r.ok()) << r.error().to_string();
    ids[numbered("retry-", i)] = r->msg_id;
  }
  ASSERT_TRUE(got->wait_until([](const auto& ms) { return ms.size() >= 6; })) << got->snapshot().size();
  std::map<std::string, std::vector<MessageExt>> by_body;
  for (const MessageExt& m : got->snapshot()) by_body[std::string(m.body.begin(), m.body.end())].push_back(m);
  ASSERT_EQ(by_body.size(), 3u);
  for (const auto& [body, ms] : by_body) {
    ASSERT_GE(ms.size(), 2u) << body;
    EXPECT_EQ(ms[0].reconsume_times, 0) << body;
    EXPECT_EQ(str(ms[0].properties.get("TEST_QUEUE_TOPIC")), "LoopRetry");
    EXPECT_EQ(ms[1].reconsume_times, 1) << body;
    EXPECT_EQ(str(ms[1].properties.get("TEST_QUEUE_TOPIC")), retry_topic("LoopRG")) << body;
    EXPECT_EQ(ms[1].topic, "LoopRetry") << "the original topic is restored";
    EXPECT_EQ(str(ms[1].tags()), "TagR");
    EXPECT_EQ(std::string(ms[1].msg_id()), ids[body]);
  }
  std::uint64_t sent_back = 0;
  client_node_->exec([&] { sent_back = c.stats().sent_back; });
  EXPECT_EQ(sent_back, 3u);
  EXPECT_TRUE(eventually([&] { return caught_up("LoopRG", "LoopRetry", 2, &c); }));
}

// POP on the production runtime: what is received and acknowledged is gone; what is not comes
// back once its invisible time passed (the revive loop on the broker's real clock).
TEST_F(AsioLoopback, PopConsumerAcknowledgesAndGetsBackWhatItDidNot) {
  create_topic("LoopPop", 2);
  client_api::BlockingProducer bp(client_node_->rt(), *producer_);
  std::set<std::string> sent;
  for (int i = 0; i < 6; ++i) {
    ASSERT_TRUE(await_future(bp.send(message("LoopPop", numbered("pop-", i), "", "")), "send").ok());
    sent.insert(numbered("pop-", i));
  }
  PopConsumer pc(*instance_, PopConsumerConfig{.group = "LoopPopG", .max_messages = 32, .invisible_time = std::chrono::seconds(1),
                                               .poll_time = std::chrono::seconds(1), .from_first = true});
  client_api::BlockingPopConsumer bc(client_node_->rt(), pc);
  ASSERT_TRUE(await_future(bc.subscribe("LoopPop", MessageSelector::by_tag("*")), "subscribe").ok());
  std::set<std::string> got;
  for (int i = 0; i < 20 && got.size() < sent.size(); ++i) {
    Result<PopResult> r = await_future(bc.receive("LoopPop"), "receive");
    ASSERT_TRUE(r.ok()) << r.error().to_string();
    for (const MessageExt& m : r->messages) {
      got.insert(text(m));
      if (text(m) == "pop-0") continue;  // left unacknowledged
      const Status a = await_future(bc.ack(m), "ack");
      EXPECT_TRUE(a.ok()) << a.error().to_string();
    }
  }
  ASSERT_EQ(got, sent);
  std::vector<std::string> back;
  for (int i = 0; i < 20 && back.empty(); ++i) {
    Result<PopResult> r = await_future(bc.receive("LoopPop"), "receive");
    ASSERT_TRUE(r.ok()) << r.error().to_string();
    for (const MessageExt& m : r->messages) {
      back.push_back(text(m));
      EXPECT_EQ(m.reconsume_times, 1);
      const Status a = await_future(bc.ack(m), "ack");
      EXPECT_TRUE(a.ok()) << a.error().to_string();
    }
  }
  EXPECT_EQ(back, std::vector<std::string>{"pop-0"});
}

}  // namespace
}  // namespace ferry::client::asio_testing
