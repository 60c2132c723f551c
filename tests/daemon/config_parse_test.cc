// The daemons' config files: RocketMQ names onto BrokerConfig/StoreConfig (broker_conf.h) and
// the NameServer's config (namesrv_conf.h, both src/daemon), validation with file:line:key errors, warnings for
// unknown and unused keys, every example in conf/. The properties syntax and the config folder
// themselves (src/daemon) are tests/daemon/properties_test.cc.
#include <gtest/gtest.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <set>
#include <sstream>

#include "daemon/config_binder.h"
#include "daemon/properties_file.h"
#include "remoting/acl/acl_config.h"
#include "daemon/broker_conf.h"
#include "daemon/controller_conf.h"
#include "daemon/namesrv_conf.h"

namespace ferry::daemon {
namespace {

PropertiesFile props(std::string_view text) {
  auto p = parse_properties(text, "b.conf");
  EXPECT_TRUE(p.ok()) << (p.ok() ? "" : p.error().to_string());
  return p.ok() ? *p : PropertiesFile{};
}

Result<BrokerConf> broker(std::string_view text) {
  auto p = parse_properties(text, "b.conf");
  if (!p) return std::move(p).error();
  return parse_broker_conf(*p, "/srv/u");
}

std::string error_of(std::string_view text) {
  auto c = broker(text);
  EXPECT_FALSE(c.ok()) << "accepted: " << text;
  return c.ok() ? std::string() : c.error().detail;
}

TEST(BrokerConf, DefaultsWithoutFile) {
  const BrokerConf c = default_broker_conf("/srv/u");
  EXPECT_EQ(c.store_root_dir, "/srv/u/store");
  EXPECT_EQ(c.broker.store.root, "");
  EXPECT_EQ(c.broker.listen_port, 10911);
  EXPECT_EQ(c.broker.broker_cluster_name, "DefaultCluster");
}

TEST(BrokerConf, RocketMqNamesMapOntoFields) {
  auto c = broker(R"(
brokerClusterName = C1
brokerName=broker-b
brokerId=0
namesrvAddr=10.0.0.1:9876; 10.0.0.2:9876;
listenPort=20911
haListenPort=20912
brokerIP1=10.0.0.5
storePathRootDir=/data/store
storePathCommitLog=/data/store/commitlog/
brokerRole=SYNC_MASTER
flushDiskType=SYNC_FLUSH
autoCreateTopicEnable=false
fileReservedTime=48
deleteWhen=04;16
diskMaxUsedSpaceRatio=88
mappedFileSizeCommitLog=10485760
mappedFileSizeConsumeQueue=6000
maxMessageSize=65536
flushIntervalCommitLog=200
syncFlushTimeout=3000
flushConsumerOffsetInterval=1000
defaultTopicQueueNums=4
)");
  ASSERT_TRUE(c.ok()) << c.error().to_string();
  const auto& b = c->broker;
  EXPECT_EQ(b.broker_cluster_name, "C1");
  EXPECT_EQ(b.broker_name, "broker-b");
  EXPECT_EQ(b.namesrv_addr, (std::vector<std::string>{"10.0.0.1:9876", "10.0.0.2:9876"}));
  EXPECT_EQ(b.listen_port, 20911);
  EXPECT_EQ(b.broker_ip1, "10.0.0.5");
  EXPECT_EQ(c->store_root_dir, "/data/store");
  EXPECT_EQ(b.broker_role, broker::BrokerRole::sync_master);
  EXPECT_EQ(b.flush_disk_type, store::FlushMode::sync_flush);
  EXPECT_FALSE(b.auto_create_topic_enable);
  EXPECT_EQ(b.store.file_reserved_time, std::chrono::hours(48));
  EXPECT_EQ(b.store.delete_when, "04;16");
  EXPECT_EQ(b.store.disk_max_used_space_ratio_pct, 88);
  EXPECT_GE(b.store.disk_space_clean_forcibly_ratio_pct, 88);  // follows diskMaxUsedSpaceRatio
  EXPECT_GE(b.store.disk_space_warning_level_ratio_pct, b.store.disk_space_clean_forcibly_ratio_pct);
  EXPECT_EQ(b.store.commit_log_file_size_bytes, 10485760);
  EXPECT_EQ(b.store.consume_queue_units_per_file, 300);
  EXPECT_EQ(b.store.message_size_max_bytes, 65536);
  EXPECT_EQ(b.store.async_flush_interval, std::chrono::milliseconds(200));
  EXPECT_EQ(b.store.sync_flush_timeout, std::chrono::milliseconds(3000));
  EXPECT_EQ(b.flush_consumer_offset_interval, std::chrono::milliseconds(1000));
  EXPECT_EQ(b.default_topic_queue_nums, 4);
  EXPECT_TRUE(c->warnings.empty()) << c->warnings.front();
}

TEST(BrokerConf, OldMapedSpellingAndSlave) {
  auto c = broker("mapedFileSizeCommitLog=8388608\nbrokerRole=SLAVE\nbrokerId=1\n");
  ASSERT_TRUE(c.ok()) << c.error().to_string();
  EXPECT_EQ(c->broker.store.commit_log_file_size_bytes, 8388608);
  EXPECT_EQ(c->broker.broker_role, broker::BrokerRole::slave);
  EXPECT_EQ(c->broker.broker_id, 1);
}

TEST(BrokerConf, SlaveReadEnableIsReadAndOffByDefault) {
  auto off = broker("brokerRole=SLAVE\nbrokerId=1\n");
  ASSERT_TRUE(off.ok()) << off.error().to_string();
  EXPECT_FALSE(off->broker.slave_read_enable);
  auto on = broker("slaveReadEnable=true\n");
  ASSERT_TRUE(on.ok()) << on.error().to_string();
  EXPECT_TRUE(on->broker.slave_read_enable);
  EXPECT_TRUE(on->warnings.empty()) << on->warnings.front();
}

TEST(BrokerConf, TransactionAndReplyKeysAreReadWithRocketMQsUnits) {
  auto d = broker("");
  ASSERT_TRUE(d.ok()) << d.error().to_string();
  EXPECT_FALSE(d->broker.reject_transaction_message);
  EXPECT_EQ(d->broker.transaction_check_interval, std::chrono::seconds(60));
  auto c = broker("rejectTransactionMessage=true\ntransactionTimeOut=3000\ntransactionCheckMax=5\ntransactionCheckInterval=10000\n");
  ASSERT_TRUE(c.ok()) << c.error().to_string();
  EXPECT_TRUE(c->broker.reject_transaction_message);
  EXPECT_EQ(c->broker.transaction_timeout, std::chrono::seconds(3));
  EXPECT_EQ(c->broker.transaction_check_max, 5);
  EXPECT_EQ(c->broker.transaction_check_interval, std::chrono::seconds(10));
  EXPECT_TRUE(c->warnings.empty()) << c->warnings.front();
  EXPECT_TRUE(d->broker.store_reply_message_enable);
  auto replies = broker("storeReplyMessageEnable=false\n");
  ASSERT_TRUE(replies.ok()) << replies.error().to_string();
  EXPECT_FALSE(replies->broker.store_reply_message_enable);
  auto bad = broker("transactionCheckMax=0\n");
  ASSERT_FALSE(bad.ok());
  EXPECT_NE(bad.error().detail.find("transactionCheckMax"), std::string::npos) << bad.error().detail;
}

TEST(BrokerConf, DelayLevelsAndTimerKeysAreRead) {
  using namespace std::chrono_literals;
  auto d = broker("");
  ASSERT_TRUE(d.ok()) << d.error().to_string();
  EXPECT_EQ(d->broker.message_delay_levels.size(), 18u);
  EXPECT_TRUE(d->broker.timer_wheel_enable);
  EXPECT_EQ(d->broker.timer_precision_ms, 1000);
  EXPECT_EQ(d->broker.timer_max_delay_sec, 259'200);
  auto c = broker(
      "messageDelayLevel=1s 30s 2m 1h 1d\ntimerWheelEnable=false\ntimerPrecisionMs=200\ntimerMaxDelaySec=86400\n"
      "timerFlushIntervalMs=500\nmappedFileSizeTimerLog=4000\n");
  ASSERT_TRUE(c.ok()) << c.error().to_string();
  EXPECT_EQ(c->broker.message_delay_levels,
            (std::vector<Duration>{1s, 30s, std::chrono::minutes(2), std::chrono::hours(1), std::chrono::hours(24)}));
  EXPECT_FALSE(c->broker.timer_wheel_enable);
  EXPECT_EQ(c->broker.timer_precision_ms, 200);
  EXPECT_EQ(c->broker.timer_max_delay_sec, 86'400);
  EXPECT_EQ(c->broker.timer_flush_interval, 500ms);
  EXPECT_EQ(c->broker.timer_log_entries_per_file, 100);
  EXPECT_TRUE(c->warnings.empty()) << c->warnings.front();
  for (const char* line : {"messageDelayLevel=1s 5x\n", "timerPrecisionMs=300\n", "mappedFileSizeTimerLog=4001\n"}) {
    auto bad = broker(line);
    ASSERT_FALSE(bad.ok()) << line;
    const std::string key(line, std::string_view(line).find('='));
    EXPECT_NE(bad.error().detail.find("b.conf:1"), std::string::npos) << bad.error().detail;
    EXPECT_NE(bad.error().detail.find(key), std::string::npos) << bad.error().detail;
  }
}

TEST(BrokerConf, PopKeysAreReadWithinTheirBounds) {
  using namespace std::chrono_literals;
  auto d = broker("");
  ASSERT_TRUE(d.ok()) << d.error().to_string();
  EXPECT_EQ(d->broker.revive_queue_num, 8);
  EXPECT_EQ(d->broker.revive_interval, 1s);
  EXPECT_EQ(d->broker.pop_ck_max_buffer_size, 200'000u);
  auto c = broker("reviveQueueNum=2\nreviveInterval=250\npopPollingSize=10\nmaxPopPollingSize=20\n"
                  "popFromRetryProbability=0\nenableRetryTopicV2=true\npopCkMaxBufferSize=5\n");
  ASSERT_TRUE(c.ok()) << c.error().to_string();
  EXPECT_EQ(c->broker.revive_queue_num, 2);
  EXPECT_EQ(c->broker.revive_interval, 250ms);
  EXPECT_EQ(c->broker.pop_polling_size, 10u);
  EXPECT_EQ(c->broker.max_pop_polling_size, 20u);
  EXPECT_EQ(c->broker.pop_from_retry_probability, 0);
  EXPECT_TRUE(c->broker.enable_retry_topic_v2);
  EXPECT_EQ(c->broker.pop_ck_max_buffer_size, 5u);
  EXPECT_TRUE(c->warnings.empty()) << c->warnings.front();
  for (const char* line : {"reviveQueueNum=0\n", "reviveQueueNum=65\n", "popFromRetryProbability=101\n", "popCkMaxBufferSize=0\n"}) {
    auto bad = broker(line);
    ASSERT_FALSE(bad.ok()) << line;
    const std::string key(line, std::string_view(line).find('='));
    EXPECT_NE(bad.error().detail.find("b.conf:1"), std::string::npos) << bad.error().detail;
    EXPECT_NE(bad.error().detail.find(key), std::string::npos) << bad.error().detail;
  }
}

TEST(BrokerConf, UnknownAndUnusedKeysWarnByName) {
  auto c = broker("brokerNmae=x\nbrokerIP2=10.0.0.9\nsendMessageThreadPoolNums=16\nsyncFlushTimeoutForSlave=1\n");
  ASSERT_TRUE(c.ok()) << c.error().to_string();
  ASSERT_EQ(c->warnings.size(), 4u);
  EXPECT_EQ(c->warnings[0], "b.conf:1: unknown key brokerNmae ignored");
  EXPECT_NE(c->warnings[1].find("b.conf:2: brokerIP2 is ignored: Ferry's HA port listens on brokerIP1"),
            std::string::npos)
      << c->warnings[1];
  EXPECT_NE(c->warnings[2].find("b.conf:3: sendMessageThreadPoolNums is ignored"), std::string::npos);
  // Not a RocketMQ 4.9 key.
  EXPECT_EQ(c->warnings[3], "b.conf:4: unknown key syncFlushTimeoutForSlave ignored");
}

// The replication keys, in RocketMQ's units, land in BrokerConfig::ha and ha_master_address.
TEST(BrokerConf, HaKeysMapOntoHaConfig) {
  auto c = broker(R"(brokerRole=SLAVE
brokerId=1
haMasterAddress=10.0.0.5:10912
haSendHeartbeatInterval=2000
haHousekeepingInterval=15000
haTransferBatchSize=65536
haSlaveFallbehindMax=1048576
slaveTimeout=1500
)");
  ASSERT_TRUE(c.ok()) << c.error().to_string();
  const broker::BrokerConfig& b = c->broker;
  EXPECT_EQ(b.ha_master_address, "10.0.0.5:10912");
  EXPECT_EQ(b.ha.heartbeat_interval, std::chrono::milliseconds(2000));
  EXPECT_EQ(b.ha.housekeeping_interval, std::chrono::milliseconds(15000));
  EXPECT_EQ(b.ha.transfer_batch_bytes, 65536);
  EXPECT_EQ(b.ha.slave_fallbehind_max_bytes, 1048576);
  EXPECT_EQ(b.ha.slave_timeout, std::chrono::milliseconds(1500));
  EXPECT_TRUE(c->warnings.empty()) << c->warnings.front();
}

TEST(BrokerConf, HaDefaultsAreRocketMqs) {
  auto c = broker("");
  ASSERT_TRUE(c.ok()) << c.error().to_string();
  EXPECT_EQ(c->broker.ha.slave_timeout, std::chrono::milliseconds(3000));
  EXPECT_EQ(c->broker.ha.heartbeat_interval, std::chrono::milliseconds(5000));
  EXPECT_EQ(c->broker.ha.housekeeping_interval, std::chrono::milliseconds(20000));
  EXPECT_EQ(c->broker.ha.transfer_batch_bytes, 32 * 1024);
  EXPECT_EQ(c->broker.ha.slave_fallbehind_max_bytes, std::int64_t{256} << 20);
  EXPECT_EQ(c->broker.ha_master_address, "");
}

TEST(BrokerConf, BadHaValuesNameFileLineAndKey) {
  EXPECT_EQ(error_of("haMasterAddress=master-host:10912"),
            "b.conf:1: haMasterAddress: \"master-host:10912\" is not an IPv4 address with a port (ip:port)");
  EXPECT_EQ(error_of("haMasterAddress=10.0.0.5"),
            "b.conf:1: haMasterAddress: \"10.0.0.5\" is not an IPv4 address with a port (ip:port)");
  EXPECT_EQ(error_of("\nhaTransferBatchSize=100"), "b.conf:2: haTransferBatchSize: 100 is out of range [1024, 16777216]");
  EXPECT_EQ(error_of("haTransferBatchSize=33554432"),
            "b.conf:1: haTransferBatchSize: 33554432 is out of range [1024, 16777216]");
  EXPECT_EQ(error_of("slaveTimeout=0"), "b.conf:1: slaveTimeout: 0 is out of range [10, 600000]");
  EXPECT_EQ(error_of("haSlaveFallbehindMax=-1"), "b.conf:1: haSlaveFallbehindMax: -1 is out of range [1, 2147483647]");
  EXPECT_EQ(error_of("haSendHeartbeatInterval=abc"), "b.conf:1: haSendHeartbeatInterval: \"abc\" is not an integer");
  EXPECT_NE(error_of("haHousekeepingInterval=4000\n")
                .find("b.conf:1: haHousekeepingInterval: haSendHeartbeatInterval (5000 ms) must be shorter than "
                      "haHousekeepingInterval (4000 ms)"),
            std::string::npos);
}

// RocketMQ 4.9 overwrites haListenPort with listenPort + 1; Ferry does too, and says so.
TEST(BrokerConf, HaListenPortOtherThanListenPortPlusOneIsWarnedAndIgnored) {
  auto c = broker("listenPort=10911\nhaListenPort=10999\n");
  ASSERT_TRUE(c.ok()) << c.error().to_string();
  EXPECT_EQ(c->broker.listen_port, 10911);
  ASSERT_EQ(c->warnings.size(), 1u);
  EXPECT_EQ(c->warnings[0],
            "b.conf:2: haListenPort 10999 is ignored: the HA port is always listenPort + 1 (10912), as RocketMQ 4.9 "
            "overwrites it");
  auto right = broker("listenPort=10911\nhaListenPort=10912\n");
  ASSERT_TRUE(right.ok());
  EXPECT_TRUE(right->warnings.empty()) << right->warnings.front();
}

TEST(BrokerConf, InvalidValuesNameFileLineAndKey) {
  EXPECT_EQ(error_of("\nlistenPort=abc\n"), "b.conf:2: listenPort: \"abc\" is not an integer");
  EXPECT_EQ(error_of("listenPort=70000"), "b.conf:1: listenPort: 70000 is out of range [1, 65534]");
  EXPECT_EQ(error_of("autoCreateTopicEnable=yes"),
            "b.conf:1: autoCreateTopicEnable: \"yes\" is not a boolean (true or false)");
  EXPECT_EQ(error_of("a=1\nbrokerRole=MASTER"),
            "b.conf:2: brokerRole: \"MASTER\" is not one of ASYNC_MASTER / SYNC_MASTER / SLAVE");
  EXPECT_EQ(error_of("flushDiskType=sync_flush"),
            "b.conf:1: flushDiskType: \"sync_flush\" is not one of ASYNC_FLUSH / SYNC_FLUSH");
  EXPECT_EQ(error_of("namesrvAddr=localhost:9876"),
            "b.conf:1: namesrvAddr: \"localhost:9876\" is not an IPv4 address with a port (ip:port)");
  EXPECT_EQ(error_of("deleteWhen=25"), "b.conf:1: deleteWhen: \"25\" is not an hour (00..23)");
  EXPECT_EQ(error_of("diskMaxUsedSpaceRatio=99"), "b.conf:1: diskMaxUsedSpaceRatio: 99 is out of range [10, 95]");
  EXPECT_EQ(error_of("brokerName="), "b.conf:1: brokerName: must not be empty");
  EXPECT_EQ(error_of("mappedFileSizeConsumeQueue=1001"),
            "b.conf:1: mappedFileSizeConsumeQueue: 1001 is not a multiple of 20 (the unit size)");
  EXPECT_EQ(error_of("brokerIP1=my-host"), "b.conf:1: brokerIP1: \"my-host\" is not an IPv4 address");
}

TEST(BrokerConf, RecoverModeIsAbortByDefaultAndTakesTheThreeModes) {
  EXPECT_EQ(default_broker_conf("/srv/u").broker.store.recover_mode, store::RecoverMode::abort);
  for (const auto& [text, mode] : {std::pair{"abort", store::RecoverMode::abort},
                                   std::pair{"truncate", store::RecoverMode::truncate},
                                   std::pair{"skip", store::RecoverMode::skip}}) {
    auto c = broker(std::string("recoverMode=") + text);
    ASSERT_TRUE(c.ok()) << c.error().to_string();
    EXPECT_EQ(c->broker.store.recover_mode, mode) << text;
    EXPECT_TRUE(c->warnings.empty()) << c->warnings.front();
  }
  EXPECT_EQ(error_of("recoverMode=delete"), "b.conf:1: recoverMode: \"delete\" is not one of abort / truncate / skip");
}

TEST(BrokerConf, InconsistentCombinationsNameTheKey) {
  EXPECT_NE(error_of("mappedFileSizeCommitLog=65536").find("b.conf:1: mappedFileSizeCommitLog: 65536 bytes cannot hold"),
            std::string::npos);
  EXPECT_NE(error_of("storePathRootDir=/a\nstorePathCommitLog=/b/commitlog").find("b.conf:2: storePathCommitLog:"),
            std::string::npos);
  EXPECT_NE(error_of("brokerRole=SLAVE").find("b.conf:1: brokerRole: a SLAVE needs brokerId > 0"), std::string::npos);
  EXPECT_NE(error_of("brokerId=2\n").find("b.conf:1: brokerId: a master"), std::string::npos);
  EXPECT_NE(error_of("diskSpaceCleanForciblyRatio=80\ndiskMaxUsedSpaceRatio=85")
                .find("b.conf:2: diskMaxUsedSpaceRatio: diskMaxUsedSpaceRatio (85) must not exceed"),
            std::string::npos);
}

TEST(BrokerConf, NamesrvAddrList) {
  EXPECT_EQ(*parse_namesrv_addr("127.0.0.1:9876"), std::vector<std::string>{"127.0.0.1:9876"});
  EXPECT_EQ(parse_namesrv_addr(" 1.2.3.4:1 ;;5.6.7.8:2; ")->size(), 2u);
  EXPECT_FALSE(parse_namesrv_addr(";").ok());
  EXPECT_FALSE(parse_namesrv_addr("1.2.3.4").ok());
  EXPECT_FALSE(parse_namesrv_addr("1.2.3.4:0").ok());
}

TEST(NamesrvConf, KeysAndErrors) {
  auto p = parse_properties("listenPort=9877\ndataDir=/d/ns\nkvConfigPath=/x\nfoo=1\n", "n.conf");
  ASSERT_TRUE(p.ok());
  auto c = parse_namesrv_conf(*p, "/srv/u");
  ASSERT_TRUE(c.ok()) << c.error().to_string();
  EXPECT_EQ(c->namesrv.listen_port, 9877);
  EXPECT_EQ(c->data_dir, "/d/ns");
  ASSERT_EQ(c->warnings.size(), 2u);
  EXPECT_EQ(c->warnings[1], "n.conf:4: unknown key foo ignored");
  EXPECT_EQ(default_namesrv_conf("/h").data_dir, "/h/namesrv");
  p = parse_properties("listenPort=0\n", "n.conf");
  c = parse_namesrv_conf(*p, "/h");
  ASSERT_FALSE(c.ok());
  EXPECT_EQ(c.error().detail, "n.conf:1: listenPort: 0 is out of range [1, 65535]");
}

// maxConnections and serverChannelMaxIdleTimeSeconds: the server's connection cap and idle
// timeout, in both files, RpcOptions' defaults without them, bounds checked.
TEST(ServerKeys, BothDaemonsReadThemAndCheckTheirBounds) {
  const BrokerConf defaults = default_broker_conf("/srv/u");
  EXPECT_EQ(defaults.broker.rpc.connections_max, 16384u);
  EXPECT_EQ(defaults.broker.rpc.idle_timeout, std::chrono::seconds(120));
  EXPECT_EQ(default_namesrv_conf("/h").namesrv.rpc.connections_max, 16384u);
  EXPECT_EQ(default_namesrv_conf("/h").namesrv.rpc.idle_timeout, std::chrono::seconds(120));

  auto c = broker("maxConnections=16\nserverChannelMaxIdleTimeSeconds=2\n");
  ASSERT_TRUE(c.ok()) << c.error().to_string();
  EXPECT_EQ(c->broker.rpc.connections_max, 16u);
  EXPECT_EQ(c->broker.rpc.idle_timeout, std::chrono::seconds(2));
  EXPECT_TRUE(c->warnings.empty()) << c->warnings.front();
  EXPECT_EQ(error_of("maxConnections=0"), "b.conf:1: maxConnections: 0 is out of range [1, 1048576]");
  EXPECT_EQ(error_of("a=1\nmaxConnections=many"), "b.conf:2: maxConnections: \"many\" is not an integer");
  auto never = broker("serverChannelMaxIdleTimeSeconds=0\n");  // RocketMQ's "never"
  ASSERT_TRUE(never.ok()) << never.error().to_string();
  EXPECT_EQ(never->broker.rpc.idle_timeout, Duration::zero());
  EXPECT_EQ(error_of("serverChannelMaxIdleTimeSeconds=-1"),
            "b.conf:1: serverChannelMaxIdleTimeSeconds: -1 is out of range [0, 86400]");
  EXPECT_EQ(error_of("serverChannelMaxIdleTimeSeconds=86401"),
            "b.conf:1: serverChannelMaxIdleTimeSeconds: 86401 is out of range [0, 86400]");

  auto p = parse_properties("maxConnections=100\nserverChannelMaxIdleTimeSeconds=30\n", "n.conf");
  ASSERT_TRUE(p.ok());
  auto n = parse_namesrv_conf(*p, "/h");
  ASSERT_TRUE(n.ok()) << n.error().to_string();
  EXPECT_EQ(n->namesrv.rpc.connections_max, 100u);
  EXPECT_EQ(n->namesrv.rpc.idle_timeout, std::chrono::seconds(30));
  EXPECT_TRUE(n->warnings.empty()) << n->warnings.front();
  p = parse_properties("\nmaxConnections=-5\n", "n.conf");
  n = parse_namesrv_conf(*p, "/h");
  ASSERT_FALSE(n.ok());
  EXPECT_EQ(n.error().detail, "n.conf:2: maxConnections: -5 is out of range [1, 1048576]");
}

std::string read_file_text(const std::string& path) {
  std::ifstream in(path);
  std::stringstream text;
  text << in.rdbuf();
  return text.str();
}

TEST(AclKeys, BrokerAndNameServerReadThem) {
  auto b = parse_broker_conf(props("aclEnable=true\nlistenAddress=0.0.0.0\naccessKey=ferryAdmin\nsecretKey=s3cret-value\n"), "/h");
  ASSERT_TRUE(b.ok()) << b.error().to_string();
  EXPECT_TRUE(b->broker.acl_enable);
  EXPECT_EQ(b->broker.listen_address, "0.0.0.0");
  EXPECT_EQ(b->broker.credentials.access_key, "ferryAdmin");
  EXPECT_EQ(b->broker.credentials.secret_key, "s3cret-value");
  EXPECT_TRUE(b->warnings.empty()) << b->warnings.front();
  // The default file is plain_acl.yml beside the .conf; a relative aclFilePath is relative to it.
  auto in_conf = parse_properties("aclEnable=true\n", "/etc/ferry/broker.conf");
  ASSERT_TRUE(in_conf.ok());
  auto d = parse_broker_conf(*in_conf, "/h");
  ASSERT_TRUE(d.ok());
  EXPECT_EQ(d->acl_file, "/etc/ferry/plain_acl.yml");
  EXPECT_EQ(d->broker.acl_file_path, "plain_acl.yml");
  auto rel = parse_properties("aclFilePath=acl/accounts.yml\n", "/etc/ferry/broker.conf");
  ASSERT_TRUE(rel.ok());
  EXPECT_EQ(parse_broker_conf(*rel, "/h")->acl_file, "/etc/ferry/acl/accounts.yml");
  auto abs = parse_properties("aclFilePath=/srv/acl.yml\n", "/etc/ferry/broker.conf");
  ASSERT_TRUE(abs.ok());
  EXPECT_EQ(parse_broker_conf(*abs, "/h")->acl_file, "/srv/acl.yml");

  auto half = parse_broker_conf(props("accessKey=ferryAdmin\n"), "/h");
  ASSERT_FALSE(half.ok());
  EXPECT_NE(half.error().detail.find("accessKey and secretKey go together"), std::string::npos);
  auto bad_address = parse_broker_conf(props("listenAddress=localhost\n"), "/h");
  ASSERT_FALSE(bad_address.ok());
  EXPECT_NE(bad_address.error().detail.find("listenAddress"), std::string::npos);

  auto n = parse_namesrv_conf(props("listenAddress=127.0.0.1\naclEnable=true\naclFilePath=ns_acl.yml\n"), "/h");
  ASSERT_TRUE(n.ok()) << n.error().to_string();
  EXPECT_EQ(n->namesrv.listen_host, "127.0.0.1");
  EXPECT_TRUE(n->namesrv.acl_enable);
  EXPECT_EQ(n->namesrv.acl_file_path, "ns_acl.yml");
  EXPECT_EQ(parse_namesrv_conf(props(""), "/h")->namesrv.listen_host, "0.0.0.0");
}

// Every example in conf/ parses without errors or warnings.
TEST(ConfExamples, AllParse) {
  const char* src = std::getenv("FERRY_SOURCE_DIR");
  ASSERT_NE(src, nullptr) << "FERRY_SOURCE_DIR is set by ctest";
  int brokers = 0;
  for (const auto& entry : std::filesystem::directory_iterator(std::string(src) + "/conf")) {
    const std::string path = entry.path().string();
    if (entry.is_directory()) continue;  // conf/controller: ControllerConfExamples
    if (entry.path().extension() == ".yml") {  // plain_acl.yml: the ACL accounts example
      const std::string text = read_file_text(path);
      auto acl = remoting::acl::parse_acl_yaml(text, path);
      ASSERT_TRUE(acl.ok()) << acl.error().to_string();
      EXPECT_EQ(acl->accounts.size(), 2u);
      continue;
    }
    auto file = read_properties(path);
    ASSERT_TRUE(file.ok()) << file.error().to_string();
    if (entry.path().filename() == "namesrv.conf") {
      auto c = parse_namesrv_conf(*file, "/h");
      ASSERT_TRUE(c.ok()) << c.error().to_string();
      EXPECT_TRUE(c->warnings.empty()) << c->warnings.front();
      continue;
    }
    ++brokers;
    auto c = parse_broker_conf(*file, "/h");
    ASSERT_TRUE(c.ok()) << c.error().to_string();
    EXPECT_TRUE(c->warnings.empty()) << path << ": " << c->warnings.front();
  }
  EXPECT_GE(brokers, 7);
}

// conf/controller: three NameServers with embedded controllers, and a standalone controller.
TEST(ControllerConfExamples, AllParseAndNameOneQuorum) {
  const char* src = std::getenv("FERRY_SOURCE_DIR");
  ASSERT_NE(src, nullptr) << "FERRY_SOURCE_DIR is set by ctest";
  std::set<std::string> selves;
  for (int i = 0; i < 3; ++i) {
    const std::string path = std::string(src) + "/conf/controller/namesrv-n" + std::to_string(i) + ".conf";
    auto file = read_properties(path);
    ASSERT_TRUE(file.ok()) << file.error().to_string();
    auto c = parse_namesrv_conf(*file, "/h");
    ASSERT_TRUE(c.ok()) << c.error().to_string();
    EXPECT_TRUE(c->warnings.empty()) << path << ": " << c->warnings.front();
    EXPECT_TRUE(c->controller_enabled);
    EXPECT_EQ(c->controller.peers.size(), 3u);
    EXPECT_NE(c->controller.self_peer()->address,
              "127.0.0.1:" + std::to_string(c->namesrv.listen_port)) << "the controller has its own port";
    selves.insert(c->controller.self);
  }
  EXPECT_EQ(selves.size(), 3u);
  auto file = read_properties(std::string(src) + "/conf/controller/controller-n0.conf");
  ASSERT_TRUE(file.ok());
  auto c = parse_controller_conf(*file, "/h");
  ASSERT_TRUE(c.ok()) << c.error().to_string();
  EXPECT_TRUE(c->warnings.empty()) << c->warnings.front();
  EXPECT_EQ(c->controller.raft_options().id, 1u);
  EXPECT_EQ(c->controller.raft_options().dir, "controller/raft");
  // One broker group of three in controller mode, pointed at those controllers and NameServers.
  std::set<int> ports;
  for (int i = 0; i < 3; ++i) {
    const std::string path = std::string(src) + "/conf/controller/broker-n" + std::to_string(i) + ".conf";
    auto bf = read_properties(path);
    ASSERT_TRUE(bf.ok()) << bf.error().to_string();
    auto b = parse_broker_conf(*bf, "/h");
    ASSERT_TRUE(b.ok()) << b.error().to_string();
    EXPECT_TRUE(b->warnings.empty()) << path << ": " << b->warnings.front();
    EXPECT_TRUE(b->broker.enable_controller_mode);
    EXPECT_TRUE(b->broker.ha.all_ack_in_sync_state_set);
    EXPECT_EQ(b->broker.broker_name, "broker-a");
    EXPECT_EQ(b->broker.controller_addr,
              (std::vector<std::string>{"127.0.0.1:9878", "127.0.0.1:9888", "127.0.0.1:9898"}));
    EXPECT_EQ(b->broker.namesrv_addr.size(), 3u);
    ports.insert(b->broker.listen_port);
  }
  EXPECT_EQ(ports.size(), 3u);
}

TEST(BrokerConf, ControllerModeKeys) {
  auto c = parse_broker_conf(props("enableControllerMode=true\ncontrollerAddr=127.0.0.1:9878;127.0.0.1:9888\n"
                                   "brokerId=-1\nbrokerRole=SLAVE\nallAckInSyncStateSet=true\ninSyncReplicas=2\n"
                                   "haMaxTimeSlaveNotCatchup=20000\nbrokerElectionPriority=3\n"
                                   "controllerHeartBeatTimeoutMills=6000\nbrokerHeartbeatInterval=500\n"
                                   "syncFromLastFile=true\n"),
                             "/h");
  ASSERT_TRUE(c.ok()) << c.error().to_string();
  EXPECT_TRUE(c->broker.enable_controller_mode);
  EXPECT_EQ(c->broker.controller_addr.size(), 2u);
  EXPECT_TRUE(c->broker.ha.all_ack_in_sync_state_set);
  EXPECT_EQ(c->broker.ha.in_sync_replicas, 2);
  EXPECT_EQ(c->broker.ha.max_time_slave_not_catchup, std::chrono::seconds(20));
  EXPECT_EQ(c->broker.broker_election_priority, 3);
  EXPECT_EQ(c->broker.controller_heartbeat_timeout, std::chrono::seconds(6));
  EXPECT_EQ(c->broker.broker_heartbeat_interval, std::chrono::milliseconds(500));
  EXPECT_TRUE(c->broker.ha.sync_from_last_file);
  // Controller mode without controllers, and a heartbeat slower than its timeout, name the key.
  auto bad = parse_broker_conf(props("enableControllerMode=true\n"), "/h");
  ASSERT_FALSE(bad.ok());
  EXPECT_NE(bad.error().detail.find("controllerAddr"), std::string::npos) << bad.error().detail;
  bad = parse_broker_conf(props("enableControllerMode=true\ncontrollerAddr=127.0.0.1:9878\n"
                                "brokerHeartbeatInterval=10000\ncontrollerHeartBeatTimeoutMills=5000\n"),
                          "/h");
  ASSERT_FALSE(bad.ok());
  EXPECT_NE(bad.error().detail.find("brokerHeartbeatInterval"), std::string::npos) << bad.error().detail;
  // Outside controller mode brokerId -1 is still refused for a master.
  EXPECT_FALSE(parse_broker_conf(props("brokerId=-1\n"), "/h").ok());
}

TEST(ControllerConf, KeysDefaultsAndErrors) {
  auto parse = [](std::string_view text) {
    auto p = parse_properties(text, "c.conf");
    EXPECT_TRUE(p.ok());
    return parse_controller_conf(*p, "/h");
  };
  auto c = parse("controllerDLegerPeers=n0-127.0.0.1:9878;n1-127.0.0.1:9888\ncontrollerDLegerSelfId=n1\n"
                 "scanNotActiveBrokerInterval=2000\nenableElectUncleanMaster=true\ncontrollerType=DLedger\n");
  ASSERT_TRUE(c.ok()) << c.error().to_string();
  EXPECT_EQ(c->data_dir, "/h/controller");
  EXPECT_EQ(c->controller.id_of("n1"), 2u);
  EXPECT_EQ(c->controller.scan_not_active_broker_interval, std::chrono::seconds(2));
  EXPECT_TRUE(c->controller.enable_elect_unclean_master);
  ASSERT_EQ(c->warnings.size(), 1u);
  EXPECT_NE(c->warnings[0].find("controllerType"), std::string::npos) << c->warnings[0];
  EXPECT_EQ(parse("controllerDLegerPeers=n0-127.0.0.1:9878\ncontrollerDLegerSelfId=n5\n").error().detail,
            "c.conf: controllerDLegerSelfId 'n5' is not among controllerDLegerPeers");
  EXPECT_EQ(parse("controllerDLegerPeers=n0:127.0.0.1:9878\ncontrollerDLegerSelfId=n0\n").error().detail,
            "c.conf: controllerDLegerPeers: controller peer 'n0:127.0.0.1:9878' is not <id>-<ip>:<port> (e.g. n0-127.0.0.1:9878)");
  EXPECT_EQ(parse("controllerDLegerPeers=n0-127.0.0.1:9878;n0-127.0.0.1:9888\ncontrollerDLegerSelfId=n0\n").error().detail,
            "c.conf: controllerDLegerPeers names n0 twice");
  EXPECT_FALSE(parse("controllerDLegerSelfId=n0\n").ok()) << "no peers";
  EXPECT_EQ(parse("scanNotActiveBrokerInterval=1\n").error().detail,
            "c.conf:1: scanNotActiveBrokerInterval: 1 is out of range [100, 3600000]");
}

}  // namespace
}  // namespace ferry::daemon
