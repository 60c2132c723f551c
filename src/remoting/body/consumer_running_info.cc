#include "remoting/body/consumer_running_info.h"

#include <array>
#include <charconv>

#include "remoting/body/queue_table.h"

namespace ferry::remoting::body {
namespace {

// A JSON number (or a string holding one); missing or null is 0. fastjson writes doubles as
// numbers; a wrong type records an error.
double read_double(const rapidjson::Value& obj, const char* name, const std::string& path, json::JsonErrors& errors) {
  if (!obj.IsObject()) return 0;
  auto it = obj.FindMember(name);
  if (it == obj.MemberEnd() || it->value.IsNull()) return 0;
  if (it->value.IsNumber()) return it->value.GetDouble();
  if (it->value.IsString()) {
    double d = 0;
    const char* s = it->value.GetString();
    const char* e = s + it->value.GetStringLength();
    auto [p, ec] = std::from_chars(s, e, d);
    if (ec == std::errc() && p == e) return d;
  }
  errors.fail(fmt::format("{}.{}: not a number", path, name));
  return 0;
}

void write_double(json::Writer& w, std::string_view name, double v) {
  json::write_key(w, name);
  w.Double(v);
}

void write_int64(json::Writer& w, std::string_view name, std::int64_t v) {
  json::write_key(w, name);
  w.Int64(v);
}

void write_bool(json::Writer& w, std::string_view name, bool v) {
  json::write_key(w, name);
  w.Bool(v);
}

constexpr std::array<std::string_view, 6> kCMResultNames = {"CR_SUCCESS", "CR_LATER", "CR_ROLLBACK",
                                                            "CR_COMMIT", "CR_THROW_EXCEPTION", "CR_RETURN_NULL"};

}  // namespace

ProcessQueueInfo ProcessQueueInfo::read(const rapidjson::Value& v, const std::string& path, json::JsonErrors& e) {
  json::ObjectReader r(v, path, e);
  ProcessQueueInfo p;
  p.commit_offset = r.int64_or("commitOffset", 0);
  p.cached_msg_min_offset = r.int64_or("cachedMsgMinOffset", 0);
  p.cached_msg_max_offset = r.int64_or("cachedMsgMaxOffset", 0);
  p.cached_msg_count = r.int32_or("cachedMsgCount", 0);
  p.cached_msg_size_in_mib = r.int32_or("cachedMsgSizeInMiB", 0);
  p.transaction_msg_min_offset = r.int64_or("transactionMsgMinOffset", 0);
  p.transaction_msg_max_offset = r.int64_or("transactionMsgMaxOffset", 0);
  p.transaction_msg_count = r.int32_or("transactionMsgCount", 0);
  p.locked = r.boolean_or("locked", false);
  p.try_unlock_times = r.int64_or("tryUnlockTimes", 0);
  p.last_lock_timestamp = r.int64_or("lastLockTimestamp", 0);
  p.droped = r.boolean_or("droped", false);
  p.last_pull_timestamp = r.int64_or("lastPullTimestamp", 0);
  p.last_consume_timestamp = r.int64_or("lastConsumeTimestamp", 0);
  return p;
}

void ProcessQueueInfo::write(json::Writer& w) const {
  w.StartObject();
  write_int64(w, "cachedMsgCount", cached_msg_count);
  write_int64(w, "cachedMsgMaxOffset", cached_msg_max_offset);
  write_int64(w, "cachedMsgMinOffset", cached_msg_min_offset);
  write_int64(w, "cachedMsgSizeInMiB", cached_msg_size_in_mib);
  write_int64(w, "commitOffset", commit_offset);
  write_bool(w, "droped", droped);
  write_int64(w, "lastConsumeTimestamp", last_consume_timestamp);
  write_int64(w, "lastLockTimestamp", last_lock_timestamp);
  write_int64(w, "lastPullTimestamp", last_pull_timestamp);
  write_bool(w, "locked", locked);
  write_int64(w, "transactionMsgCount", transaction_msg_count);
  write_int64(w, "transactionMsgMaxOffset", transaction_msg_max_offset);
  write_int64(w, "transactionMsgMinOffset", transaction_msg_min_offset);
  write_int64(w, "tryUnlockTimes", try_unlock_times);
  w.EndObject();
}

ConsumeStatus ConsumeStatus::read(const rapidjson::Value& v, const std::string& path, json::JsonErrors& e) {
  json::ObjectReader r(v, path, e);  // records "not a JSON object"
  ConsumeStatus s;
  s.pull_rt = read_double(v, "pullRT", path, e);
  s.pull_tps = read_double(v, "pullTPS", path, e);
  s.consume_rt = read_double(v, "consumeRT", path, e);
  s.consume_ok_tps = read_double(v, "consumeOKTPS", path, e);
  s.consume_failed_tps = read_double(v, "consumeFailedTPS", path, e);
  s.consume_failed_msgs = r.int64_or("consumeFailedMsgs", 0);
  return s;
}

void ConsumeStatus::write(json::Writer& w) const {
  w.StartObject();
  write_int64(w, "consumeFailedMsgs", consume_failed_msgs);
  write_double(w, "consumeFailedTPS", consume_failed_tps);
  write_double(w, "consumeOKTPS", consume_ok_tps);
  write_double(w, "consumeRT", consume_rt);
  write_double(w, "pullRT", pull_rt);
  write_double(w, "pullTPS", pull_tps);
  w.EndObject();
}

Result<ConsumerRunningInfo> ConsumerRunningInfo::decode(Bytes body) {
  auto doc = parse_body(body, "ConsumerRunningInfo");
  if (!doc) return std::move(doc).error();
  json::JsonErrors errors;
  json::ObjectReader r(*doc, "ConsumerRunningInfo", errors);
  ConsumerRunningInfo info;
  if (const rapidjson::Value* props = r.optional_object("properties")) {
    for (auto it = props->MemberBegin(); it != props->MemberEnd(); ++it) {
      const std::string key(it->name.GetString(), it->name.GetStringLength());
      // Java's Properties may hold non-strings (an enum put as itself): keep their JSON text.
      if (std::optional<std::string> s = json::as_string(it->value)) {
        info.properties[key] = *s;
      } else if (std::optional<std::int64_t> n = json::as_int64(it->value)) {
        info.properties[key] = std::to_string(*n);
      } else if (std::optional<bool> b = json::as_bool(it->value)) {
        info.properties[key] = *b ? "true" : "false";
      }
    }
  }
  info.subscription_set = read_array<SubscriptionData>(r, "subscriptionSet", false);
  info.mq_table = read_queue_table<ProcessQueueInfo>(r, "mqTable", false);
  if (const rapidjson::Value* st = r.optional_object("statusTable")) {
    for (auto it = st->MemberBegin(); it != st->MemberEnd() && !errors.failed(); ++it) {
      const std::string topic(it->name.GetString(), it->name.GetStringLength());
      info.status_table[topic] = ConsumeStatus::read(it->value, r.path_of("statusTable") + "." + topic, errors);
    }
  }
  info.jstack = r.optional_string("jstack");
  if (errors.failed()) return errors.take();
  return info;
}

std::vector<std::uint8_t> ConsumerRunningInfo::encode() const {
  return write_body([this](json::Writer& w) {
    w.StartObject();
    if (jstack) write_string_field(w, "jstack", *jstack);
    write_queue_table(w, "mqTable", mq_table, KeyOrder::fastjson);
    json::write_key(w, "properties");
    w.StartObject();
    for (const auto& [k, v] : properties) write_string_field(w, k, v);
    w.EndObject();
    json::write_key(w, "statusTable");
    w.StartObject();
    for (const auto& [topic, s] : status_table) {
      json::write_key(w, topic);
      s.write(w);
    }
    w.EndObject();
    write_array(w, "subscriptionSet", subscription_set);
    w.EndObject();
  });
}

std::string_view name(CMResult r) { return kCMResultNames.at(static_cast<std::size_t>(r)); }

std::optional<CMResult> parse_cm_result(std::string_view text) {
  for (std::size_t i = 0; i < kCMResultNames.size(); ++i) {
    if (kCMResultNames[i] == text) return static_cast<CMResult>(i);
  }
  return std::nullopt;
}

Result<ConsumeMessageDirectlyResult> ConsumeMessageDirectlyResult::decode(Bytes body) {
  auto doc = parse_body(body, "ConsumeMessageDirectlyResult");
  if (!doc) return std::move(doc).error();
  json::JsonErrors errors;
  json::ObjectReader r(*doc, "ConsumeMessageDirectlyResult", errors);
  ConsumeMessageDirectlyResult c;
  c.order = r.boolean_or("order", false);
  c.auto_commit = r.boolean_or("autoCommit", true);
  if (std::optional<std::string> cr = r.optional_string("consumeResult")) {
    c.consume_result = parse_cm_result(*cr);
    if (!c.consume_result) errors.fail(fmt::format("ConsumeMessageDirectlyResult.consumeResult: unknown value '{}'", *cr));
  }
  c.remark = r.optional_string("remark");
  c.spent_time_mills = r.int64_or("spentTimeMills", 0);
  if (errors.failed()) return errors.take();
  return c;
}

std::vector<std::uint8_t> ConsumeMessageDirectlyResult::encode() const {
  return write_body([this](json::Writer& w) {
    w.StartObject();
    write_bool(w, "autoCommit", auto_commit);
    if (consume_result) write_string_field(w, "consumeResult", name(*consume_result));
    write_bool(w, "order", order);
    if (remark) write_string_field(w, "remark", *remark);
    write_int64(w, "spentTimeMills", spent_time_mills);
    w.EndObject();
  });
}

}  // namespace ferry::remoting::body
