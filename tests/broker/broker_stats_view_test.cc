// The per-topic and per-group statistics of a simulated broker, as RocketMQ's admin tools read
// them: VIEW_BROKER_STATS_DATA 315 (TOPIC_PUT_* by topic, GROUP_GET_* by topic@group, the
// refusal for a key nothing was counted under), GET_BROKER_CONSUME_STATS 317 (every group with
// its diff) and QUERY_TOPIC_CONSUME_BY_WHO 300 (the groups of a topic).
#include "remoting/body/admin_stats.h"
#include "remoting/body/broker_stats_data.h"
#include "remoting/body/consume_stats_list.h"
#include "remoting/body/group_list.h"
#include "remoting/header/admin_stats_header.h"
#include "remoting/header/consumer_offset_header.h"
#include "remoting/header/topic_admin_header.h"
#include "tests/broker/consumer_fixture.h"

namespace ferry::broker::testing {
namespace {

namespace body = remoting::body;
using namespace std::chrono_literals;

std::string text_of(const RemotingCommand& r) { return std::string(r.body.begin(), r.body.end()); }

class StatsViewTest : public ConsumerTest {
 protected:
  Call view(const std::string& name, const std::string& key) {
    return call(plain_request(rc::VIEW_BROKER_STATS_DATA, remoting::ViewBrokerStatsDataRequestHeader{name, key}.to_fields()));
  }
  body::BrokerStatsData stats(const std::string& name, const std::string& key) {
    Call c = view(name, key);
    EXPECT_EQ(c.reply.code, code::SUCCESS) << name << " " << key << ": " << c.remark();
    auto d = body::BrokerStatsData::decode(c.reply.body);
    EXPECT_TRUE(d.ok()) << (d.ok() ? "" : d.error().to_string()) << " in " << text_of(c.reply);
    return d.ok() ? *d : body::BrokerStatsData{};
  }
  // Pulls from queue 0 of T as `group` from `offset`, at most `max`; how many messages came.
  std::int64_t pull_some(const std::string& group, std::int64_t offset, std::int32_t max) {
    Call c = pull(Pull{.group = group, .offset = offset, .max = max});
    EXPECT_EQ(c.reply.code, code::SUCCESS) << c.remark();
    return c.reply.code == code::SUCCESS ? std::stoll(c.field("nextBeginOffset")) - offset : 0;
  }
  body::ConsumeStatsList broker_consume_stats(bool is_order) {
    Call c = call(plain_request(rc::GET_BROKER_CONSUME_STATS, remoting::GetConsumeStatsInBrokerHeader{is_order}.to_fields()));
    EXPECT_EQ(c.reply.code, code::SUCCESS) << c.remark();
    auto l = body::ConsumeStatsList::decode(c.reply.body);
    EXPECT_TRUE(l.ok()) << (l.ok() ? "" : l.error().to_string()) << " in " << text_of(c.reply);
    return l.ok() ? *l : body::ConsumeStatsList{};
  }
  std::vector<std::string> consumed_by(const std::string& topic) {
    Call c = call(plain_request(rc::QUERY_TOPIC_CONSUME_BY_WHO, remoting::QueryTopicConsumeByWhoRequestHeader{topic}.to_fields()));
    EXPECT_EQ(c.reply.code, code::SUCCESS) << c.remark();
    auto g = body::GroupList::decode(c.reply.body);
    EXPECT_TRUE(g.ok()) << text_of(c.reply);
    return g.ok() ? g->group_list : std::vector<std::string>{};
  }
};

TEST_F(StatsViewTest, PutsCountPerTopicAndGetsPerTopicAndGroup) {
  boot();
  for (int i = 0; i < 5; ++i) ASSERT_EQ(send(Msg{.queue_id = 0}).reply.code, code::SUCCESS);
  ASSERT_EQ(send(Msg{.topic = "U"}).reply.code, code::SUCCESS);
  const std::int64_t got = pull_some("CG", 0, 3);
  const std::int64_t got2 = pull_some("CG2", 0, 1);
  ASSERT_GT(got, 0);
  ASSERT_GT(got2, 0);

  // The minute window may have moved on under a swarm seed's delays: its figures are checked on
  // a fake clock (keyed_stats_test); here only that it holds no more than the day.
  body::BrokerStatsData puts = stats("TOPIC_PUT_NUMS", "T");
  EXPECT_LE(puts.stats_minute.sum, 5);
  EXPECT_EQ(puts.stats_hour.sum, 5);
  EXPECT_EQ(puts.stats_day.sum, 5);
  EXPECT_GT(puts.stats_day.tps, 0.0);
  EXPECT_DOUBLE_EQ(puts.stats_day.avgpt, 1.0);  // one message per send
  EXPECT_EQ(stats("TOPIC_PUT_NUMS", "U").stats_day.sum, 1);
  body::BrokerStatsData bytes = stats("TOPIC_PUT_SIZE", "T");
  EXPECT_GT(bytes.stats_day.sum, 5 * 5);  // five records, each more than its 5-byte body
  EXPECT_DOUBLE_EQ(bytes.stats_day.avgpt, static_cast<double>(bytes.stats_day.sum) / 5);

  EXPECT_EQ(stats("GROUP_GET_NUMS", "T@CG").stats_day.sum, got);
  EXPECT_EQ(stats("GROUP_GET_NUMS", "T@CG").stats_hour.sum, got);
  EXPECT_EQ(stats("GROUP_GET_NUMS", "T@CG2").stats_day.sum, got2);
  EXPECT_GT(stats("GROUP_GET_SIZE", "T@CG").stats_day.sum, 0);
  // The shape RocketMQ's fastjson writes: windows and fields in alphabetical order.
  const std::string text = text_of(view("TOPIC_PUT_NUMS", "T").reply);
  EXPECT_EQ(text.rfind(R"({"statsDay":{"avgpt":1.0,"sum":5,"tps":)", 0), 0u) << text;

  // Nothing counted under a key, or a name Ferry does not count: RocketMQ's refusal.
  Call missing = view("TOPIC_PUT_NUMS", "Nope");
  EXPECT_EQ(missing.reply.code, code::SYSTEM_ERROR);
  EXPECT_EQ(missing.remark(), "The stats <TOPIC_PUT_NUMS> <Nope> not exist");
  EXPECT_EQ(view("GROUP_GET_NUMS", "T@Nobody").remark(), "The stats <GROUP_GET_NUMS> <T@Nobody> not exist");
  EXPECT_EQ(view("GROUP_GET_NUMS", "T").reply.code, code::SYSTEM_ERROR);  // a topic is no group key
  EXPECT_EQ(view("QUEUE_PUT_NUMS", "T").remark(), "The stats <QUEUE_PUT_NUMS> <T> not exist");
  Call bad = call(plain_request(rc::VIEW_BROKER_STATS_DATA, remoting::ExtFields{{"statsName", "TOPIC_PUT_NUMS"}}));
  EXPECT_EQ(bad.reply.code, code::SYSTEM_ERROR);
  EXPECT_NE(bad.remark().find("statsKey"), std::string::npos) << bad.remark();

  // GET_CONSUME_STATS' consumeTps is the group's minute rate, read a moment after 315's: with no
  // pull in between it can only have stayed or fallen.
  const double tps_315 = stats("GROUP_GET_NUMS", "T@CG").stats_minute.tps;
  Call c208 = call(plain_request(rc::GET_CONSUME_STATS, remoting::GetConsumeStatsRequestHeader{"CG", "T"}.to_fields()));
  ASSERT_EQ(c208.reply.code, code::SUCCESS) << c208.remark();
  auto cs = body::ConsumeStats::decode(c208.reply.body);
  ASSERT_TRUE(cs.ok());
  EXPECT_LE(cs->consume_tps, tps_315);
  EXPECT_GE(cs->consume_tps, 0.0);

  // Two hours on: the minute and hour windows have forgotten, the day has not.
  run_for(2h);
  puts = stats("TOPIC_PUT_NUMS", "T");
  EXPECT_EQ(puts.stats_minute.sum, 0);
  EXPECT_EQ(puts.stats_minute.tps, 0.0);
  EXPECT_EQ(puts.stats_hour.sum, 0);
  EXPECT_EQ(puts.stats_day.sum, 5);
  EXPECT_EQ(stats("GROUP_GET_NUMS", "T@CG").stats_day.sum, got);
  run_for(25h);
  EXPECT_EQ(stats("TOPIC_PUT_NUMS", "T").stats_day.sum, 0);  // known, with nothing in the last day
}

TEST_F(StatsViewTest, BrokerConsumeStatsListEveryGroupWithItsDiff) {
  boot();
  for (int i = 0; i < 3; ++i) ASSERT_EQ(send(Msg{.queue_id = 0}).reply.code, code::SUCCESS);
  ASSERT_GT(pull_some("CG", 0, 32), 0);          // creates the subscription group CG
  ASSERT_EQ(call(update_offset_request("CG", "T", 0, 1)).reply.code, code::SUCCESS);
  ASSERT_GT(pull_some("Idle", 0, 1), 0);          // a group with no committed offset

  body::ConsumeStatsList all = broker_consume_stats(false);
  EXPECT_EQ(all.broker_addr, broker().address());
  EXPECT_EQ(all.total_diff, 2);  // queue 0: 3 − 1; the other queues are empty
  const body::GroupConsumeStats* cg = nullptr;
  const body::GroupConsumeStats* idle = nullptr;
  for (const auto& g : all.consume_stats_list) {
    if (g.group == "CG") cg = &g;
    if (g.group == "Idle") idle = &g;
  }
  ASSERT_NE(cg, nullptr) << text_of(call(plain_request(rc::GET_BROKER_CONSUME_STATS, {{"isOrder", "false"}})).reply);
  ASSERT_EQ(cg->stats.size(), 1u);
  EXPECT_EQ(cg->stats[0].total_diff(), 2);
  EXPECT_EQ(cg->stats[0].offset_table.size(), 4u);  // T's write queues
  EXPECT_EQ(cg->stats[0].offset_table.at(MessageQueue{"T", "broker-a", QueueId(0)}).consumer_offset, 1);
  EXPECT_GE(cg->stats[0].consume_tps, 0.0);  // the minute rate: checked on a fake clock (keyed_stats_test)
  ASSERT_NE(idle, nullptr);
  EXPECT_TRUE(idle->stats.empty());
  // The wire shape: a list of one-entry maps, group → list.
  const std::string text = text_of(call(plain_request(rc::GET_BROKER_CONSUME_STATS, {{"isOrder", "false"}})).reply);
  EXPECT_NE(text.find(R"({"CG":[{"consumeTps":)"), std::string::npos) << text;
  EXPECT_NE(text.find(R"("totalDiff":2})"), std::string::npos) << text;

  // isOrder: T is no order topic.
  body::ConsumeStatsList ordered = broker_consume_stats(true);
  EXPECT_EQ(ordered.total_diff, 0);
  for (const auto& g : ordered.consume_stats_list) EXPECT_TRUE(g.stats.empty()) << g.group;
  Call bad = call(remoting::make_request(rc::GET_BROKER_CONSUME_STATS, 0));
  EXPECT_EQ(bad.reply.code, code::SYSTEM_ERROR);
  EXPECT_NE(bad.remark().find("isOrder"), std::string::npos) << bad.remark();
}

TEST_F(StatsViewTest, TopicConsumedByOnlineAndCommittedGroups) {
  boot();
  ASSERT_EQ(send(Msg{}).reply.code, code::SUCCESS);
  ASSERT_EQ(send(Msg{.topic = "U"}).reply.code, code::SUCCESS);
  ASSERT_EQ(call(update_offset_request("Committed", "T", 0, 1)).reply.code, code::SUCCESS);
  ASSERT_EQ(call(update_offset_request("Other", "U", 0, 0)).reply.code, code::SUCCESS);
  TestClient& a = add_client("10.0.0.1@1");
  ASSERT_EQ(heartbeat(a, "Online", "T").reply.code, code::SUCCESS);
  EXPECT_EQ(consumed_by("T"), (std::vector<std::string>{"Committed", "Online"}));
  EXPECT_EQ(consumed_by("U"), (std::vector<std::string>{"Other"}));
  EXPECT_TRUE(consumed_by("Nope").empty());
  Call bad = call(remoting::make_request(rc::QUERY_TOPIC_CONSUME_BY_WHO, 0));
  EXPECT_EQ(bad.reply.code, code::SYSTEM_ERROR);
}

}  // namespace
}  // namespace ferry::broker::testing
