// ConfigFile: atomic replacement with a backup, fallback to the backup, and clear errors; the
// topics.json / consumerOffset.json codecs.
#include <gtest/gtest.h>

#include "common/config_file.h"
#include "broker/consumer_offset_manager.h"
#include "broker/topic_config_manager.h"
#include "runtime/log.h"
#include "sim/node.h"
#include "sim/world.h"

namespace ferry::broker {
namespace {

class ConfigFileTest : public ::testing::Test {
 protected:
  ConfigFileTest() : world_([] {
      if (std::getenv("FERRY_LOG") == nullptr) set_default_log_level(spdlog::level::warn);
      sim::WorldOptions o;
      o.seed = 3;
      return o;
    }()) {
    node_ = world_.add_node("n");
  }
  Runtime& rt() { return world_.node(node_); }

  Status write(ConfigFile& f, std::string text) {
    auto r = world_.run_task(node_, f.write(std::move(text)), std::chrono::seconds(10));
    EXPECT_TRUE(r.ok()) << r.report.message;
    return r.value ? std::move(*r.value) : Status(Errc::cancelled);
  }
  void put(const std::string& path, const std::string& text) {
    ASSERT_TRUE(rt().fs().create_dirs("config").ok());
    auto f = rt().fs().open(path, OpenOptions{.create = true, .exclusive = false, .truncate = true});
    ASSERT_TRUE(f.ok());
    ASSERT_TRUE((*f)->pwrite(0, Bytes(reinterpret_cast<const std::uint8_t*>(text.data()), text.size())).ok());
  }
  static Status must_be_json_object(std::string_view text) {
    if (text.starts_with("{") && text.ends_with("}")) return Status();
    return Status(Errc::corrupt, "not an object");
  }

  sim::World world_;
  sim::NodeId node_{};
};

TEST_F(ConfigFileTest, MissingFileLoadsAsNothing) {
  ConfigFile f(rt(), "config/a.json");
  auto r = f.load(must_be_json_object);
  ASSERT_TRUE(r.ok()) << r.error().to_string();
  EXPECT_FALSE(r->has_value());
}

TEST_F(ConfigFileTest, WriteKeepsThePreviousVersionAsBackup) {
  ConfigFile f(rt(), "config/a.json");
  ASSERT_TRUE(write(f, "{1}").ok());
  ASSERT_TRUE(write(f, "{2}").ok());
  auto r = f.load(must_be_json_object);
  ASSERT_TRUE(r.ok() && r->has_value());
  EXPECT_EQ((*r)->text, "{2}");
  EXPECT_FALSE((*r)->from_backup);
  EXPECT_TRUE(rt().fs().exists("config/a.json.bak"));
  EXPECT_FALSE(rt().fs().exists("config/a.json.tmp"));
  // Written and synced: a crash keeps both.
  world_.power_off(node_);
  world_.start(node_);
  ConfigFile again(rt(), "config/a.json");
  auto after = again.load(must_be_json_object);
  ASSERT_TRUE(after.ok() && after->has_value());
  EXPECT_EQ((*after)->text, "{2}");
}

TEST_F(ConfigFileTest, CorruptFileFallsBackToBackup) {
  ConfigFile f(rt(), "config/a.json");
  ASSERT_TRUE(write(f, "{old}").ok());
  ASSERT_TRUE(write(f, "{new}").ok());
  put("config/a.json", "{tor");
  auto r = f.load(must_be_json_object);
  ASSERT_TRUE(r.ok()) << r.error().to_string();
  ASSERT_TRUE(r->has_value());
  EXPECT_EQ((*r)->text, "{old}");
  EXPECT_TRUE((*r)->from_backup);
}

TEST_F(ConfigFileTest, MissingMainAfterACrashBetweenRenamesTakesTheBackup) {
  put("config/a.json.bak", "{prev}");
  put("config/a.json.tmp", "{next");
  ConfigFile f(rt(), "config/a.json");
  auto r = f.load(must_be_json_object);
  ASSERT_TRUE(r.ok() && r->has_value());
  EXPECT_EQ((*r)->text, "{prev}");
}

TEST_F(ConfigFileTest, BothUnusableIsAnErrorNamingTheFiles) {
  put("config/a.json", "garbage");
  put("config/a.json.bak", "more garbage");
  ConfigFile f(rt(), "config/a.json");
  auto r = f.load(must_be_json_object);
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.error().code, Errc::corrupt);
  EXPECT_NE(r.error().detail.find("config/a.json:"), std::string::npos) << r.error().detail;
  EXPECT_NE(r.error().detail.find("config/a.json.bak"), std::string::npos) << r.error().detail;
}

TEST_F(ConfigFileTest, ConcurrentWritesAreSerializedAndTheLastWins) {
  ConfigFile f(rt(), "config/a.json");
  rt().spawn([](ConfigFile* file) -> Task<void> { (void)co_await file->write("{first}"); }(&f));
  ASSERT_TRUE(write(f, "{second}").ok());
  world_.run_for(std::chrono::seconds(1));
  auto r = f.load(must_be_json_object);
  ASSERT_TRUE(r.ok() && r->has_value());
  EXPECT_EQ((*r)->text, "{second}");
  EXPECT_EQ(f.writes(), 2u);
}

TEST(TopicsJson, RoundTripsAndNamesBadFields) {
  TopicTable t;
  TopicConfig c;
  c.topic_name = "T";
  c.read_queue_nums = 4;
  c.write_queue_nums = 4;
  c.perm = 6;
  t.emplace("T", c);
  const std::string text = TopicConfigManager::encode(t, DataVersion{3, 1700});
  EXPECT_EQ(text,
            R"({"dataVersion":{"counter":3,"timestamp":1700},"topicConfigTable":{"T":{"topicName":"T","readQueueNums":4,)"
            R"("writeQueueNums":4,"perm":6,"topicFilterType":"SINGLE_TAG","topicSysFlag":0,"order":false}}})");
  TopicTable back;
  DataVersion v;
  ASSERT_TRUE(TopicConfigManager::decode(text, back, v).ok());
  EXPECT_EQ(back, t);
  EXPECT_EQ(v.counter, 3);
  TopicTable bad;
  Status s = TopicConfigManager::decode(R"({"topicConfigTable":{"T":{"topicName":"T","perm":6}}})", bad, v);
  ASSERT_FALSE(s.ok());
  EXPECT_NE(s.error().detail.find("readQueueNums"), std::string::npos) << s.error().detail;
}

TEST(ConsumerOffsetJson, RoundTripsAndAcceptsFastjsonKeys) {
  OffsetTable t;
  t["T@G"][0] = 12;
  t["T@G"][3] = 7;
  const std::string text = ConsumerOffsetManager::encode(t);
  EXPECT_EQ(text, R"({"offsetTable":{"T@G":{"0":12,"3":7}}})");
  OffsetTable back;
  ASSERT_TRUE(ConsumerOffsetManager::decode(text, back).ok());
  EXPECT_EQ(back, t);
  OffsetTable fj;
  ASSERT_TRUE(ConsumerOffsetManager::decode(R"({"offsetTable":{"T@G":{0:12,3:7}}})", fj).ok());
  EXPECT_EQ(fj, t);
  OffsetTable bad;
  Status s = ConsumerOffsetManager::decode(R"({"offsetTable":{"TG":{"0":1}}})", bad);
  ASSERT_FALSE(s.ok());
  EXPECT_NE(s.error().detail.find("TG"), std::string::npos);
}

}  // namespace
}  // namespace ferry::broker
