// The requests tests and tools send, built in one place: what a producer, a consumer, an admin
// tool and a broker (to its NameServer) put on the wire, with remoting's typed headers
// (JSON-serialized extFields, as RocketMQ's Java client sends them) and bodies. Used over a
// simulated RpcClient (tests/broker, tests/namesrv, tests/sim), a real one (tests/daemons) and raw
// frames (WireConn: tests/daemons, `mqbench hostile`).
//
// Every builder returns a request with opaque 0 (the sender gives it its own) and never fails:
// properties that cannot be encoded (an empty key, a separator inside a key) are a bug in the
// test, and abort naming the key.
//
// The specs (Msg, Pull, BrokerSpec) default to what most tests want: topic "T", producer group
// "PG", consumer group "CG", queue 0, broker "broker-a" of "DefaultCluster", and a fixed born
// timestamp, so that a simulated run sends the same bytes every time. Numbers are plain integers
// as tests write them; the typed headers inside carry them as QueueId / QueueOffset /
// PhysicalOffset.
//
// A request no client would send (a missing field, a forged value): build the typed one and edit
// its header or fields, or use plain_request() with hand-written fields.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "common/properties.h"
#include "remoting/body/heartbeat_data.h"
#include "remoting/body/register_broker_body.h"
#include "remoting/body/topic_config.h"
#include "remoting/ext_fields.h"
#include "remoting/header/send_message_header.h"
#include "remoting/header/topic_admin_header.h"
#include "remoting/remoting_command.h"
#include "remoting/request_code.h"

namespace ferry::testing {

// 2026-01-01T00:00:00Z in ms: the born timestamp of a test message unless it says otherwise.
inline constexpr std::int64_t kTestBornTimestampMs = 1'767'225'600'000;

// ---- producer -------------------------------------------------------------------------------

// A message to send (SEND_MESSAGE, SEND_MESSAGE_V2, or one entry of SEND_BATCH_MESSAGE). New
// fields go last: tests name the first ones in designated initializers (Msg{.topic = "A"}).
struct Msg {
  std::string topic = "T";
  std::string body = "hello";
  Properties props;
  std::int32_t queue_id = 0;
  std::int32_t flag = 0;
  std::int32_t sys_flag = 0;  // the header's sysFlag (common/sys_flag.h)
  std::string producer_group = "PG";
  std::int32_t default_topic_queue_nums = 4;  // of a topic the broker creates on first send
  std::int64_t born_timestamp_ms = kTestBornTimestampMs;
  // Sent as the properties field as it is, instead of `props` encoded: text no client would
  // write (a megabyte of keys, a forged separator).
  std::optional<std::string> properties_text;

  Msg& tag(std::string_view t) { return set("TAGS", t); }
  Msg& keys(std::string_view k) { return set("KEYS", k); }
  // Owned strings, not views: with views GCC 12 reports a false -Wrestrict in
  // basic_string::assign inlined here (broker_hostile_input_test, Release).
  Msg& set(std::string_view k, std::string_view v) {
    props.set(std::string(k), std::string(v));
    return *this;
  }
};

// The send header of `m`: defaultTopic TBW102, its sysFlag, the properties always present (empty
// text for none, as the Java client writes them).
remoting::SendMessageRequestHeader send_header(const Msg& m);
// SEND_MESSAGE (V1 field names) or SEND_MESSAGE_V2 (one-letter names) of `m`, its body `m.body`.
// Another `request_code` is a bug (asserted).
remoting::RemotingCommand send_request(const Msg& m,
                                       std::int32_t request_code = remoting::request_code::SEND_MESSAGE_V2);
// The SEND_BATCH_MESSAGE body as a client writes it: each message's record (size, magic 0, CRC 0,
// flag, body, properties), one after the other.
std::vector<std::uint8_t> encode_batch(const std::vector<Msg>& msgs);
// SEND_BATCH_MESSAGE of `msgs` (at least one, asserted): the first message's topic, queue and
// group, V2 names, batch=true, its own properties field empty.
remoting::RemotingCommand batch_request(const std::vector<Msg>& msgs);

// ---- consumer -------------------------------------------------------------------------------

// A pull to send.
struct Pull {
  std::string group = "CG";
  std::string topic = "T";
  std::int32_t queue_id = 0;
  std::int64_t offset = 0;
  std::int32_t max = 32;
  std::optional<std::string> subscription = "*";  // an expression; nullopt: no subscription flag
  std::string expression_type = "TAG";            // or "SQL92"
  bool suspend = false;                           // the suspend flag: a long poll
  std::int64_t suspend_ms = 15'000;
  std::optional<std::int64_t> commit_offset;  // sets the commitOffset flag
};

// PULL_MESSAGE of `p` (subVersion 0).
remoting::RemotingCommand pull_request(const Pull& p);
// UPDATE_CONSUMER_OFFSET: `group` committed `offset` of `topic`'s queue `queue_id`.
remoting::RemotingCommand update_offset_request(const std::string& group, const std::string& topic,
                                                std::int32_t queue_id, std::int64_t offset);
// QUERY_CONSUMER_OFFSET of `group` for `topic`'s queue `queue_id`.
remoting::RemotingCommand query_offset_request(const std::string& group, const std::string& topic,
                                               std::int32_t queue_id);
// GET_MAX_OFFSET of `topic`'s queue `queue_id`.
remoting::RemotingCommand max_offset_request(const std::string& topic, std::int32_t queue_id);
// VIEW_MESSAGE_BY_ID at CommitLog offset `commit_log_offset` (any value: the broker is the judge).
remoting::RemotingCommand view_request(std::int64_t commit_log_offset);
// GET_CONSUMER_LIST_BY_GROUP of `group`.
remoting::RemotingCommand consumer_list_request(const std::string& group);

// A consumer's heartbeat: client `client_id` in `group`, subscribed to `topic` with `sub`.
remoting::body::HeartbeatData consumer_heartbeat(const std::string& client_id, const std::string& group,
                                                 const std::string& topic, const std::string& sub = "*",
                                                 std::int64_t sub_version = 100);
// HEART_BEAT carrying `hb`.
remoting::RemotingCommand heartbeat_request(const remoting::body::HeartbeatData& hb);
// CONSUMER_SEND_MSG_BACK of the message at CommitLog offset `offset`.
remoting::RemotingCommand send_back_request(std::int64_t offset, const std::string& group, std::int32_t delay_level,
                                            std::optional<std::int32_t> max_reconsume = std::nullopt);
// LOCK_BATCH_MQ or UNLOCK_BATCH_MQ (`code`) of `queues` of `topic` on broker-a.
remoting::RemotingCommand lock_request(std::int32_t code, const std::string& group, const std::string& client_id,
                                       const std::vector<std::int32_t>& queues, const std::string& topic = "T");

// ---- admin ----------------------------------------------------------------------------------

// The UPDATE_AND_CREATE_TOPIC header of `topic`: `queues` read and write queues, perm rw-,
// SINGLE_TAG, template TBW102 (no topicSysFlag; order false).
remoting::CreateTopicRequestHeader topic_header(const std::string& topic, std::int32_t queues);
// UPDATE_AND_CREATE_TOPIC with header `h`.
remoting::RemotingCommand create_topic_request(const remoting::CreateTopicRequestHeader& h);

// ---- broker to NameServer -------------------------------------------------------------------

// A broker as it registers.
struct BrokerSpec {
  std::string cluster = "DefaultCluster";
  std::string name = "broker-a";
  std::string addr;     // "ip:port"
  std::int64_t id = 0;  // 0: the master
  std::string ha_addr;
  std::vector<remoting::body::TopicConfig> topics;
  remoting::body::DataVersion version{1, kTestBornTimestampMs};
  std::vector<std::string> filter_servers;
};

// REGISTER_BROKER of `b`: its topics and filter servers in the body, the body's CRC in the header
// (deliberately wrong unless `correct_crc`).
remoting::RemotingCommand register_request(const BrokerSpec& b, bool correct_crc = true);
// UNREGISTER_BROKER of `b`.
remoting::RemotingCommand unregister_request(const BrokerSpec& b);
// GET_ROUTEINFO_BY_TOPIC of `topic`.
remoting::RemotingCommand route_request(const std::string& topic);

// ---- any ------------------------------------------------------------------------------------

// Request `code` with exactly `fields` (none by default) and no body.
remoting::RemotingCommand plain_request(std::int32_t code, remoting::ExtFields fields = {});

}  // namespace ferry::testing
