// Ferry's client library (producer, push consumer, admin, through the client_api wrappers) against
// a real mqnamesrv and mqbroker: every message sent arrives with its body, keys and tags (and a
// tag subscription gets exactly its tag); a consumer group's committed offsets survive a SIGTERM
// restart of the broker; mqadmin resetOffsetByTime with the group's consumer online goes through
// the broker, which tells the consumer (it consumes everything again), and mqadmin consumerStatus
// shows the consumer's running state. (The SYNC_FLUSH kill -9 test in daemons_test.cc reads its messages back with the client
// library too.)
#include <gtest/gtest.h>

#include <algorithm>
#include <filesystem>
#include <functional>
#include <map>
#include <mutex>
#include <set>
#include <sstream>
#include <thread>

#include "client/pop_consumer.h"
#include "client_api/blocking_pop_consumer.h"
#include "tests/daemons/client_node.h"
#include "tests/daemons/daemon_process.h"

namespace ferry::daemons_test {
namespace {

using namespace std::chrono_literals;

constexpr auto kDelivery = 30s;  // bound for a delivery to complete (rebalance, long polling)

std::string mqadmin_path() { return FERRY_MQADMIN_PATH; }
std::string body_text(const MessageExt& m) { return std::string(m.body.begin(), m.body.end()); }

struct Sent {
  std::string body;
  std::string keys;
  std::string tag;
};

class ClientDaemonsTest : public ::testing::Test {
 protected:
  void SetUp() override {
    ASSERT_EQ(cluster_.start_namesrv(), "");
    ASSERT_EQ(cluster_.start_broker("flushConsumerOffsetInterval=60000\n"), "");  // only a stop persists
  }

  std::unique_ptr<ClientNode> node(const std::string& name) {
    return std::make_unique<ClientNode>(dir_ / name, std::vector<std::string>{cluster_.namesrv_addr()}, name);
  }

  // Sends `n` messages "{prefix}-{i}" (keys "k-{prefix}-{i} all-{prefix}", tag TagA for even i,
  // TagB for odd) and returns them by msgId (UNIQ_KEY).
  std::map<std::string, Sent> send_n(ClientNode& c, const std::string& topic, int n, const std::string& prefix) {
    std::map<std::string, Sent> sent;
    for (int i = 0; i < n; ++i) {
      Sent s{prefix + "-" + std::to_string(i), "k-" + prefix + "-" + std::to_string(i) + " all-" + prefix,
             i % 2 == 0 ? "TagA" : "TagB"};
      Message m;
      m.topic = topic;
      m.body.assign(s.body.begin(), s.body.end());
      m.set_keys(s.keys);
      m.set_tags(s.tag);
      Result<client::SendResult> r = c.send(std::move(m));
      EXPECT_TRUE(r.ok()) << (r.ok() ? "" : r.error().to_string());
      if (!r.ok()) break;
      EXPECT_EQ(r->status, client::SendStatus::SEND_OK);
      sent[r->msg_id] = s;
    }
    return sent;
  }

  static client::PushConsumerConfig from_first(const std::string& group) {
    client::PushConsumerConfig pc;
    pc.group = group;
    pc.consume_from_where = client::ConsumeFromWhere::CONSUME_FROM_FIRST_OFFSET;
    return pc;
  }

  // Distinct msgIds in `msgs` that are keys of `sent`.
  static std::size_t count_of(const std::vector<MessageExt>& msgs, const std::map<std::string, Sent>& sent) {
    std::set<std::string> ids;
    for (const MessageExt& m : msgs) {
      if (sent.count(std::string(m.msg_id())) > 0) ids.insert(std::string(m.msg_id()));
    }
    return ids.size();
  }

  TempDir dir_;
  LocalCluster cluster_{dir_};
};

TEST_F(ClientDaemonsTest, EveryMessageArrivesWithItsBodyKeysAndTags) {
  auto producer = node("producer");
  ASSERT_TRUE(producer->create_topic("TestCluster", "ClientT", 4).ok());
  ASSERT_TRUE(producer->start_producer("PG").ok());
  const std::map<std::string, Sent> sent = send_n(*producer, "ClientT", 200, "m");
  ASSERT_EQ(sent.size(), 200u);

  auto consumer = node("consumer");
  Result<std::shared_ptr<Received>> all = consumer->start_consumer(from_first("AllG"), "ClientT", "*");
  ASSERT_TRUE(all.ok()) << all.error().to_string();
  Result<std::shared_ptr<Received>> tag_a = consumer->start_consumer(from_first("TagAG"), "ClientT", "TagA");
  ASSERT_TRUE(tag_a.ok()) << tag_a.error().to_string();
  ASSERT_TRUE((*all)->wait_until([&](const auto& msgs) { return count_of(msgs, sent) == sent.size(); }, kDelivery))
      << (*all)->size() << " of " << sent.size();
  ASSERT_TRUE((*tag_a)->wait_until([&](const auto& msgs) { return count_of(msgs, sent) == 100; }, kDelivery))
      << (*tag_a)->size();

  for (const MessageExt& m : (*all)->snapshot()) {
    auto it = sent.find(std::string(m.msg_id()));
    ASSERT_NE(it, sent.end()) << "unexpected message " << m.msg_id() << " " << body_text(m);
    EXPECT_EQ(body_text(m), it->second.body);
    EXPECT_EQ(m.properties.get("KEYS").value_or("<none>"), it->second.keys);
    EXPECT_EQ(m.tags().value_or("<none>"), it->second.tag);
    EXPECT_EQ(m.topic, "ClientT");
  }
  for (const MessageExt& m : (*tag_a)->snapshot()) EXPECT_EQ(m.tags().value_or("<none>"), "TagA") << body_text(m);

  // With the group's consumer online, resetOffsetByTime goes through the broker
  // (INVOKE_BROKER_TO_RESET_OFFSET → RESET_CONSUMER_CLIENT_OFFSET): the consumer restarts its
  // queues at the first offset and receives all 200 messages once more.
  const std::size_t before = (*all)->size();
  const RunResult r = run_to_exit(mqadmin_path(),
                                  {"resetOffsetByTime", "-n", cluster_.namesrv_addr(), "-g", "AllG", "-t", "ClientT", "-s", "0"},
                                  dir_ / "reset.out", 30s);
  EXPECT_EQ(r.status, 0) << r.output;
  EXPECT_NE(r.output.find("through its online consumers"), std::string::npos) << r.output;
  EXPECT_TRUE((*all)->wait_until([&](const auto& msgs) { return msgs.size() >= before + sent.size(); }, kDelivery))
      << (*all)->size() << " deliveries, " << before << " before the reset";
  std::map<std::string, int> times;
  for (const MessageExt& m : (*all)->snapshot()) ++times[std::string(m.msg_id())];
  for (const auto& [id, sent_one] : sent) EXPECT_GE(times[id], 2) << "not consumed again: " << sent_one.body;

  // consumerStatus: the group's one client and its running state.
  const RunResult st = run_to_exit(mqadmin_path(), {"consumerStatus", "-n", cluster_.namesrv_addr(), "-g", "AllG"},
                                   dir_ / "status.out", 30s);
  EXPECT_EQ(st.status, 0) << st.output;
  for (const char* want : {"@consumer", "#Consumer Properties#", "PROP_CONSUME_TYPE", "CONSUME_PASSIVELY",
                           "CONSUME_FROM_FIRST_OFFSET", "#Consumer Subscription#", "ClientT", "%RETRY%AllG",
                           "#Consumer RT&TPS#"}) {
    EXPECT_NE(st.output.find(want), std::string::npos) << want << "\n" << st.output;
  }
  const RunResult nobody = run_to_exit(mqadmin_path(), {"consumerStatus", "-n", cluster_.namesrv_addr(), "-g", "NobodyG"},
                                       dir_ / "status-nobody.out", 30s);
  EXPECT_EQ(nobody.status, 1) << nobody.output;
}

TEST_F(ClientDaemonsTest, CommittedOffsetsSurviveABrokerSigtermRestart) {
  std::map<std::string, Sent> old_sent;
  {
    auto producer = node("producer");
    ASSERT_TRUE(producer->create_topic("TestCluster", "OffsetT", 4).ok());
    ASSERT_TRUE(producer->start_producer("PG").ok());
    old_sent = send_n(*producer, "OffsetT", 400, "old");
    ASSERT_EQ(old_sent.size(), 400u);
    auto consumer = node("consumer-1");
    Result<std::shared_ptr<Received>> got = consumer->start_consumer(from_first("KeepG"), "OffsetT", "*");
    ASSERT_TRUE(got.ok()) << got.error().to_string();
    ASSERT_TRUE((*got)->wait_until([&](const auto& msgs) { return count_of(msgs, old_sent) == 400; }, kDelivery))
        << (*got)->size();
    consumer->stop_consumer(0);  // persists the group's offsets at the broker
  }
  ASSERT_EQ(cluster_.stop_broker(), "");  // SIGTERM: the broker persists consumerOffset.json
  EXPECT_NE(read_file(dir_ / "store/config/consumerOffset.json").find("OffsetT@KeepG"), std::string::npos);
  ASSERT_EQ(cluster_.start_broker("flushConsumerOffsetInterval=60000\n"), "");

  auto producer = node("producer-2");
  ASSERT_TRUE(producer->start_producer("PG").ok());
  // A new consumer of the group, told to start from the first offset where it has none: it must
  // continue from the committed offsets instead.
  auto consumer = node("consumer-2");
  Result<std::shared_ptr<Received>> got = consumer->start_consumer(from_first("KeepG"), "OffsetT", "*");
  ASSERT_TRUE(got.ok()) << got.error().to_string();
  const std::map<std::string, Sent> new_sent = send_n(*producer, "OffsetT", 50, "new");
  ASSERT_EQ(new_sent.size(), 50u);
  ASSERT_TRUE((*got)->wait_until([&](const auto& msgs) { return count_of(msgs, new_sent) == 50; }, kDelivery))
      << (*got)->size();
  // Old messages come before new ones in each queue, so any re-delivery has been pulled by now; a
  // listener call of it may still be finishing: give it a moment before counting.
  (*got)->wait_until([](const auto&) { return false; }, 500ms);
  const std::size_t again = count_of((*got)->snapshot(), old_sent);
  // At most what the last pull of each of the 4 queues carried (32 each) may come again.
  EXPECT_LE(again, 4u * 32u) << again << " of 400 already-consumed messages were delivered again";
  RecordProperty("redelivered_after_restart", static_cast<int>(again));
}

// An SQL92 selector on real daemons (broker.conf enablePropertyFilter=true): the consumer gets
// exactly the messages whose properties the expression selects, filtered by the broker.
TEST(SqlDaemonsTest, ASql92ConsumerGetsExactlyWhatItsExpressionSelects) {
  TempDir dir;
  LocalCluster cluster{dir};
  ASSERT_EQ(cluster.start_namesrv(), "");
  ASSERT_EQ(cluster.start_broker("enablePropertyFilter=true\n"), "");
  ClientNode producer(dir / "producer", {cluster.namesrv_addr()}, "producer");
  ASSERT_TRUE(producer.create_topic("TestCluster", "SqlT", 4).ok());
  ASSERT_TRUE(producer.start_producer("SqlPG").ok());
  std::set<std::string> want;
  for (int i = 0; i < 40; ++i) {
    Message m;
    m.topic = "SqlT";
    const std::string body = "s-" + std::to_string(i);
    m.body.assign(body.begin(), body.end());
    m.properties.set("n", std::to_string(i));
    m.properties.set("colour", i % 2 == 0 ? "red" : "blue");
    ASSERT_TRUE(producer.send(std::move(m)).ok());
    if (i >= 10 && i < 30 && i % 2 == 0) want.insert(body);
  }
  ClientNode consumer(dir / "consumer", {cluster.namesrv_addr()}, "consumer");
  client::PushConsumerConfig pc;
  pc.group = "SqlReaders";
  pc.consume_from_where = client::ConsumeFromWhere::CONSUME_FROM_FIRST_OFFSET;
  auto got = consumer.start_consumer(pc, "SqlT", client::MessageSelector::by_sql("n BETWEEN 10 AND 29 AND colour = 'red'"));
  ASSERT_TRUE(got.ok()) << got.error().to_string();
  auto bodies = [](const std::vector<MessageExt>& msgs) {
    std::set<std::string> out;
    for (const MessageExt& m : msgs) out.insert(body_text(m));
    return out;
  };
  ASSERT_TRUE((*got)->wait_until([&](const std::vector<MessageExt>& msgs) { return bodies(msgs) == want; }, kDelivery))
      << (*got)->size() << " received, " << want.size() << " wanted";
  std::this_thread::sleep_for(2s);  // nothing else arrives
  EXPECT_EQ(bodies((*got)->snapshot()), want);
}

// Request-reply on real daemons (docs/request_reply.md): a requester's request() gets the reply a
// replying consumer on another client sent back — through SEND_REPLY_MESSAGE_V2 and the broker's
// PUSH_REPLY_MESSAGE_TO_CLIENT over real TCP — and a request to a topic nobody answers times out
// in RocketMQ's words.
TEST(RequestReplyDaemonsTest, ARequestGetsItsReplyAndAnUnansweredOneTimesOut) {
  TempDir dir;
  LocalCluster cluster{dir};
  ASSERT_EQ(cluster.start_namesrv(), "");
  ASSERT_EQ(cluster.start_broker(), "");
  ClientNode server(dir / "server", {cluster.namesrv_addr()}, "server");
  ASSERT_TRUE(server.create_topic("TestCluster", "PriceRequests", 2).ok());
  ASSERT_TRUE(server.create_topic("TestCluster", "Nobody", 1).ok());
  ASSERT_TRUE(server.start_producer("PriceRepliers").ok());
  client::PushConsumerConfig pc;
  pc.group = "Pricers";
  pc.consume_from_where = client::ConsumeFromWhere::CONSUME_FROM_FIRST_OFFSET;
  auto served = server.start_replier(pc, "PriceRequests");
  ASSERT_TRUE(served.ok()) << served.error().to_string();

  ClientNode front(dir / "front", {cluster.namesrv_addr()}, "front", 1s);  // heartbeats every second
  ASSERT_TRUE(front.start_producer("FrontEnds").ok());
  // The broker pushes a reply only to a client whose heartbeat it has (as RocketMQ): the first
  // requests may time out while the requester's first heartbeat and the replier's first
  // rebalance happen; an application asks again, as this one does.
  Result<MessageExt> reply = Error(Errc::timed_out, "not asked");
  const auto until = std::chrono::steady_clock::now() + 60s;
  while (!reply.ok() && std::chrono::steady_clock::now() < until) {
    Message m;
    m.topic = "PriceRequests";
    m.body = {'s', 'k', 'u', '-', '4', '2'};
    reply = front.request(std::move(m), 3s);
  }
  ASSERT_TRUE(reply.ok()) << reply.error().to_string();
  EXPECT_EQ(std::string(reply->body.begin(), reply->body.end()), "pong:sku-42");
  EXPECT_EQ(reply->topic, "TestCluster_REPLY_TOPIC");
  EXPECT_EQ(reply->properties.get("MSG_TYPE").value_or(""), "reply");
  EXPECT_TRUE(reply->properties.get("REPLY_TO_CLIENT").value_or("").ends_with("@front"));

  Message unanswered;
  unanswered.topic = "Nobody";
  unanswered.body = {'?'};
  const Result<MessageExt> none = front.request(std::move(unanswered), 1s);
  ASSERT_FALSE(none.ok());
  EXPECT_EQ(none.error().code, Errc::timed_out) << none.error().to_string();
  EXPECT_NE(none.error().detail.find("wait reply message timeout"), std::string::npos) << none.error().to_string();
}

// Message trace on real daemons: a producer and a consumer with enable_msg_trace send their
// records to RMQ_SYS_TRACE_TOPIC (created by the broker from TBW102 on the first trace send), and
// `mqadmin queryMsgTraceById` prints the message's Pub row and its consumer group's Sub row.
TEST(TraceDaemonsTest, QueryMsgTraceByIdShowsWhatTheFerryClientTraced) {
  TempDir dir;
  LocalCluster cluster{dir};
  ASSERT_EQ(cluster.start_namesrv(), "");
  ASSERT_EQ(cluster.start_broker(), "");
  ClientNode consumer(dir / "consumer", {cluster.namesrv_addr()}, "consumer");
  ASSERT_TRUE(consumer.create_topic("TestCluster", "TracedT", 2).ok());
  client::PushConsumerConfig pc;
  pc.group = "TraceReaders";
  pc.consume_from_where = client::ConsumeFromWhere::CONSUME_FROM_FIRST_OFFSET;
  pc.enable_msg_trace = true;
  auto got = consumer.start_consumer(pc, "TracedT", "*");
  ASSERT_TRUE(got.ok()) << got.error().to_string();
  ClientNode producer(dir / "producer", {cluster.namesrv_addr()}, "producer");
  ASSERT_TRUE(producer.start_producer(client::ProducerConfig{.group = "TraceWriters", .enable_msg_trace = true}).ok());
  Message m;
  m.topic = "TracedT";
  m.body = {'t', 'r', 'a', 'c', 'e', 'd'};
  m.set_tags("TagT");
  m.set_keys("order-7");
  Result<client::SendResult> sent = producer.send(std::move(m));
  ASSERT_TRUE(sent.ok()) << sent.error().to_string();
  ASSERT_TRUE((*got)->wait_until([](const std::vector<MessageExt>& msgs) { return !msgs.empty(); }, kDelivery));

  // The records leave within half a second of their first context; the new trace topic reaches
  // the NameServer with the broker's registration.
  RunResult r;
  const auto until = std::chrono::steady_clock::now() + 30s;
  do {
    std::this_thread::sleep_for(500ms);
    r = run_to_exit(mqadmin_path(), {"queryMsgTraceById", "-n", cluster.namesrv_addr(), "-i", sent->msg_id},
                    dir / "trace.out", 30s);
  } while ((r.status != 0 || r.output.find("TraceReaders") == std::string::npos) && std::chrono::steady_clock::now() < until);
  ASSERT_EQ(r.status, 0) << r.output;
  const auto row_of = [&](const std::string& type, const std::string& group) {
    std::istringstream lines(r.output);
    for (std::string line; std::getline(lines, line);) {
      if (line.starts_with(type + " ") && line.find(" " + group + " ") != std::string::npos) return line;
    }
    return std::string();
  };
  const std::string pub = row_of("Pub", "TraceWriters");
  const std::string sub = row_of("Sub", "TraceReaders");
  EXPECT_NE(pub, "") << r.output;
  EXPECT_NE(sub, "") << r.output;
  EXPECT_NE(pub.find(" success"), std::string::npos) << r.output;
  EXPECT_NE(sub.find(" success"), std::string::npos) << r.output;
}

// Transactional messages on real daemons (docs/transactions.md), through a kill -9 of the broker
// between the half messages and the checks: a committed transaction arrives, a rolled-back one
// never does, and the two the local transaction left UNKNOW are resolved by the restarted broker's
// check, which the producer's listener answers from its "database".
class TransactionDaemonsTest : public ::testing::Test {
 protected:
  void SetUp() override {
    ASSERT_EQ(cluster_.start_namesrv(), "");
    ASSERT_EQ(cluster_.start_broker(kTransactionConf), "");
  }
  static constexpr const char* kTransactionConf = "transactionTimeOut=1000\ntransactionCheckInterval=1000\n";
  TempDir dir_;
  LocalCluster cluster_{dir_};
};

TEST_F(TransactionDaemonsTest, CommitArrivesRollbackNeverAndUnknownsResolveAfterABrokerKill) {
  // Heartbeats every second: the restarted broker knows the producer soon (RocketMQ's 30 s would
  // only make the test slower).
  auto producer = std::make_unique<ClientNode>(dir_ / "producer", std::vector<std::string>{cluster_.namesrv_addr()}, "producer",
                                               std::chrono::seconds(1));
  ASSERT_TRUE(producer->create_topic("TestCluster", "TxT", 4).ok());
  std::mutex mu;  // the listener runs on the offload threads
  std::set<std::string> database;
  std::vector<std::string> checked;
  client::TransactionListener listener;
  listener.execute = [&](const Message& m, const client::SendResult&) {
    const std::string body(m.body.begin(), m.body.end());
    std::lock_guard<std::mutex> lock(mu);
    if (body == "rollback") return client::LocalTransactionState::rollback;
    if (body != "unknown-rolled-back") database.insert(body);
    return body == "commit" ? client::LocalTransactionState::commit : client::LocalTransactionState::unknown;
  };
  listener.check = [&](const MessageExt& m) {
    const std::string body = body_text(m);
    std::lock_guard<std::mutex> lock(mu);
    checked.push_back(body);
    return database.count(body) > 0 ? client::LocalTransactionState::commit : client::LocalTransactionState::rollback;
  };
  ASSERT_TRUE(producer->start_transaction_producer("TxPG", listener).ok());
  for (const std::string body : {"commit", "rollback", "unknown-committed", "unknown-rolled-back"}) {
    Message m;
    m.topic = "TxT";
    m.body.assign(body.begin(), body.end());
    Result<client::TransactionSendResult> r = producer->send_in_transaction(std::move(m));
    ASSERT_TRUE(r.ok()) << body << ": " << r.error().to_string();
    EXPECT_EQ(r->send.status, client::SendStatus::SEND_OK) << body;
  }
  // kill -9 before any check: the half messages and op records are in the page cache, and the
  // restarted broker's check service walks them again.
  ASSERT_EQ(cluster_.kill_broker(), "");
  ASSERT_EQ(cluster_.start_broker(kTransactionConf), "");

  auto consumer = std::make_unique<ClientNode>(dir_ / "consumer", std::vector<std::string>{cluster_.namesrv_addr()}, "consumer");
  client::PushConsumerConfig pc;
  pc.group = "TxReaders";
  pc.consume_from_where = client::ConsumeFromWhere::CONSUME_FROM_FIRST_OFFSET;
  Result<std::shared_ptr<Received>> got = consumer->start_consumer(pc, "TxT", "*");
  ASSERT_TRUE(got.ok()) << got.error().to_string();
  auto bodies = [](const std::vector<MessageExt>& msgs) {
    std::multiset<std::string> out;
    for (const MessageExt& m : msgs) out.insert(body_text(m));
    return out;
  };
  ASSERT_TRUE((*got)->wait_until(
      [&](const std::vector<MessageExt>& msgs) {  // (called under the receiver's lock)
        const std::multiset<std::string> b = bodies(msgs);
        return b.count("commit") > 0 && b.count("unknown-committed") > 0;
      },
      60s))
      << (*got)->size() << " received";
  std::this_thread::sleep_for(3s);  // a few more check rounds: nothing else may arrive
  const std::multiset<std::string> b = bodies((*got)->snapshot());
  EXPECT_EQ(b.count("rollback"), 0u);
  EXPECT_EQ(b.count("unknown-rolled-back"), 0u) << "its check answered ROLLBACK";
  std::lock_guard<std::mutex> lock(mu);
  EXPECT_EQ(std::set<std::string>(checked.begin(), checked.end()), (std::set<std::string>{"unknown-committed", "unknown-rolled-back"}))
      << "only the two left UNKNOW are checked";
}

// Timer messages on real daemons: each of three (a 2 s delay, a 6 s delay, an absolute time 20 s
// ahead) arrives no earlier than it asked, within a precision plus slack after, through a SIGTERM
// restart and a kill -9 restart of the broker in between; the broker stores each once (a consumer
// may see one again after the kill: at the same queue offset, never a second copy).
TEST(TimerDaemonsTest, TimersArriveWhenDueAcrossAGracefulAndAKilledRestart) {
  TempDir dir;
  LocalCluster cluster{dir};
  ASSERT_EQ(cluster.start_namesrv(), "");
  ASSERT_EQ(cluster.start_broker(), "");
  ClientNode producer(dir / "producer", {cluster.namesrv_addr()}, "producer");
  ASSERT_TRUE(producer.create_topic("TestCluster", "Reminders", 2).ok());
  ASSERT_TRUE(producer.start_producer("Schedulers").ok());
  auto send = [&](const std::string& body, const std::function<void(Message&)>& timer) {
    Message m;
    m.topic = "Reminders";
    m.body.assign(body.begin(), body.end());
    timer(m);
    Result<client::SendResult> r = producer.send(std::move(m));
    EXPECT_TRUE(r.ok()) << (r.ok() ? "" : r.error().to_string());
  };
  const WallMs deliver_at = std::chrono::duration_cast<std::chrono::milliseconds>(
                                std::chrono::system_clock::now().time_since_epoch()).count() + 20'000;
  send("soon", [](Message& m) { m.set_delay_time_sec(2); });
  send("graceful", [](Message& m) { m.set_delay_time_ms(6'000); });
  send("killed", [&](Message& m) { m.set_deliver_time_ms(deliver_at); });

  ClientNode consumer(dir / "consumer", {cluster.namesrv_addr()}, "consumer");
  client::PushConsumerConfig pc;
  pc.group = "Notifiers";
  pc.consume_from_where = client::ConsumeFromWhere::CONSUME_FROM_FIRST_OFFSET;
  Result<std::shared_ptr<Received>> got = consumer.start_consumer(pc, "Reminders", "*");
  ASSERT_TRUE(got.ok()) << got.error().to_string();
  auto has = [&](const std::string& body) {
    return [body](const std::vector<MessageExt>& msgs) {
      return std::any_of(msgs.begin(), msgs.end(), [&](const MessageExt& m) { return body_text(m) == body; });
    };
  };
  ASSERT_TRUE((*got)->wait_until(has("soon"), 30s));
  ASSERT_EQ(cluster.stop_broker(), "");
  ASSERT_EQ(cluster.start_broker(), "");
  ASSERT_TRUE((*got)->wait_until(has("graceful"), 60s)) << "pending across a graceful restart";
  ASSERT_EQ(cluster.kill_broker(), "");
  ASSERT_EQ(cluster.start_broker(), "");
  ASSERT_TRUE((*got)->wait_until(has("killed"), 60s)) << "pending across kill -9";

  // Each timer's copy was stored once, no earlier than asked (the copy keeps the sender's born
  // time; the broker stamps its store time: one machine's clock), and within a precision (1 s)
  // plus slack for a loaded machine.
  std::map<std::string, std::set<std::pair<std::int32_t, std::int64_t>>> stored_at;
  for (const MessageExt& m : (*got)->snapshot()) {
    const std::string body = body_text(m);
    stored_at[body].insert({m.queue_id.value(), m.queue_offset.value()});
    const std::int64_t waited = m.store_timestamp_ms - m.born_timestamp_ms;
    if (body == "soon") {
      EXPECT_GE(waited, 2'000);
      EXPECT_LT(waited, 2'000 + 1'000 + 5'000);
    } else if (body == "graceful") {
      EXPECT_GE(waited, 6'000);  // late only by the restart's gap at most
    } else if (body == "killed") {
      EXPECT_GE(m.store_timestamp_ms, deliver_at);
      EXPECT_EQ(m.properties.get("TIMER_DELIVER_MS").value_or(""), std::to_string(deliver_at));
    }
    EXPECT_TRUE(m.properties.get("TIMER_OUT_MS").has_value()) << body;
    EXPECT_FALSE(m.properties.get("REAL_TOPIC").has_value()) << body;
  }
  ASSERT_EQ(stored_at.size(), 3u);
  for (const auto& [body, places] : stored_at) EXPECT_EQ(places.size(), 1u) << body << " stored more than once";
}

// POP over the wire on real daemons: what a POP consumer did not acknowledge comes back after its
// invisible time, also across a kill -9 of the broker (the checkpoints are in the revive log);
// what it acknowledged does not.
TEST(PopDaemonsTest, UnacknowledgedMessagesComeBackAcrossAKilledBroker) {
  TempDir dir;
  LocalCluster cluster{dir};
  ASSERT_EQ(cluster.start_namesrv(), "");
  ASSERT_EQ(cluster.start_broker(), "");
  ClientNode node(dir / "client", {cluster.namesrv_addr()}, "client");
  ASSERT_TRUE(node.create_topic("TestCluster", "Tasks", 2).ok());
  ASSERT_TRUE(node.start_producer("TaskMakers").ok());
  std::set<std::string> sent;
  for (int i = 0; i < 6; ++i) {
    Message m;
    m.topic = "Tasks";
    const std::string body = "t" + std::to_string(i);
    m.body.assign(body.begin(), body.end());
    Result<client::SendResult> r = node.send(std::move(m));
    ASSERT_TRUE(r.ok()) << r.error().to_string();
    sent.insert(body);
  }
  client::PopConsumer pc(node.instance(), client::PopConsumerConfig{.group = "Workers", .max_messages = 32,
                                                                    .invisible_time = 10s, .poll_time = 1s, .from_first = true});
  client_api::BlockingPopConsumer bc(node.rt(), pc);
  ASSERT_TRUE(bc.subscribe("Tasks", client::MessageSelector::by_tag("*")).get().ok());
  // Receives for at most `patience`, acknowledging what `ack` names, until `done` says so.
  auto receive = [&](Duration patience, const std::function<bool(const std::string&)>& ack,
                     const std::function<bool(const std::multiset<std::string>&)>& done) {
    std::multiset<std::string> got;
    const auto until = std::chrono::steady_clock::now() + patience;
    while (!done(got) && std::chrono::steady_clock::now() < until) {
      Result<client::PopResult> r = bc.receive_for("Tasks");
      if (!r.ok()) {
        std::this_thread::sleep_for(200ms);  // the broker restarting
        continue;
      }
      for (const MessageExt& m : r->messages) {
        got.insert(body_text(m));
        if (ack(body_text(m))) {
          EXPECT_TRUE(bc.ack(m).get().ok());
        }
      }
    }
    return got;
  };
  auto first_three = [](const std::string& b) { return b < "t3"; };
  const std::multiset<std::string> first =
      receive(30s, first_three, [&](const std::multiset<std::string>& g) { return g.size() >= sent.size(); });
  ASSERT_EQ(std::set<std::string>(first.begin(), first.end()), sent);
  std::this_thread::sleep_for(6s);  // the offsets the POPs moved are persisted (every 5 s)
  // Killed with the three still invisible: their checkpoints come back from the revive log.
  ASSERT_EQ(cluster.kill_broker(), "");
  ASSERT_EQ(cluster.start_broker(), "");
  const std::multiset<std::string> back = receive(60s, [](const std::string&) { return true; },
                                                  [](const std::multiset<std::string>& g) { return g.size() >= 3; });
  EXPECT_EQ(back, (std::multiset<std::string>{"t3", "t4", "t5"})) << "the unacknowledged ones, once each";
}

}  // namespace
}  // namespace ferry::daemons_test
