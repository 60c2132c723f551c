// Long polling, consumer offsets and their persistence across graceful restarts and crashes,
// SYNC_FLUSH durability, NameServer registration, queue offset look-ups, topic admin, and the
// metadata backup fallback at start.
#include <limits>

#include "remoting/header/consumer_offset_header.h"
#include "remoting/header/queue_offset_header.h"
#include "remoting/header/topic_admin_header.h"
#include "tests/broker/broker_fixture.h"
#include "tests/support/broker_inspector.h"

using ferry::testing::BrokerInspector;

namespace ferry::broker::testing {
namespace {

// Overwrites a file of the node's disk durably (a crash must not undo it).
Task<Status> overwrite(Runtime* rt, std::string path, std::string text) {
  auto f = rt->fs().open(path, OpenOptions{.create = true, .exclusive = false, .truncate = true});
  if (!f) co_return std::move(f).error();
  Status w = (*f)->pwrite(0, Bytes(reinterpret_cast<const std::uint8_t*>(text.data()), text.size()));
  if (!w) co_return w;
  co_return co_await (*f)->sync();
}


TEST_F(BrokerTest, LongPollIsAnsweredWhenAMessageArrives) {
  without_buggify("measures that the arrival, not the check interval, answers the held pull (a spurious wake, "
                  "a pull not held or a late reply would answer it at another time)");
  boot();
  ASSERT_EQ(send(Msg{.queue_id = 3}).reply.code, code::SUCCESS);  // creates T
  SendLater sender(cluster(), addr_, std::chrono::seconds(2), Msg{.body = "wake up"});
  Pull p;
  p.suspend = true;
  p.suspend_ms = 15'000;
  const MonoTime start = now();
  Call r = pull(p);
  const Duration took = now() - start;
  ASSERT_EQ(r.reply.code, code::SUCCESS) << r.remark() << r.error;
  auto got = messages_of(r.reply);
  ASSERT_EQ(got.size(), 1u);
  EXPECT_EQ(body_text(got[0]), "wake up");
  EXPECT_GE(took, std::chrono::seconds(2) - drift_slack(std::chrono::seconds(2)));  // the sender's 2 s
  EXPECT_LT(took, std::chrono::milliseconds(2500)) << "woken by the arrival, not the 5 s check";
  EXPECT_EQ(BrokerInspector(broker()).hold().parked(), 0u);
  ASSERT_TRUE(cluster().run_until([&] { return sender.done(); }, std::chrono::seconds(10)).ok());
  EXPECT_TRUE(sender.sent());
}

// Found by the broker fuzzer under UBSan (sim_broker_fuzz_test before this fix: FERRY_SIM_SEEDS=7
// FERRY_FUZZ_ITERATIONS=500 in the ASan+UBSan build; in Release the overflow is silent):
// suspendTimeoutMillis was converted to nanoseconds before it was capped at suspend_timeout_max,
// so a value past about 9.2e12 ms overflowed (undefined behaviour; in practice a negative hold:
// the pull was answered PULL_NOT_FOUND at once instead of being held). Any huge value is held up
// to the cap.
TEST_F(BrokerTest, AHugeSuspendTimeoutIsHeldLikeTheCapNotOverflowed) {
  without_buggify("needs the pull held until the arrival (a pull not held answers it at once)");
  boot();
  ASSERT_EQ(send(Msg{.queue_id = 3}).reply.code, code::SUCCESS);  // creates T
  std::int64_t offset = 0;
  for (std::int64_t suspend_ms : {std::numeric_limits<std::int64_t>::max(), std::int64_t{9'223'372'036'855}}) {
    SCOPED_TRACE(suspend_ms);
    SendLater sender(cluster(), addr_, std::chrono::seconds(2), Msg{.body = "wake up"}, fmt::format("sender-{}", offset));
    Pull p;
    p.suspend = true;
    p.suspend_ms = suspend_ms;
    p.offset = offset++;
    Call r = pull(p);
    ASSERT_EQ(r.reply.code, code::SUCCESS) << "the pull was not held for the message: " << r.remark();
    auto got = messages_of(r.reply);
    ASSERT_EQ(got.size(), 1u);
    EXPECT_EQ(body_text(got[0]), "wake up");
    ASSERT_TRUE(cluster().run_until([&] { return sender.done(); }, std::chrono::seconds(10)).ok());
  }
}

TEST_F(BrokerTest, LongPollTimesOutWithPullNotFound) {
  without_buggify("measures how long a pull is held (a spurious wake or a pull not held answers it early, "
                  "a late reply late)");
  boot();
  ASSERT_EQ(send(Msg{}).reply.code, code::SUCCESS);
  Pull p;
  p.offset = 1;
  p.suspend = true;
  p.suspend_ms = 3'000;
  const MonoTime start = now();
  Call r = pull(p);
  const Duration took = now() - start;
  EXPECT_EQ(r.reply.code, code::PULL_NOT_FOUND) << r.remark();
  EXPECT_EQ(r.field("nextBeginOffset"), "1");
  EXPECT_GE(took, std::chrono::seconds(3) - drift_slack(std::chrono::seconds(3)));  // the broker's 3 s
  EXPECT_LT(took, std::chrono::milliseconds(3500));
  // A message to another queue does not wake it early.
  Msg other;
  other.queue_id = 2;
  SendLater sender(cluster(), addr_, std::chrono::seconds(1), other);
  const MonoTime again = now();
  Call r2 = pull(p);
  EXPECT_EQ(r2.reply.code, code::PULL_NOT_FOUND);
  EXPECT_GE(now() - again, std::chrono::seconds(3) - drift_slack(std::chrono::seconds(3)));
  ASSERT_TRUE(sender.done());
  EXPECT_TRUE(sender.sent());
}

TEST_F(BrokerTest, ConsumerOffsetsQueryUpdateAndPiggyBack) {
  boot();
  ASSERT_EQ(call(create_topic_request(topic_header("T", 4))).reply.code, code::SUCCESS);
  // No commit and an empty queue: 0.
  Call q0 = call(query_offset_request("CG", "T", 0));
  ASSERT_EQ(q0.reply.code, code::SUCCESS) << q0.remark();
  EXPECT_EQ(q0.field("offset"), "0");
  ASSERT_EQ(call(update_offset_request("CG", "T", 0, 5)).reply.code, code::SUCCESS);
  EXPECT_EQ(call(query_offset_request("CG", "T", 0)).field("offset"), "5");
  // A pull with the commitOffset flag stores it.
  ASSERT_EQ(send(Msg{.queue_id = 3}).reply.code, code::SUCCESS);
  Pull p;
  p.commit_offset = 9;
  (void)pull(p);
  EXPECT_EQ(call(query_offset_request("CG", "T", 0)).field("offset"), "9");
  // Another group on a queue whose first message is "on disk" (a tiny memory figure): 22.
  EXPECT_EQ(call(query_offset_request("OTHER", "T", 1)).field("offset"), "0");
  RemotingCommand bad = query_offset_request("CG", "T", 0);
  bad.ext_fields.erase("consumerGroup");
  Call br = call(bad);
  EXPECT_EQ(br.reply.code, code::SYSTEM_ERROR);
  EXPECT_NE(br.remark().find("consumerGroup"), std::string::npos) << br.remark();
}

TEST_F(BrokerTest, QueryOffsetIsNotFoundWhenTheFirstMessageIsOnDisk) {
  config_.total_memory_bytes = 100;  // 40 bytes "in memory"
  boot();
  ASSERT_EQ(send(Msg{.body = std::string(200, 'x')}).reply.code, code::SUCCESS);
  Call r = call(query_offset_request("CG", "T", 0));
  EXPECT_EQ(r.reply.code, code::QUERY_NOT_FOUND) << r.remark();
}

TEST_F(BrokerTest, OffsetsSurviveAGracefulRestart) {
  boot();
  ASSERT_EQ(call(create_topic_request(topic_header("T", 4))).reply.code, code::SUCCESS);
  ASSERT_EQ(call(update_offset_request("CG", "T", 1, 42)).reply.code, code::SUCCESS);
  graceful_restart();
  EXPECT_EQ(call(query_offset_request("CG", "T", 1)).field("offset"), "42");
  EXPECT_FALSE(names_->unregistered.empty()) << "UNREGISTER_BROKER on graceful stop";
  EXPECT_TRUE(node(broker_).fs().exists("config/consumerOffset.json"));
}

TEST_F(BrokerTest, OffsetsPersistedWithinTheIntervalSurviveACrash) {
  without_buggify("tests that one persist interval makes an offset durable (buggify persists late, legally)");
  boot();
  ASSERT_EQ(call(create_topic_request(topic_header("T", 4))).reply.code, code::SUCCESS);
  ASSERT_EQ(call(update_offset_request("CG", "T", 0, 10)).reply.code, code::SUCCESS);
  run_for(std::chrono::seconds(6) + sync_bound());  // past the 5 s persist interval and its syncs
  ASSERT_EQ(call(update_offset_request("CG", "T", 0, 20)).reply.code, code::SUCCESS);
  crash_restart();  // at once: the 20 was not persisted yet
  EXPECT_EQ(call(query_offset_request("CG", "T", 0)).field("offset"), "10");
}

TEST_F(BrokerTest, SyncFlushSendSurvivesACrash) {
  config_.flush_disk_type = store::FlushMode::sync_flush;
  boot();
  for (int i = 0; i < 5; ++i) {
    Msg m;
    m.body = "durable-" + std::to_string(i);
    ASSERT_EQ(send(m).reply.code, code::SUCCESS);
  }
  crash_restart();
  const auto got = all_of("T");
  ASSERT_EQ(got.size(), 5u);
  for (int i = 0; i < 5; ++i) EXPECT_EQ(body_text(got[i]), "durable-" + std::to_string(i));
  // The auto-created topic survived too (topics.json was persisted at creation).
  EXPECT_NE(BrokerInspector(broker()).topics().find("T"), nullptr);
}

class SlowDiskBrokerTest : public BrokerTest {
 protected:
  static void slow(sim::WorldOptions& o) {
    o.disk.slow_sync_ppm = 1'000'000;
    o.disk.slow_sync_latency = std::chrono::seconds(6);
  }
  SlowDiskBrokerTest() : BrokerTest(&slow) {}
};

TEST_F(SlowDiskBrokerTest, SyncFlushTimeoutKeepsTheFullHeader) {
  config_.flush_disk_type = store::FlushMode::sync_flush;
  boot();
  Call r = call(send_request(Msg{}), std::chrono::seconds(10));
  ASSERT_TRUE(r.ok) << r.error;
  EXPECT_EQ(r.reply.code, code::FLUSH_DISK_TIMEOUT);
  EXPECT_EQ(r.field("queueOffset"), "0");
  EXPECT_EQ(r.field("msgId").size(), 32u);
  // WAIT=false does not wait.
  Msg nowait;
  nowait.set("WAIT", "false");
  EXPECT_EQ(send(nowait).reply.code, code::SUCCESS);
}

TEST_F(BrokerTest, RegistersAtStartPeriodicallyAndUnregistersOnStop) {
  without_buggify("counts registrations per 30 s period (buggify skips one now and then, legally)");
  boot();
  run_for(std::chrono::seconds(1));
  ASSERT_GE(names_->registrations.size(), 1u);
  const auto& first = names_->registrations.front().topic_config_serialize_wrapper;
  EXPECT_TRUE(first.topic_config_table.contains("TBW102"));
  EXPECT_TRUE(first.topic_config_table.contains("SCHEDULE_TOPIC_XXXX"));
  const std::size_t after_start = names_->registrations.size();
  run_for(std::chrono::seconds(61));
  EXPECT_EQ(names_->registrations.size(), after_start + 2);
  EXPECT_TRUE(names_->crc_problems.empty());
  auto r = cluster().run_task(broker_, broker().stop(), std::chrono::seconds(30));
  ASSERT_TRUE(r.ok());
  ASSERT_EQ(names_->unregistered.size(), 1u);
  EXPECT_EQ(names_->unregistered[0], addr_);
}

TEST_F(BrokerTest, QueueOffsetLookups) {
  boot();
  for (int i = 0; i < 3; ++i) {
    ASSERT_EQ(send(Msg{}).reply.code, code::SUCCESS);
    run_for(std::chrono::seconds(1));
  }
  EXPECT_EQ(call(max_offset_request("T", 0)).field("offset"), "3");
  RemotingCommand mn = remoting::make_request(rc::GET_MIN_OFFSET, 0);
  mn.ext_fields = remoting::GetMinOffsetRequestHeader{"T", QueueId(0)}.to_fields();
  EXPECT_EQ(call(mn).field("offset"), "0");
  RemotingCommand early = remoting::make_request(rc::GET_EARLIEST_MSG_STORETIME, 0);
  early.ext_fields = remoting::GetEarliestMsgStoretimeRequestHeader{"T", QueueId(0)}.to_fields();
  const std::int64_t t0 = std::stoll(call(early).field("timestamp"));
  EXPECT_GT(t0, 0);
  RemotingCommand search = remoting::make_request(rc::SEARCH_OFFSET_BY_TIMESTAMP, 0);
  search.ext_fields = remoting::SearchOffsetRequestHeader{"T", QueueId(0), t0 + 1}.to_fields();
  EXPECT_EQ(call(search).field("offset"), "1");
  early.ext_fields = remoting::GetEarliestMsgStoretimeRequestHeader{"T", QueueId(3)}.to_fields();
  EXPECT_EQ(call(early).field("timestamp"), "-1");
}

TEST_F(BrokerTest, TopicAdminCreateUpdateDelete) {
  boot();
  remoting::CreateTopicRequestHeader h = topic_header("Admin", 2);
  RemotingCommand c = create_topic_request(h);
  ASSERT_EQ(call(c).reply.code, code::SUCCESS);
  ASSERT_NE(BrokerInspector(broker()).topics().find("Admin"), nullptr);
  EXPECT_EQ(BrokerInspector(broker()).topics().find("Admin")->write_queue_nums, 2);
  // Read-only: sends refused.
  h.perm = 4;
  c.ext_fields = h.to_fields();
  ASSERT_EQ(call(c).reply.code, code::SUCCESS);
  EXPECT_EQ(send(Msg{.topic = "Admin"}).reply.code, code::NO_PERMISSION);
  h.topic = "TBW102";
  c.ext_fields = h.to_fields();
  EXPECT_EQ(call(c).reply.code, code::SYSTEM_ERROR);
  RemotingCommand d = remoting::make_request(kDeleteTopicInBroker, 0);
  d.ext_fields.set("topic", "Admin");
  ASSERT_EQ(call(d).reply.code, code::SUCCESS);
  EXPECT_EQ(BrokerInspector(broker()).topics().find("Admin"), nullptr);
  graceful_restart();
  EXPECT_EQ(BrokerInspector(broker()).topics().find("Admin"), nullptr);
}

TEST_F(BrokerTest, CorruptTopicsFileFallsBackToTheBackup) {
  boot();
  ASSERT_EQ(send(Msg{.topic = "First"}).reply.code, code::SUCCESS);
  ASSERT_EQ(send(Msg{.topic = "Second"}).reply.code, code::SUCCESS);
  graceful_restart();
  // Tear topics.json: the backup (before the last write) is used.
  auto torn = cluster().run_task(broker_, overwrite(&node(broker_), "config/topics.json", "{\"topicC"),
                              std::chrono::seconds(5));
  ASSERT_TRUE(torn.ok() && torn.value->ok());
  crash_restart();
  EXPECT_NE(BrokerInspector(broker()).topics().find("First"), nullptr);
  // Both files bad: the broker refuses to start and says which file.
  for (const char* p : {"config/topics.json", "config/topics.json.bak"}) {
    auto bad = cluster().run_task(broker_, overwrite(&node(broker_), p, "[]"), std::chrono::seconds(5));
    ASSERT_TRUE(bad.ok() && bad.value->ok());
  }
  cluster().power_off(broker_);
  cluster().start(broker_);
  run_for(std::chrono::seconds(5));
  ASSERT_EQ(broker().state(), Broker::State::failed);
  EXPECT_NE(broker().start_error()->detail.find("config/topics.json"), std::string::npos)
      << broker().start_error()->detail;
}

}  // namespace
}  // namespace ferry::broker::testing
