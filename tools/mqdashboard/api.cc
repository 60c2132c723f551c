#include "tools/mqdashboard/api.h"

#include <fmt/format.h>
#include <rapidjson/document.h>

#include <cstdio>
#include <functional>
#include <map>
#include <optional>
#include <set>

#include "cli/admin_calls.h"
#include "cli/broker_calls.h"
#include "cli/offset_reset.h"
#include "cli/time_arg.h"
#include "client/producer.h"
#include "common/names.h"
#include "remoting/body/epoch_acks.h"
#include "remoting/body/kv_table.h"
#include "remoting/body/subscription_group_config.h"
#include "remoting/body/versioned_table.h"
#include "remoting/request_code.h"
#include "tools/mqdashboard/json_out.h"
#include "tools/mqdashboard/message_json.h"

namespace ferry::dashboard {

namespace {

namespace rc = remoting::request_code;
namespace body = remoting::body;
using daemon::HttpReply;
using daemon::HttpRequest;

constexpr std::int32_t kKeyQueryMax = 64;
constexpr const char* kJson = "application/json; charset=utf-8";

HttpReply envelope_ok(const std::string& data) {
  return HttpReply{200, kJson, fmt::format("{{\"status\":0,\"data\":{},\"errMsg\":null}}", data), {}};
}

HttpReply envelope_error(const std::string& message) {
  JsonOut j;
  j.object().field("status", std::int64_t{-1}).key("data").null().field("errMsg", message).end_object();
  return HttpReply{200, kJson, j.take(), {}};
}

// The parameters of a request: the query string for GET, a JSON object body for POST.
class Params {
 public:
  static Result<Params> of(const HttpRequest& req) {
    Params p;
    p.query_ = req.query;
    if (req.method == "POST") {
      p.doc_.Parse(req.body.data(), req.body.size());
      if (p.doc_.HasParseError() || !p.doc_.IsObject()) {
        return Error(Errc::invalid_argument, "the request body is not a JSON object");
      }
      p.post_ = true;
    }
    return p;
  }

  // A present value; a number in a JSON body is given as its text.
  Result<std::optional<std::string>> get(std::string_view name) const {
    if (!post_) return daemon::query_param(query_, name);
    auto it = doc_.FindMember(rapidjson::Value(rapidjson::StringRef(name.data(), name.size())));
    if (it == doc_.MemberEnd() || it->value.IsNull()) return std::optional<std::string>();
    const rapidjson::Value& v = it->value;
    if (v.IsString()) return std::optional<std::string>(std::string(v.GetString(), v.GetStringLength()));
    if (v.IsInt64()) return std::optional<std::string>(std::to_string(v.GetInt64()));
    if (v.IsBool()) return std::optional<std::string>(v.GetBool() ? "true" : "false");
    return Error(Errc::invalid_argument, fmt::format("parameter '{}': a string or a whole number, please", name));
  }
  Result<std::string> required(std::string_view name) const {
    Result<std::optional<std::string>> v = get(name);
    if (!v.ok()) return std::move(v).error();
    if (!v->has_value() || (*v)->empty()) return Error(Errc::invalid_argument, fmt::format("missing parameter '{}'", name));
    return std::move(**v);
  }
  Result<std::int64_t> integer(std::string_view name, std::int64_t min, std::int64_t max) const {
    Result<std::string> text = required(name);
    if (!text.ok()) return std::move(text).error();
    std::size_t used = 0;
    std::int64_t v = 0;
    try {
      v = std::stoll(*text, &used);
    } catch (const std::exception&) {
      used = 0;
    }
    if (used != text->size() || v < min || v > max) {
      return Error(Errc::invalid_argument,
                   fmt::format("parameter '{}': \"{}\" is not a whole number in {}..{}", name, *text, min, max));
    }
    return v;
  }
  // A JSON array of strings in a POST body (rocketmq-dashboard's consumerGroupList).
  std::vector<std::string> strings(std::string_view name) const {
    std::vector<std::string> out;
    if (!post_) return out;
    auto it = doc_.FindMember(rapidjson::Value(rapidjson::StringRef(name.data(), name.size())));
    if (it == doc_.MemberEnd() || !it->value.IsArray()) return out;
    for (const auto& v : it->value.GetArray()) {
      if (v.IsString()) out.emplace_back(v.GetString(), v.GetStringLength());
    }
    return out;
  }

 private:
  std::string query_;
  rapidjson::Document doc_;
  bool post_ = false;
};

std::string first_word(const std::string& text) { return text.substr(0, text.find(' ')); }

double number_or(const body::KvTable& kv, const std::string& key, double fallback) {
  std::optional<std::string> v = kv.get(key);
  if (!v) return fallback;
  try {
    return std::stod(first_word(*v));
  } catch (const std::exception&) {
    return fallback;
  }
}

std::string text_or(const body::KvTable& kv, const std::string& key, std::string fallback = "") {
  std::optional<std::string> v = kv.get(key);
  return v ? *v : fallback;
}

// "[ 0 days, 1 hours, 2 minutes, 3 seconds ]" (the broker's "runtime") → "0d 01:02:03".
std::string uptime_text(const std::string& runtime) {
  long long d = 0, h = 0, m = 0, sec = 0;
  if (std::sscanf(runtime.c_str(), "[ %lld days, %lld hours, %lld minutes, %lld seconds ]", &d, &h, &m, &sec) != 4) return runtime;
  return fmt::format("{}d {:02}:{:02}:{:02}", d, h, m, sec);
}

std::string_view topic_kind(std::string_view topic) {
  if (is_retry_topic(topic)) return "retry";
  if (is_dlq_topic(topic)) return "dlq";
  if (is_system_topic(topic)) return "system";
  return "normal";
}

void write_queue(JsonOut& j, const MessageQueue& q) {
  j.field("brokerName", q.broker_name).field("queueId", q.queue_id.value());
}

}  // namespace

DashboardApi::DashboardApi(cli::AdminSession& session, ApiOptions options)
    : s_(session), options_(std::move(options)), lag_(options_.lag_groups_max, options_.lag_points_max) {}

namespace {

using Handler = std::function<Result<std::string>(cli::AdminSession&, const Params&, LagHistory&, const ApiOptions&)>;

// ---- cluster and HA ----

Result<std::string> cluster_list(cli::AdminSession& s, const Params&, LagHistory&, const ApiOptions&) {
  Result<std::vector<cli::BrokerTarget>> brokers = cli::resolve_brokers(s, std::nullopt, std::nullopt, false);
  if (!brokers.ok()) return std::move(brokers).error();
  JsonOut j;
  j.object().key("namesrvAddrs").array();
  for (const std::string& a : s.namesrv_addrs()) j.str(a);
  j.end_array().key("brokers").array();
  for (const cli::BrokerTarget& b : *brokers) {
    j.object().field("cluster", b.cluster).field("brokerName", b.broker_name).field("brokerId", b.broker_id).field("addr", b.addr);
    Result<remoting::RemotingCommand> r = cli::call_broker(s, b.addr, remoting::make_request(rc::GET_BROKER_RUNTIME_INFO, 0));
    Result<body::KvTable> kv = r.ok() ? body::KvTable::decode(r->body) : Result<body::KvTable>(r.error());
    if (!kv.ok()) {
      j.field("error", kv.error().to_string()).end_object();
      continue;
    }
    j.field("version", text_or(*kv, "brokerVersionDesc")).field("role", text_or(*kv, "brokerRole"))
        .field("putTps", number_or(*kv, "putTps", 0)).field("getTps", number_or(*kv, "getTransferedTps", 0))
        .field("msgPutTotal", static_cast<std::int64_t>(number_or(*kv, "msgPutTotal", 0)))
        .field("msgGetTotal", static_cast<std::int64_t>(number_or(*kv, "msgGetTotal", 0)))
        .field("diskRatio", number_or(*kv, "commitLogDiskRatio", -1))
        .field("commitLogMaxOffset", static_cast<std::int64_t>(number_or(*kv, "commitLogMaxOffset", 0)))
        .field("flushDiskType", text_or(*kv, "flushDiskType")).field("writable", text_or(*kv, "storeWritable") != "false")
        .field("writeRefusal", text_or(*kv, "storeWriteRefusal")).field("uptime", uptime_text(text_or(*kv, "runtime")));
    // The HA summary mqadmin brokerStatus shows.
    if (kv->get("slaveNum")) {
      j.field("ha", fmt::format("slaves {}, in sync {}, behind {} bytes", text_or(*kv, "slaveNum"),
                                text_or(*kv, "inSyncSlaveNums", "-"), text_or(*kv, "diff", "0")));
    } else if (kv->get("haConnected")) {
      j.field("ha", fmt::format("{} to {}", text_or(*kv, "haConnected") == "true" ? "linked" : "unlinked",
                                text_or(*kv, "masterAddr", "-")));
    } else {
      j.field("ha", "-");
    }
    Result<body::EpochAcks> epoch = s.run(s.admin().epoch_acks(b.addr));
    if (epoch.ok()) j.field("epoch", epoch->last_epoch);
    j.key("runtimeInfo").object();
    for (const auto& [k, v] : kv->table) j.field(k, v);
    j.end_object().end_object();
  }
  j.end_array().end_object();
  return j.take();
}

Result<std::string> ha_status(cli::AdminSession& s, const Params&, LagHistory&, const ApiOptions& o) {
  Result<std::vector<cli::BrokerTarget>> brokers = cli::resolve_brokers(s, std::nullopt, std::nullopt, false);
  if (!brokers.ok()) return std::move(brokers).error();
  JsonOut j;
  j.object().key("brokers").array();
  for (const cli::BrokerTarget& b : *brokers) {
    j.object().field("cluster", b.cluster).field("brokerName", b.broker_name).field("brokerId", b.broker_id).field("addr", b.addr);
    Result<body::HaRuntimeInfo> ha = s.run(s.admin().ha_status(b.addr));
    if (ha.ok()) {
      const std::vector<std::uint8_t> bytes = ha->encode();
      j.key("ha").raw(std::string_view(reinterpret_cast<const char*>(bytes.data()), bytes.size()));
    } else {
      j.field("error", ha.error().to_string());
    }
    j.end_object();
  }
  j.end_array().key("controllers").array();
  std::string leader;
  for (const std::string& addr : o.controller_addrs) {
    j.object().field("addr", addr);
    Result<remoting::GetMetaDataResponseHeader> m = s.run(s.admin().controller_metadata(addr));
    if (m.ok()) {
      j.field("isLeader", m->is_leader).field("leaderId", m->controller_leader_id).field("leaderAddr", m->controller_leader_address);
      if (m->is_leader) leader = addr;
    } else {
      j.field("error", m.error().to_string());
    }
    j.end_object();
  }
  j.end_array().key("syncStateSets").array();
  if (!leader.empty()) {
    Result<body::BrokerReplicasInfo> info = s.run(s.admin().local_sync_state_data(leader, {}));
    if (info.ok()) {
      for (const auto& [group, r] : info->replicas_info_table) {
        j.object().field("brokerName", group).field("masterBrokerId", r.master_broker_id).field("masterAddr", r.master_address)
            .field("masterEpoch", r.master_epoch).field("syncStateSetEpoch", r.sync_state_set_epoch);
        for (const auto& [name, list] : {std::pair{"inSync", &r.in_sync_replicas}, std::pair{"notInSync", &r.not_in_sync_replicas}}) {
          j.key(name).array();
          for (const body::ReplicaIdentity& id : *list) {
            j.object().field("brokerId", id.broker_id).field("addr", id.broker_address).field("alive", id.alive).end_object();
          }
          j.end_array();
        }
        j.end_object();
      }
    }
  }
  j.end_array().end_object();
  return j.take();
}

// ---- topics ----

Result<std::string> topic_list(cli::AdminSession& s, const Params&, LagHistory&, const ApiOptions&) {
  Result<std::vector<std::string>> topics = s.run(s.admin().topic_list());
  if (!topics.ok()) return std::move(topics).error();
  std::set<std::string> sorted(topics->begin(), topics->end());
  JsonOut j;
  j.object().key("topics").array();
  for (const std::string& t : sorted) j.object().field("topic", t).field("kind", topic_kind(t)).end_object();
  j.end_array().end_object();
  return j.take();
}

Result<std::string> topic_route(cli::AdminSession& s, const Params& p, LagHistory&, const ApiOptions&) {
  Result<std::string> topic = p.required("topic");
  if (!topic.ok()) return std::move(topic).error();
  Result<body::TopicRouteData> route = s.run(s.admin().topic_route(*topic));
  if (!route.ok()) return std::move(route).error();
  JsonOut j;
  j.object().field("topic", *topic).key("brokerDatas").array();
  for (const body::BrokerData& b : route->broker_datas) {
    j.object().field("cluster", b.cluster).field("brokerName", b.broker_name).key("brokerAddrs").object();
    for (const auto& [id, addr] : b.broker_addrs) j.field(std::to_string(id), addr);
    j.end_object().end_object();
  }
  j.end_array().key("queueDatas").array();
  for (const body::QueueData& q : route->queue_datas) {
    j.object().field("brokerName", q.broker_name).field("readQueueNums", q.read_queue_nums)
        .field("writeQueueNums", q.write_queue_nums).field("perm", q.perm).end_object();
  }
  j.end_array().end_object();
  return j.take();
}

Result<std::string> topic_stats(cli::AdminSession& s, const Params& p, LagHistory&, const ApiOptions&) {
  Result<std::string> topic = p.required("topic");
  if (!topic.ok()) return std::move(topic).error();
  Result<std::vector<cli::BrokerTarget>> masters = cli::topic_masters(s, *topic);
  if (!masters.ok()) return std::move(masters).error();
  JsonOut j;
  j.object().field("topic", *topic);
  double put_tps = 0;
  std::int64_t put_minute = 0;
  j.key("queues").array();
  std::int64_t total = 0;
  for (const cli::BrokerTarget& b : *masters) {
    Result<body::TopicStatsTable> stats = cli::topic_stats(s, b, *topic);
    if (!stats.ok()) return std::move(stats).error();
    for (const auto& [q, o] : stats->offset_table) {
      j.object();
      write_queue(j, q);
      j.field("minOffset", o.min_offset).field("maxOffset", o.max_offset).field("lastUpdateTimestamp", o.last_update_timestamp)
          .end_object();
      total += o.max_offset - o.min_offset;
    }
    Result<std::optional<body::BrokerStatsData>> rate = cli::broker_stats_data(s, b, "TOPIC_PUT_NUMS", *topic);
    if (rate.ok() && rate->has_value()) {
      put_tps += (*rate)->stats_minute.tps;
      put_minute += (*rate)->stats_minute.sum;
    }
  }
  j.end_array().field("messagesStored", total).field("putTps", put_tps).field("putLastMinute", put_minute).end_object();
  return j.take();
}

// The groups consuming `topic` on any of its masters, and per group and queue the offsets.
Result<std::string> topic_consumers(cli::AdminSession& s, const Params& p, LagHistory&, const ApiOptions&) {
  Result<std::string> topic = p.required("topic");
  if (!topic.ok()) return std::move(topic).error();
  Result<std::vector<cli::BrokerTarget>> masters = cli::topic_masters(s, *topic);
  if (!masters.ok()) return std::move(masters).error();
  std::set<std::string> groups;
  for (const cli::BrokerTarget& b : *masters) {
    Result<body::GroupList> list = cli::topic_consumed_by(s, b, *topic);
    if (!list.ok()) return std::move(list).error();
    groups.insert(list->group_list.begin(), list->group_list.end());
  }
  JsonOut j;
  j.object().field("topic", *topic).key("groups").array();
  for (const std::string& g : groups) {
    j.object().field("consumerGroup", g);
    std::int64_t diff = 0;
    double tps = 0;
    j.key("queues").array();
    for (const cli::BrokerTarget& b : *masters) {
      Result<body::ConsumeStats> stats = cli::consume_stats(s, b, g, *topic);
      if (!stats.ok()) continue;  // the group has no offsets of the topic on that broker
      tps += stats->consume_tps;
      for (const auto& [q, o] : stats->offset_table) {
        j.object();
        write_queue(j, q);
        j.field("brokerOffset", o.broker_offset).field("consumerOffset", o.consumer_offset)
            .field("diff", o.broker_offset - o.consumer_offset).field("lastTimestamp", o.last_timestamp).end_object();
        diff += o.broker_offset - o.consumer_offset;
      }
    }
    j.end_array().field("diffTotal", diff).field("consumeTps", tps).end_object();
  }
  j.end_array().end_object();
  return j.take();
}

Result<std::string> send_message(cli::AdminSession& s, const Params& p, LagHistory&, const ApiOptions&) {
  Result<std::string> topic = p.required("topic");
  if (!topic.ok()) return std::move(topic).error();
  Result<std::string> text = p.required("messageBody");
  if (!text.ok()) return std::move(text).error();
  Result<std::optional<std::string>> key = p.get("key");
  Result<std::optional<std::string>> tag = p.get("tag");
  if (!key.ok()) return std::move(key).error();
  if (!tag.ok()) return std::move(tag).error();
  Message m;
  m.topic = *topic;
  m.body.assign(text->begin(), text->end());
  if (*tag && !(*tag)->empty()) m.set_tags(**tag);
  if (*key && !(*key)->empty()) m.set_keys(std::string_view(**key));
  // A producer for this one send, as rocketmq-dashboard's (its group SELF_TEST_P_GROUP).
  client::ProducerConfig cfg;
  cfg.group = "SELF_TEST_P_GROUP";
  client::Producer producer(s.instance(), cfg);
  if (Status st = producer.start(); !st.ok()) return std::move(st).error();
  Result<client::SendResult> r = s.run(producer.send(std::move(m)));
  s.run(producer.shutdown());
  if (!r.ok()) return std::move(r).error();
  JsonOut j;
  j.object().field("sendStatus", client::name(r->status)).field("msgId", r->msg_id).field("offsetMsgId", r->offset_msg_id);
  write_queue(j, r->queue);
  j.field("queueOffset", r->queue_offset.value()).end_object();
  return j.take();
}

// The members of a producer group on the masters of a topic (rocketmq-dashboard's Producer screen).
Result<std::string> producer_connection(cli::AdminSession& s, const Params& p, LagHistory&, const ApiOptions&) {
  Result<std::string> topic = p.required("topic");
  if (!topic.ok()) return std::move(topic).error();
  Result<std::string> group = p.required("producerGroup");
  if (!group.ok()) return std::move(group).error();
  Result<std::vector<cli::BrokerTarget>> masters = cli::topic_masters(s, *topic);
  if (!masters.ok()) return std::move(masters).error();
  std::map<std::string, body::Connection> members;
  for (const cli::BrokerTarget& b : *masters) {
    Result<std::optional<body::ProducerConnection>> c = cli::producer_connection(s, b, *group);
    if (!c.ok()) return std::move(c).error();
    if (!c->has_value()) continue;
    for (const body::Connection& m : (*c)->connection_set) members.emplace(m.client_id, m);
  }
  JsonOut j;
  j.object().field("topic", *topic).field("producerGroup", *group).key("connections").array();
  for (const auto& [id, m] : members) {
    j.object().field("clientId", id).field("clientAddr", m.client_addr).field("language", m.language).field("version", m.version)
        .end_object();
  }
  j.end_array().end_object();
  return j.take();
}

// ---- consumer groups ----

// The groups the masters hold a subscription config of (201), sorted.
Result<std::set<std::string>> all_groups(cli::AdminSession& s, const std::vector<cli::BrokerTarget>& masters, bool system) {
  constexpr body::VersionedTableKeys kKeys{"GET_ALL_SUBSCRIPTIONGROUP_CONFIG body", "subscriptionGroupTable", "groupName"};
  std::set<std::string> groups;
  for (const cli::BrokerTarget& b : masters) {
    Result<remoting::RemotingCommand> r = cli::call_broker(s, b.addr, remoting::make_request(rc::GET_ALL_SUBSCRIPTIONGROUP_CONFIG, 0));
    if (!r.ok()) return std::move(r).error();
    body::NamedTable<body::SubscriptionGroupConfig> table;
    body::DataVersion version;
    const std::string_view text(reinterpret_cast<const char*>(r->body.data()), r->body.size());
    if (Status st = body::decode_versioned_table(text, kKeys, &body::SubscriptionGroupConfig::group_name, table, version); !st.ok()) {
      return Error(Errc::corrupt, fmt::format("broker {}: subscription groups: {}", cli::describe(b), st.error().detail));
    }
    for (const auto& [name, config] : table) {
      if (system || !is_system_group(name)) groups.insert(name);
    }
  }
  return groups;
}

struct GroupTotals {
  std::int64_t diff = 0;
  double tps = 0;
  bool any = false;  // some broker has offsets of the group
};

GroupTotals group_totals(cli::AdminSession& s, const std::vector<cli::BrokerTarget>& masters, const std::string& group) {
  GroupTotals t;
  for (const cli::BrokerTarget& b : masters) {
    Result<body::ConsumeStats> stats = cli::consume_stats(s, b, group, std::nullopt);
    if (!stats.ok()) continue;
    t.any = true;
    t.diff += stats->total_diff();
    t.tps += stats->consume_tps;
  }
  return t;
}

Result<std::string> group_list(cli::AdminSession& s, const Params& p, LagHistory&, const ApiOptions&) {
  Result<std::optional<std::string>> all = p.get("all");
  if (!all.ok()) return std::move(all).error();
  Result<std::vector<cli::BrokerTarget>> masters = cli::resolve_brokers(s, std::nullopt, std::nullopt, true);
  if (!masters.ok()) return std::move(masters).error();
  Result<std::set<std::string>> groups = all_groups(s, *masters, *all && **all == "true");
  if (!groups.ok()) return std::move(groups).error();
  JsonOut j;
  j.object().key("groups").array();
  for (const std::string& g : *groups) {
    const GroupTotals t = group_totals(s, *masters, g);
    std::set<std::string> members;
    std::string consume_type = "-";
    std::string model = "-";
    for (const cli::BrokerTarget& b : *masters) {
      Result<std::optional<body::ConsumerConnection>> c = cli::consumer_connection(s, b, g);
      if (!c.ok() || !c->has_value()) continue;
      for (const body::Connection& m : (*c)->connection_set) members.insert(m.client_id);
      consume_type = std::string(body::name((*c)->consume_type));
      model = std::string(body::name((*c)->message_model));
    }
    j.object().field("group", g).field("system", is_system_group(g)).field("count", static_cast<std::int64_t>(members.size()))
        .field("consumeType", consume_type).field("messageModel", model).field("consumeTps", t.tps)
        .field("diffTotal", t.diff).field("hasOffsets", t.any).end_object();
  }
  j.end_array().end_object();
  return j.take();
}

Result<std::string> consumer_connection(cli::AdminSession& s, const Params& p, LagHistory&, const ApiOptions&) {
  Result<std::string> group = p.required("consumerGroup");
  if (!group.ok()) return std::move(group).error();
  Result<std::vector<cli::BrokerTarget>> masters = cli::resolve_brokers(s, std::nullopt, std::nullopt, true);
  if (!masters.ok()) return std::move(masters).error();
  std::map<std::string, body::Connection> members;
  std::map<std::string, std::string> subscriptions;
  std::optional<body::ConsumerConnection> any;
  for (const cli::BrokerTarget& b : *masters) {
    Result<std::optional<body::ConsumerConnection>> c = cli::consumer_connection(s, b, *group);
    if (!c.ok()) return std::move(c).error();
    if (!c->has_value()) continue;
    for (const body::Connection& m : (*c)->connection_set) members.emplace(m.client_id, m);
    for (const auto& [topic, sub] : (*c)->subscription_table) subscriptions.emplace(topic, sub.sub_string);
    any = std::move(**c);
  }
  JsonOut j;
  j.object().field("consumerGroup", *group).field("online", any.has_value());
  if (any) {
    j.field("consumeType", body::name(any->consume_type)).field("messageModel", body::name(any->message_model))
        .field("consumeFromWhere", body::name(any->consume_from_where));
  }
  j.key("connections").array();
  for (const auto& [id, m] : members) {
    j.object().field("clientId", id).field("clientAddr", m.client_addr).field("language", m.language).field("version", m.version)
        .end_object();
  }
  j.end_array().key("subscriptions").array();
  for (const auto& [topic, expr] : subscriptions) j.object().field("topic", topic).field("subString", expr).end_object();
  j.end_array().end_object();
  return j.take();
}

Result<std::string> topics_of_group(cli::AdminSession& s, const Params& p, LagHistory&, const ApiOptions&) {
  Result<std::string> group = p.required("consumerGroup");
  if (!group.ok()) return std::move(group).error();
  Result<std::vector<cli::BrokerTarget>> masters = cli::resolve_brokers(s, std::nullopt, std::nullopt, true);
  if (!masters.ok()) return std::move(masters).error();
  std::map<std::string, std::vector<std::pair<MessageQueue, body::OffsetWrapper>>> by_topic;
  double tps = 0;
  for (const cli::BrokerTarget& b : *masters) {
    Result<body::ConsumeStats> stats = cli::consume_stats(s, b, *group, std::nullopt);
    if (!stats.ok()) continue;  // no offsets of the group there
    tps += stats->consume_tps;
    for (const auto& [q, o] : stats->offset_table) by_topic[q.topic].emplace_back(q, o);
  }
  JsonOut j;
  std::int64_t total = 0;
  j.object().field("consumerGroup", *group).key("topics").array();
  for (const auto& [topic, queues] : by_topic) {
    std::int64_t diff = 0;
    j.object().field("topic", topic).key("queues").array();
    for (const auto& [q, o] : queues) {
      j.object();
      write_queue(j, q);
      j.field("brokerOffset", o.broker_offset).field("consumerOffset", o.consumer_offset)
          .field("diff", o.broker_offset - o.consumer_offset).field("lastTimestamp", o.last_timestamp).end_object();
      diff += o.broker_offset - o.consumer_offset;
    }
    j.end_array().field("diffTotal", diff).end_object();
    total += diff;
  }
  j.end_array().field("diffTotal", total).field("consumeTps", tps).end_object();
  return j.take();
}

Result<std::string> lag_history(cli::AdminSession&, const Params& p, LagHistory& lag, const ApiOptions& o) {
  Result<std::string> group = p.required("consumerGroup");
  if (!group.ok()) return std::move(group).error();
  JsonOut j;
  j.object().field("consumerGroup", *group).field("intervalMs", o.lag_interval_ms).key("points").array();
  for (const LagPoint& pt : lag.points(*group)) j.array().num(pt.at_ms).num(pt.lag).end_array();
  j.end_array().end_object();
  return j.take();
}

Result<std::string> reset_offset(cli::AdminSession& s, const Params& p, LagHistory&, const ApiOptions&) {
  std::vector<std::string> groups = p.strings("consumerGroupList");
  if (groups.empty()) {
    Result<std::string> one = p.required("consumerGroup");
    if (!one.ok()) return std::move(one).error();
    groups.push_back(*one);
  }
  Result<std::string> topic = p.required("topic");
  if (!topic.ok()) return std::move(topic).error();
  Result<std::string> time = p.required("resetTime");
  if (!time.ok()) return std::move(time).error();
  Result<std::int64_t> ts = cli::parse_time_arg(*time, s.rt().wall_ms());
  if (!ts.ok()) return Error(Errc::invalid_argument, fmt::format("resetTime: {}", ts.error().detail));
  Result<std::optional<std::string>> force = p.get("force");
  if (!force.ok()) return std::move(force).error();
  JsonOut j;
  j.object().field("topic", *topic).field("resetTime", *ts).key("groups").array();
  for (const std::string& g : groups) {
    Result<cli::OffsetReset> r = cli::reset_offset_by_time(s, g, *topic, *ts, *time == "now", !(*force && **force == "false"));
    if (!r.ok()) return Error(r.error().code, fmt::format("group {}: {}", g, r.error().detail));
    j.object().field("consumerGroup", g).field("throughConsumers", r->through_consumers).key("queues").array();
    for (const cli::OffsetResetRow& row : r->rows) {
      j.object();
      write_queue(j, row.queue);
      if (row.consumer_offset) j.field("previousOffset", row.consumer_offset->value());
      j.field("resetOffset", row.reset_offset.value()).end_object();
    }
    j.end_array().end_object();
  }
  j.end_array().end_object();
  return j.take();
}

// ---- messages ----

Result<std::string> messages_by_key(cli::AdminSession& s, const Params& p, LagHistory&, const ApiOptions&) {
  Result<std::string> topic = p.required("topic");
  if (!topic.ok()) return std::move(topic).error();
  Result<std::string> key = p.required("key");
  if (!key.ok()) return std::move(key).error();
  Result<std::vector<MessageExt>> found = s.run(s.admin().query_message(*topic, *key, kKeyQueryMax, 0, INT64_MAX));
  if (!found.ok()) return std::move(found).error();
  JsonOut j;
  j.object().key("messages").array();
  for (const MessageExt& m : *found) write_message(j, m, false);
  j.end_array().end_object();
  return j.take();
}

Result<std::string> view_message(cli::AdminSession& s, const Params& p, LagHistory&, const ApiOptions&) {
  Result<std::string> id = p.required("msgId");
  if (!id.ok()) return std::move(id).error();
  Result<std::optional<std::string>> topic = p.get("topic");
  if (!topic.ok()) return std::move(topic).error();
  Result<MessageExt> m = s.run(s.admin().view_message(*id));
  if (!m.ok() && *topic && !(*topic)->empty()) {
    // Not an offset msgId that answers: a client msgId (UNIQ_KEY) within the topic.
    Result<std::vector<MessageExt>> found = s.run(s.admin().query_message(**topic, *id, 1, 0, INT64_MAX, true));
    if (!found.ok()) return std::move(found).error();
    if (found->empty()) return Error(Errc::not_found, fmt::format("no message with id {} in topic {}", *id, **topic));
    m = std::move(found->front());
  }
  if (!m.ok()) return std::move(m).error();
  JsonOut j;
  write_message(j, *m, true);
  return j.take();
}

Result<std::string> message_by_offset(cli::AdminSession& s, const Params& p, LagHistory&, const ApiOptions&) {
  Result<std::string> topic = p.required("topic");
  if (!topic.ok()) return std::move(topic).error();
  Result<std::string> broker = p.required("brokerName");
  if (!broker.ok()) return std::move(broker).error();
  Result<std::int64_t> queue = p.integer("queueId", 0, 1 << 20);
  if (!queue.ok()) return std::move(queue).error();
  Result<std::int64_t> offset = p.integer("offset", 0, INT64_MAX);
  if (!offset.ok()) return std::move(offset).error();
  Status routed = s.run(s.instance().update_topic_route(*topic));
  if (!routed.ok()) return std::move(routed).error();
  client::PullRequest req;
  req.group = "mqdashboard-query";
  req.queue = MessageQueue{*topic, *broker, QueueId(static_cast<std::int32_t>(*queue))};
  req.offset = QueueOffset(*offset);
  req.max_nums = 1;
  Result<client::PullResult> r = s.run(s.puller().pull(req));
  if (!r.ok()) return std::move(r).error();
  if (r->status != client::PullStatus::FOUND || r->messages.empty()) {
    return Error(Errc::not_found, fmt::format("no message at offset {} of {} (the queue holds offsets {}..{})", *offset,
                                              req.queue.to_string(), r->min_offset.value(), r->max_offset.value() - 1));
  }
  JsonOut j;
  write_message(j, r->messages.front(), true);
  return j.take();
}

const std::map<std::string, Handler, std::less<>>& routes() {
  static const std::map<std::string, Handler, std::less<>> table = {
      {"/cluster/list.query", cluster_list},
      {"/ha/status.query", ha_status},
      {"/topic/list.query", topic_list},
      {"/topic/route.query", topic_route},
      {"/topic/stats.query", topic_stats},
      {"/topic/queryConsumerByTopic.query", topic_consumers},
      {"/topic/sendTopicMessage.do", send_message},
      {"/producer/producerConnection.query", producer_connection},
      {"/consumer/groupList.query", group_list},
      {"/consumer/consumerConnection.query", consumer_connection},
      {"/consumer/queryTopicByConsumer.query", topics_of_group},
      {"/consumer/lagHistory.query", lag_history},
      {"/consumer/resetOffset.do", reset_offset},
      {"/message/queryMessageByTopicAndKey.query", messages_by_key},
      {"/message/viewMessage.query", view_message},
      {"/message/queryMessageByOffset.query", message_by_offset},
  };
  return table;
}

}  // namespace

bool DashboardApi::serves(const std::string& path) { return routes().count(path) > 0; }

daemon::HttpReply DashboardApi::handle(const daemon::HttpRequest& request) {
  auto it = routes().find(request.path);
  if (it == routes().end()) return envelope_error(fmt::format("no such API: {}", request.path));
  const bool changes = request.path.ends_with(".do");
  if (changes != (request.method == "POST")) {
    return envelope_error(fmt::format("{} takes {}", request.path, changes ? "POST with a JSON body" : "GET"));
  }
  if (changes && !request.content_type.starts_with("application/json")) {
    // A browser sends application/json to another site only after a CORS preflight this server
    // never grants, so a page elsewhere cannot make a logged-in browser act here (CSRF).
    HttpReply r = envelope_error(fmt::format("{} takes a JSON body with Content-Type: application/json", request.path));
    r.status = 415;
    return r;
  }
  Result<Params> params = Params::of(request);
  if (!params.ok()) return envelope_error(params.error().detail);
  Result<std::string> data = it->second(s_, *params, lag_, options_);
  if (!data.ok()) return envelope_error(data.error().detail);
  return envelope_ok(*data);
}

void DashboardApi::sample_lag() {
  Result<std::vector<cli::BrokerTarget>> masters = cli::resolve_brokers(s_, std::nullopt, std::nullopt, true);
  if (!masters.ok()) {
    s_.rt().log().warn("lag sample: {}", masters.error().to_string());
    return;
  }
  Result<std::set<std::string>> groups = all_groups(s_, *masters, false);
  if (!groups.ok()) {
    s_.rt().log().warn("lag sample: {}", groups.error().to_string());
    return;
  }
  const std::int64_t now = s_.rt().wall_ms();
  for (const std::string& g : *groups) {
    const GroupTotals t = group_totals(s_, *masters, g);
    if (t.any) lag_.record(g, LagPoint{now, t.diff});
  }
}

}  // namespace ferry::dashboard
