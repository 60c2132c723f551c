#include "tests/sim/fuzz/request_generator.h"

#include <fmt/format.h>

#include <algorithm>
#include <limits>
#include <utility>

#include "remoting/body/heartbeat_data.h"
#include "remoting/body/lock_batch_body.h"
#include "remoting/frame_codec.h"
#include "remoting/request_code.h"

namespace ferry::sim::fuzz {

namespace rc = remoting::request_code;
using remoting::ExtFields;
using remoting::RemotingCommand;

namespace {

constexpr std::size_t kLongTextMax = 70'000;  // past the 32,767-byte properties bound
constexpr std::size_t kRandomKeysMax = 40;
constexpr std::size_t kLearnedRecordsMax = 256;

std::vector<std::uint8_t> bytes_of(std::string_view s) { return {s.begin(), s.end()}; }

void put32(std::vector<std::uint8_t>& out, std::int32_t v) {
  for (int s = 24; s >= 0; s -= 8) out.push_back(static_cast<std::uint8_t>((static_cast<std::uint32_t>(v) >> s) & 0xff));
}

// A SEND_BATCH_MESSAGE body of `n` messages as a client writes it (magic 0, CRC 0).
std::vector<std::uint8_t> batch_body(int n, std::string_view body, std::string_view props) {
  std::vector<std::uint8_t> out;
  for (int i = 0; i < n; ++i) {
    put32(out, static_cast<std::int32_t>(20 + body.size() + 2 + props.size()));
    put32(out, 0);
    put32(out, 0);
    put32(out, 0);
    put32(out, static_cast<std::int32_t>(body.size()));
    out.insert(out.end(), body.begin(), body.end());
    out.push_back(static_cast<std::uint8_t>(props.size() >> 8));
    out.push_back(static_cast<std::uint8_t>(props.size() & 0xff));
    out.insert(out.end(), props.begin(), props.end());
  }
  return out;
}

}  // namespace

RequestGenerator::RequestGenerator(Random rng, FuzzTargets targets) : rng_(rng), targets_(std::move(targets)) {
  if (targets_.topics.empty()) targets_.topics.push_back("FuzzTopic");
  if (targets_.groups.empty()) targets_.groups.push_back("FuzzGroup");
}

const std::vector<std::int32_t>& RequestGenerator::known_codes() {
  static const std::vector<std::int32_t> codes = {
      rc::SEND_MESSAGE, rc::PULL_MESSAGE, rc::QUERY_MESSAGE, rc::QUERY_CONSUMER_OFFSET, rc::UPDATE_CONSUMER_OFFSET,
      rc::UPDATE_AND_CREATE_TOPIC, rc::SEARCH_OFFSET_BY_TIMESTAMP, rc::GET_MAX_OFFSET, rc::GET_MIN_OFFSET,
      rc::GET_EARLIEST_MSG_STORETIME, rc::VIEW_MESSAGE_BY_ID, rc::HEART_BEAT, rc::UNREGISTER_CLIENT,
      rc::CONSUMER_SEND_MSG_BACK, rc::GET_CONSUMER_LIST_BY_GROUP, rc::NOTIFY_CONSUMER_IDS_CHANGED, rc::LOCK_BATCH_MQ,
      rc::UNLOCK_BATCH_MQ, rc::PUT_KV_CONFIG, rc::GET_KV_CONFIG, rc::DELETE_KV_CONFIG, rc::REGISTER_BROKER,
      rc::UNREGISTER_BROKER, rc::GET_ROUTEINFO_BY_TOPIC, rc::GET_BROKER_CLUSTER_INFO,
      rc::GET_ALL_TOPIC_LIST_FROM_NAMESERVER, rc::GET_ALL_TOPIC_CONFIG, rc::GET_BROKER_RUNTIME_INFO,
      rc::GET_ALL_CONSUMER_OFFSET, rc::GET_ALL_DELAY_OFFSET, rc::UPDATE_AND_CREATE_SUBSCRIPTIONGROUP,
      rc::GET_ALL_SUBSCRIPTIONGROUP_CONFIG, rc::GET_TOPIC_STATS_INFO, rc::GET_CONSUMER_CONNECTION_LIST,
      rc::DELETE_SUBSCRIPTIONGROUP, rc::GET_CONSUME_STATS, rc::DELETE_TOPIC_IN_BROKER, rc::DELETE_TOPIC_IN_NAMESRV,
      rc::GET_KVLIST_BY_NAMESPACE, rc::INVOKE_BROKER_TO_RESET_OFFSET, rc::GET_TOPICS_BY_CLUSTER,
      rc::QUERY_TOPIC_CONSUME_BY_WHO, rc::QUERY_DATA_VERSION, rc::SEND_MESSAGE_V2, rc::SEND_BATCH_MESSAGE,
      rc::GET_BROKER_HA_STATUS, rc::FERRY_PROMOTE_SLAVE, rc::POP_MESSAGE, rc::ACK_MESSAGE,
      rc::CHANGE_MESSAGE_INVISIBLETIME, rc::BATCH_ACK_MESSAGE};
  return codes;
}

void RequestGenerator::learn_record(std::int64_t commit_log_offset) {
  std::vector<std::int64_t>& at = targets_.commit_log_offsets;
  latest_ = commit_log_offset;
  if (at.size() < kLearnedRecordsMax) {
    at.push_back(commit_log_offset);
  } else {
    at[rng_.below(at.size())] = commit_log_offset;
  }
}

std::string RequestGenerator::pick(const std::vector<std::string>& from) { return from[rng_.below(from.size())]; }

std::string RequestGenerator::number_text() {
  static const std::vector<std::string> edges = {
      "0", "-1", "1", "2147483647", "2147483648", "-2147483648", "-2147483649", "9223372036854775807",
      "9223372036854775808", "-9223372036854775808", "-9223372036854775809", "99999999999999999999999999",
      "4294967296", "65535", "32768", "-32769", "1e9", "0x10", " 1", "1 ", "+1", "-0", "007", "1.5", "", "-"};
  // In range often (the request gets past the header parser and into the processor's logic).
  static const std::vector<std::int64_t> in_range = {0, -1, -2, -100, 1, 2, 3, 17, 18, 19, 255, 256, 32767, 65535,
                                                     std::numeric_limits<std::int32_t>::max(),
                                                     std::numeric_limits<std::int32_t>::max() - 1,
                                                     std::numeric_limits<std::int32_t>::min(),
                                                     std::numeric_limits<std::int64_t>::max(),
                                                     std::numeric_limits<std::int64_t>::min()};
  switch (rng_.below(4)) {
    case 0: return std::to_string(in_range[rng_.below(in_range.size())]);
    case 1: return std::to_string(rng_.between(-8, 70'000));
    case 2: return rng_.one_in(2) ? std::to_string(static_cast<std::int64_t>(rng_.next_u64()))
                                  : std::to_string(static_cast<std::int32_t>(rng_.next_u64()));
    default: return edges[rng_.below(edges.size())];
  }
}

std::string RequestGenerator::hostile_text() {
  static const std::vector<std::string> words = {
      "", "abc", "true", "false", "null", "NaN", "*", "||", "TagA || TagB", "%RETRY%", "%RETRY%FuzzGroup",
      "%DLQ%FuzzGroup", "SCHEDULE_TOPIC_XXXX", "TBW102", "RMQ_SYS_TRACE_TOPIC", "DefaultCluster", "a b",
      "a/b", "../x", "{}", "[]", "\"", "\\", "\x01\x02", "k\x01v\x02", "\x01", "\x02\x02\x02",
      std::string("nul\0inside", 10), "\xff\xfe\x80\xc0", "\xed\xa0\x80", "caf\xc3\xa9", "SYNC_MASTER", "SLAVE",
      "SQL92", "TAG", "a = 1", "127.0.0.1:10911", "255.255.255.255:99999", ":", "0A000001000027A5000000000000000"};
  switch (rng_.below(5)) {
    case 0: return number_text();
    case 1: {  // very long: repeated or random bytes
      const std::size_t n = static_cast<std::size_t>(rng_.between(127, static_cast<std::int64_t>(kLongTextMax)));
      if (rng_.one_in(2)) return std::string(n, static_cast<char>('a' + rng_.below(26)));
      std::vector<std::uint8_t> b = random_bytes(n);
      return std::string(b.begin(), b.end());
    }
    case 2: {
      std::vector<std::uint8_t> b = random_bytes(static_cast<std::size_t>(rng_.between(1, 24)));
      return std::string(b.begin(), b.end());
    }
    default: return words[rng_.below(words.size())];
  }
}

std::vector<std::uint8_t> RequestGenerator::random_bytes(std::size_t n) {
  std::vector<std::uint8_t> out(n);
  for (std::size_t i = 0; i < n; i += 8) {
    std::uint64_t v = rng_.next_u64();
    for (std::size_t j = i; j < std::min(n, i + 8); ++j, v >>= 8) out[j] = static_cast<std::uint8_t>(v);
  }
  return out;
}

RemotingCommand RequestGenerator::valid(std::int32_t code, std::int32_t opaque) {
  RemotingCommand c = remoting::make_request(code, opaque);
  ExtFields& f = c.ext_fields;
  const std::string topic = pick(targets_.topics);
  const std::string group = pick(targets_.groups);
  const std::string queue = std::to_string(rng_.below(4));
  const std::string props = hostile_ ? properties() : "KEYS\x01key-" + std::to_string(rng_.below(100)) + "\x02TAGS\x01TagA\x02";
  const std::string client_id = "127.0.0.9@fuzz-" + std::to_string(rng_.below(4));
  const std::string offset = std::to_string(rng_.below(64));
  // Mostly a plain message; sometimes compressed (whatever the body), transactional, IPv6 hosts,
  // an inner batch or a compression type: the bits of common/sys_flag.h.
  const std::string sys_flag = hostile_ && rng_.one_in(3) ? std::to_string(rng_.below(1 << 11)) : "0";
  auto send_v1 = [&] {
    f = {{"producerGroup", "FuzzProducer"}, {"topic", topic}, {"defaultTopic", "TBW102"}, {"defaultTopicQueueNums", "4"},
         {"queueId", queue}, {"sysFlag", sys_flag}, {"bornTimestamp", "1767225600000"}, {"flag", "0"},
         {"properties", props}, {"reconsumeTimes", "0"}, {"unitMode", "false"}};
  };
  auto send_v2 = [&] {
    f = {{"a", "FuzzProducer"}, {"b", topic}, {"c", "TBW102"}, {"d", "4"}, {"e", queue}, {"f", sys_flag},
         {"g", "1767225600000"}, {"h", "0"}, {"i", props}, {"j", "0"}, {"k", "false"}};
  };
  switch (code) {
    case rc::SEND_MESSAGE: send_v1(); c.body = bytes_of("fuzz body"); break;
    case rc::SEND_MESSAGE_V2: send_v2(); c.body = bytes_of("fuzz body"); break;
    case rc::SEND_BATCH_MESSAGE:
      send_v2();
      f.set("i", "");
      f.set("m", "true");
      c.body = batch_body(static_cast<int>(rng_.between(1, 4)), "fuzz batch", props);
      break;
    case rc::PULL_MESSAGE:
      f = {{"consumerGroup", group}, {"topic", topic}, {"queueId", queue}, {"queueOffset", offset},
           {"maxMsgNums", "32"}, {"sysFlag", std::to_string(rng_.below(16))}, {"commitOffset", offset},
           {"suspendTimeoutMillis", std::to_string(rng_.between(0, 20'000))}, {"subscription", "*"},
           {"subVersion", "0"}, {"expressionType", "TAG"}};
      break;
    case rc::POP_MESSAGE:
      f = {{"consumerGroup", group}, {"topic", topic}, {"queueId", std::to_string(static_cast<std::int64_t>(rng_.below(6)) - 1)},
           {"maxMsgNums", std::to_string(rng_.between(1, 33))}, {"invisibleTime", std::to_string(rng_.between(0, 120'000))},
           {"pollTime", std::to_string(rng_.between(0, 20'000))}, {"bornTime", "0"}, {"initMode", std::to_string(rng_.below(2))},
           {"expType", "TAG"}, {"exp", "*"}, {"order", rng_.one_in(3) ? "true" : "false"}};
      break;
    case rc::ACK_MESSAGE:
    case rc::CHANGE_MESSAGE_INVISIBLETIME: {
      // A handle as a POP would have made it (ckOffset popTime invisibleTime reviveQid retry
      // brokerName queueId queueOffset), or a hostile one.
      const std::string handle = hostile_ && rng_.one_in(2)
                                     ? hostile_text()
                                     : offset + " 1767225600000 60000 " + std::to_string(rng_.below(9)) + " " +
                                           std::to_string(rng_.below(3)) + " broker-a " + queue + " " + offset;
      f = {{"consumerGroup", group}, {"topic", topic}, {"queueId", queue}, {"extraInfo", handle}, {"offset", offset}};
      if (code == rc::CHANGE_MESSAGE_INVISIBLETIME) f.set("invisibleTime", std::to_string(rng_.between(0, 120'000)));
      break;
    }
    case rc::BATCH_ACK_MESSAGE:
      c.body = bytes_of(R"({"brokerName":"broker-a","acks":[{"c":")" + group + R"(","t":")" + topic + R"(","r":"0","so":)" +
                        offset + R"(,"q":)" + queue + R"(,"rq":0,"pt":1767225600000,"it":60000,"b":"Kg=="}]})");
      break;
    case rc::QUERY_MESSAGE:
      f = {{"topic", topic}, {"key", "key-" + std::to_string(rng_.below(100))}, {"maxNum", "32"},
           {"beginTimestamp", "0"}, {"endTimestamp", "9223372036854775807"}};
      break;
    case rc::VIEW_MESSAGE_BY_ID: {
      std::int64_t at = static_cast<std::int64_t>(rng_.below(4096));
      if (!targets_.commit_log_offsets.empty() && !rng_.one_in(4)) {
        at = targets_.commit_log_offsets[rng_.below(targets_.commit_log_offsets.size())];
      }
      f = {{"offset", std::to_string(at)}};
      break;
    }
    case rc::QUERY_CONSUMER_OFFSET: f = {{"consumerGroup", group}, {"topic", topic}, {"queueId", queue}}; break;
    case rc::UPDATE_CONSUMER_OFFSET:
      f = {{"consumerGroup", group}, {"topic", topic}, {"queueId", queue}, {"commitOffset", offset}};
      break;
    case rc::GET_MAX_OFFSET:
    case rc::GET_MIN_OFFSET:
    case rc::GET_EARLIEST_MSG_STORETIME: f = {{"topic", topic}, {"queueId", queue}}; break;
    case rc::SEARCH_OFFSET_BY_TIMESTAMP:
      f = {{"topic", topic}, {"queueId", queue}, {"timestamp", std::to_string(rng_.between(0, 1'800'000'000'000))}};
      break;
    case rc::UPDATE_AND_CREATE_TOPIC:
      f = {{"topic", topic}, {"defaultTopic", "TBW102"}, {"readQueueNums", "4"}, {"writeQueueNums", "4"},
           {"perm", "6"}, {"topicFilterType", "SINGLE_TAG"}, {"topicSysFlag", "0"}, {"order", "false"}};
      break;
    case rc::DELETE_TOPIC_IN_BROKER:
    case rc::DELETE_TOPIC_IN_NAMESRV:
    case rc::GET_TOPIC_STATS_INFO:
    case rc::QUERY_TOPIC_CONSUME_BY_WHO:
    case rc::GET_ROUTEINFO_BY_TOPIC: f = {{"topic", topic}}; break;
    case rc::HEART_BEAT: {
      remoting::body::HeartbeatData hb;
      hb.client_id = client_id;
      hb.producer_data_set.push_back({"FuzzProducer"});
      remoting::body::ConsumerData cd;
      cd.group_name = group;
      cd.subscription_data_set.push_back(remoting::body::SubscriptionData{.topic = topic, .sub_string = "*"});
      hb.consumer_data_set.push_back(std::move(cd));
      c.body = hb.encode();
      break;
    }
    case rc::UNREGISTER_CLIENT:
      f = {{"clientID", client_id}, {"producerGroup", "FuzzProducer"}, {"consumerGroup", group}};
      break;
    case rc::CONSUMER_SEND_MSG_BACK: {
      const std::vector<std::int64_t>& at = targets_.commit_log_offsets;
      // Often the record stored last: a consumer sends back what it just received.
      const std::int64_t offset_of_record = at.empty()           ? 0
                                            : latest_ && rng_.one_in(2) ? *latest_
                                                                        : at[rng_.below(at.size())];
      const std::int64_t level = rng_.one_in(3) ? 0 : rng_.between(-1, 20);
      f = {{"offset", std::to_string(offset_of_record)}, {"group", group}, {"delayLevel", std::to_string(level)},
           {"originMsgId", "0A000001000027A50000000000000000"}, {"originTopic", topic}, {"unitMode", "false"},
           {"maxReconsumeTimes", "16"}};
      break;
    }
    case rc::GET_CONSUMER_LIST_BY_GROUP:
    case rc::NOTIFY_CONSUMER_IDS_CHANGED:
    case rc::GET_CONSUMER_CONNECTION_LIST: f = {{"consumerGroup", group}}; break;
    case rc::GET_CONSUME_STATS: f = {{"consumerGroup", group}, {"topic", topic}}; break;
    case rc::LOCK_BATCH_MQ:
    case rc::UNLOCK_BATCH_MQ: {
      remoting::body::LockBatchRequestBody b;
      b.consumer_group = group;
      b.client_id = client_id;
      b.mq_set.push_back(MessageQueue{topic, targets_.broker_name, QueueId(static_cast<std::int32_t>(rng_.below(4)))});
      c.body = b.encode();
      break;
    }
    case rc::UPDATE_AND_CREATE_SUBSCRIPTIONGROUP:
      c.body = bytes_of(fmt::format(
          R"({{"groupName":"{}","consumeEnable":true,"consumeFromMinEnable":true,"consumeBroadcastEnable":true,)"
          R"("retryQueueNums":1,"retryMaxTimes":16,"brokerId":0,"whichBrokerWhenConsumeSlowly":1,)"
          R"("notifyConsumerIdsChangedEnable":true}})",
          group));
      break;
    case rc::DELETE_SUBSCRIPTIONGROUP: f = {{"groupName", group}}; break;
    case rc::INVOKE_BROKER_TO_RESET_OFFSET:
      f = {{"topic", topic}, {"group", group}, {"timestamp", "0"}, {"isForce", "false"}};
      break;
    case rc::PUT_KV_CONFIG: f = {{"namespace", "ns"}, {"key", "k"}, {"value", "v"}}; break;
    case rc::GET_KV_CONFIG:
    case rc::DELETE_KV_CONFIG: f = {{"namespace", "ns"}, {"key", "k"}}; break;
    case rc::GET_KVLIST_BY_NAMESPACE: f = {{"namespace", "ns"}}; break;
    case rc::REGISTER_BROKER:
    case rc::UNREGISTER_BROKER:
      f = {{"brokerName", targets_.broker_name}, {"brokerAddr", "127.0.0.9:10911"},
           {"clusterName", targets_.cluster_name}, {"haServerAddr", "127.0.0.9:10912"}, {"brokerId", "0"},
           {"compressed", "false"}, {"bodyCrc32", "0"}};
      break;
    case rc::GET_TOPICS_BY_CLUSTER: f = {{"cluster", targets_.cluster_name}}; break;
    case rc::FERRY_PROMOTE_SLAVE: f = {{"brokerRole", rng_.one_in(2) ? "SYNC_MASTER" : "ASYNC_MASTER"}}; break;
    default: break;  // codes without fields: the whole tables, runtime info, HA status
  }
  return c;
}

std::string RequestGenerator::properties() {
  static const std::vector<std::string> special = {
      "DELAY", "WAIT", "RETRY_TOPIC", "REAL_TOPIC", "REAL_QID", "TRAN_MSG", "PGROUP", "MIN_OFFSET", "MAX_OFFSET",
      "ORIGIN_MESSAGE_ID", "RECONSUME_TIME", "MAX_RECONSUME_TIMES", "UNIQ_KEY", "INNER_NUM", "INNER_BASE",
      "CLUSTER", "__transactionId__", "TRAN_PREPARED_QUEUE_OFFSET", "CHECK_IMMUNITY_TIME_IN_SECONDS",
      "__STARTDELIVERTIME", "TIMER_DELAY_SEC", "TTL", "__SHARDINGKEY", "MSG_TYPE"};
  std::string out = "KEYS\x01key-" + std::to_string(rng_.below(100)) + "\x02TAGS\x01TagA\x02";
  if (rng_.one_in(4)) return out;
  for (std::uint64_t i = 0, n = rng_.between(1, 4); i < n; ++i) {
    const std::string& key = special[rng_.below(special.size())];
    out += key + "\x01" + (rng_.one_in(2) ? number_text() : hostile_text()) + "\x02";
  }
  if (rng_.one_in(8)) out += hostile_text();  // not "k\x01v\x02" at all
  return out;
}

void RequestGenerator::mutate_fields(ExtFields& fields) {
  const std::uint64_t rounds = rng_.between(1, 4);
  for (std::uint64_t r = 0; r < rounds; ++r) {
    std::vector<std::string> keys;
    for (const auto& [k, v] : fields) keys.push_back(k);
    switch (rng_.below(6)) {
      case 0:  // a required field goes missing
        if (!keys.empty()) fields.erase(keys[rng_.below(keys.size())]);
        break;
      case 1:
      case 2:  // a field of the wrong type or a hostile value
        if (!keys.empty()) fields.set(keys[rng_.below(keys.size())], rng_.one_in(2) ? number_text() : hostile_text());
        break;
      case 3: {  // random keys
        const std::uint64_t n = rng_.between(1, kRandomKeysMax);
        for (std::uint64_t i = 0; i < n; ++i) fields.set(rng_.one_in(4) ? hostile_text() : fmt::format("k{}", rng_.below(64)), hostile_text());
        break;
      }
      case 4: {  // two fields swap their values
        if (keys.size() < 2) break;
        const std::string a = keys[rng_.below(keys.size())], b = keys[rng_.below(keys.size())];
        const std::string va = *fields.find(a), vb = *fields.find(b);
        fields.set(a, vb);
        fields.set(b, va);
        break;
      }
      default:  // everything gone
        fields.clear();
        break;
    }
  }
}

void RequestGenerator::mutate_body(std::vector<std::uint8_t>& body) {
  switch (rng_.below(6)) {
    case 0: body.resize(body.empty() ? 0 : rng_.below(body.size())); break;  // truncated
    case 1: body = random_bytes(static_cast<std::size_t>(rng_.between(0, 512))); break;
    case 2:  // bit flips
      for (std::uint64_t i = 0, n = rng_.between(1, 8); i < n && !body.empty(); ++i) {
        body[rng_.below(body.size())] ^= static_cast<std::uint8_t>(1u << rng_.below(8));
      }
      break;
    case 3: {  // large: up to the frame limit, rarely (a simulated link carries it all)
      const std::size_t cap = targets_.frame_bytes_max > 4096 ? targets_.frame_bytes_max - 4096 : 4096;
      const std::size_t n = rng_.one_in(8) ? cap - rng_.below(std::min<std::size_t>(cap, 1 << 20))
                                           : static_cast<std::size_t>(rng_.between(4 << 10, 5 << 20));
      body.assign(std::min(n, cap), static_cast<std::uint8_t>(rng_.below(256)));
      break;
    }
    case 4: body.clear(); break;
    default: {  // a JSON-ish body with hostile content
      const std::string s = rng_.one_in(2) ? "{\"a\":" + hostile_text() + "}" : "[" + number_text() + "," + hostile_text() + "]";
      body = bytes_of(s);
      break;
    }
  }
}

RemotingCommand RequestGenerator::command(std::int32_t opaque) {
  const auto& codes = known_codes();
  std::int32_t code = 0;
  switch (rng_.below(10)) {
    case 0: code = static_cast<std::int32_t>(rng_.between(-40, 1100)); break;  // mostly unknown codes
    case 1: {
      static const std::vector<std::int32_t> odd = {0, -1, 32767, -32768, 32768, 65536, 10'001, 907,
                                                    std::numeric_limits<std::int32_t>::max(),
                                                    std::numeric_limits<std::int32_t>::min()};
      code = odd[rng_.below(odd.size())];
      break;
    }
    case 2:
    case 3:
    case 4: {  // the codes clients send most, with the most logic behind them
      static const std::vector<std::int32_t> hot = {rc::SEND_MESSAGE, rc::SEND_MESSAGE_V2, rc::SEND_BATCH_MESSAGE,
                                                    rc::PULL_MESSAGE, rc::CONSUMER_SEND_MSG_BACK};
      code = hot[rng_.below(hot.size())];
      break;
    }
    default: code = codes[rng_.below(codes.size())];
  }
  if (rng_.one_in(3)) {  // light: a valid request with one field at an edge, so that it gets far
    RemotingCommand c = valid(code, opaque);
    std::vector<std::string> keys;
    for (const auto& [k, v] : c.ext_fields) keys.push_back(k);
    if (!keys.empty()) c.ext_fields.set(keys[rng_.below(keys.size())], number_text());
    return c;
  }
  hostile_ = true;
  RemotingCommand c = valid(code, opaque);
  hostile_ = false;
  if (rng_.one_in(2)) {  // edge numbers in any field, each with 1/8
    ExtFields edged;
    for (const auto& [k, v] : c.ext_fields) edged.set(k, rng_.one_in(8) ? number_text() : v);
    c.ext_fields = std::move(edged);
  }
  if (rng_.one_in(2)) mutate_fields(c.ext_fields);
  if (rng_.one_in(3)) mutate_body(c.body);
  if (rng_.one_in(16)) c.flag = static_cast<std::int32_t>(rng_.next_u64());  // oneway, response, junk bits
  if (rng_.one_in(16)) c.version = static_cast<std::int32_t>(rng_.between(-40000, 40000));
  if (rng_.one_in(16)) c.remark = hostile_text();
  if (rng_.one_in(16)) c.language = static_cast<remoting::LanguageCode>(rng_.below(14));
  return c;
}

FrameBytes RequestGenerator::frame(const RemotingCommand& cmd, std::uint64_t damage_one_in) {
  FrameBytes out;
  RemotingCommand c = cmd;
  const bool fits16 = c.code >= std::numeric_limits<std::int16_t>::min() && c.code <= std::numeric_limits<std::int16_t>::max() &&
                      c.version >= std::numeric_limits<std::int16_t>::min() && c.version <= std::numeric_limits<std::int16_t>::max();
  bool binary_keys_fit = true;
  for (const auto& [k, v] : c.ext_fields) binary_keys_fit = binary_keys_fit && k.size() <= 32767;
  c.serialize_type = fits16 && binary_keys_fit && rng_.one_in(3) ? remoting::SerializeType::rocketmq : remoting::SerializeType::json;
  out.how = c.serialize_type == remoting::SerializeType::json ? "json" : "binary";
  Result<std::vector<std::uint8_t>> encoded = remoting::encode_frame(c, targets_.frame_bytes_max);
  if (!encoded.ok()) {  // too large to be a legal frame: send the head and a lying length instead
    c.body.resize(64);
    encoded = remoting::encode_frame(c, targets_.frame_bytes_max);
    if (!encoded.ok()) encoded = std::vector<std::uint8_t>{0, 0, 0, 4, 0, 0, 0, 0};
    out.how += "+oversize";
  }
  out.bytes = std::move(*encoded);
  if (damage_one_in != 0 && rng_.one_in(damage_one_in)) damage(out.bytes, out.how);
  return out;
}

void RequestGenerator::damage(std::vector<std::uint8_t>& b, std::string& how) {
  auto set32 = [&](std::size_t at, std::uint32_t v) {
    if (b.size() < at + 4) b.resize(at + 4);
    for (int i = 0; i < 4; ++i) b[at + i] = static_cast<std::uint8_t>(v >> (24 - 8 * i));
  };
  switch (rng_.below(7)) {
    case 0: {
      const std::uint64_t n = rng_.between(1, 8);
      for (std::uint64_t i = 0; i < n; ++i) b[rng_.below(b.size())] ^= static_cast<std::uint8_t>(1u << rng_.below(8));
      how += fmt::format("+bitflip({})", n);
      break;
    }
    case 1: {  // the connection ends mid-frame (the fuzzer closes after this)
      const std::size_t keep = rng_.below(b.size());
      how += fmt::format("+truncate({}/{})", keep, b.size());
      b.resize(keep);
      break;
    }
    case 2: {  // totalLen lies
      const std::uint32_t lie = rng_.one_in(2) ? static_cast<std::uint32_t>(rng_.next_u64())
                                               : static_cast<std::uint32_t>(b.size() - 4 + rng_.between(-16, 16));
      set32(0, lie);
      how += fmt::format("+totallen({})", static_cast<std::int32_t>(lie));
      break;
    }
    case 3: {  // header length lies (the serialize type byte kept)
      const std::uint32_t type = b.size() > 4 ? b[4] : 0;
      const std::uint32_t lie = rng_.one_in(2) ? static_cast<std::uint32_t>(rng_.below(1u << 24))
                                               : static_cast<std::uint32_t>(rng_.between(0, static_cast<std::int64_t>(b.size())));
      set32(4, (type << 24) | lie);
      how += fmt::format("+headerlen({})", lie);
      break;
    }
    case 4: {  // serialize type
      if (b.size() > 4) b[4] = static_cast<std::uint8_t>(rng_.below(256));
      how += "+serializetype";
      break;
    }
    case 5: {  // two ranges of the header/body swap (field swaps at the byte level)
      if (b.size() < 16) break;
      const std::size_t len = rng_.between(1, static_cast<std::int64_t>(std::min<std::size_t>(32, (b.size() - 8) / 2)));
      const std::size_t x = 8 + rng_.below(b.size() - 8 - len + 1), y = 8 + rng_.below(b.size() - 8 - len + 1);
      if (x + len <= y || y + len <= x) std::swap_ranges(b.begin() + x, b.begin() + x + len, b.begin() + y);
      how += fmt::format("+swap({},{},{})", x, y, len);
      break;
    }
    default: {  // bytes inserted in the header, lengths left alone
      const std::size_t at = rng_.below(b.size() + 1);
      std::vector<std::uint8_t> junk = random_bytes(rng_.between(1, 16));
      b.insert(b.begin() + static_cast<std::ptrdiff_t>(at), junk.begin(), junk.end());
      how += fmt::format("+insert({},{})", at, junk.size());
      break;
    }
  }
}

}  // namespace ferry::sim::fuzz
