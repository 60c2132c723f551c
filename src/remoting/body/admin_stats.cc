#include "remoting/body/admin_stats.h"

namespace ferry::remoting::body {

namespace {

void write_int64_field(json::Writer& w, std::string_view name, std::int64_t v) {
  json::write_key(w, name);
  w.Int64(v);
}

}  // namespace

TopicOffset TopicOffset::read(const rapidjson::Value& v, std::string path, json::JsonErrors& e) {
  json::ObjectReader r(v, std::move(path), e);
  TopicOffset t;
  t.min_offset = r.int64("minOffset");
  t.max_offset = r.int64("maxOffset");
  t.last_update_timestamp = r.int64_or("lastUpdateTimestamp", 0);
  return t;
}

void TopicOffset::write(json::Writer& w) const {
  w.StartObject();
  write_int64_field(w, "lastUpdateTimestamp", last_update_timestamp);
  write_int64_field(w, "maxOffset", max_offset);
  write_int64_field(w, "minOffset", min_offset);
  w.EndObject();
}

Result<TopicStatsTable> TopicStatsTable::decode(Bytes body) {
  auto doc = parse_body(body, "TopicStatsTable");
  if (!doc) return std::move(doc).error();
  json::JsonErrors errors;
  json::ObjectReader r(*doc, "TopicStatsTable", errors);
  TopicStatsTable t;
  t.offset_table = read_queue_table<TopicOffset>(r, "offsetTable", true);
  if (errors.failed()) return errors.take();
  return t;
}

std::vector<std::uint8_t> TopicStatsTable::encode() const {
  return write_body([this](json::Writer& w) {
    w.StartObject();
    write_queue_table(w, "offsetTable", offset_table, KeyOrder::message_queue);
    w.EndObject();
  });
}

OffsetWrapper OffsetWrapper::read(const rapidjson::Value& v, std::string path, json::JsonErrors& e) {
  json::ObjectReader r(v, std::move(path), e);
  OffsetWrapper o;
  o.broker_offset = r.int64("brokerOffset");
  o.consumer_offset = r.int64("consumerOffset");
  o.last_timestamp = r.int64_or("lastTimestamp", 0);
  return o;
}

void OffsetWrapper::write(json::Writer& w) const {
  w.StartObject();
  write_int64_field(w, "brokerOffset", broker_offset);
  write_int64_field(w, "consumerOffset", consumer_offset);
  write_int64_field(w, "lastTimestamp", last_timestamp);
  w.EndObject();
}

ConsumeStats ConsumeStats::read(const rapidjson::Value& v, std::string path, json::JsonErrors& e) {
  json::ObjectReader r(v, std::move(path), e);
  ConsumeStats c;
  c.offset_table = read_queue_table<OffsetWrapper>(r, "offsetTable", true);
  c.consume_tps = r.number_or("consumeTps", 0);
  return c;
}

void ConsumeStats::write(json::Writer& w) const {
  w.StartObject();
  json::write_key(w, "consumeTps");
  w.Double(consume_tps);
  write_queue_table(w, "offsetTable", offset_table, KeyOrder::message_queue);
  w.EndObject();
}

Result<ConsumeStats> ConsumeStats::decode(Bytes body) {
  auto doc = parse_body(body, "ConsumeStats");
  if (!doc) return std::move(doc).error();
  json::JsonErrors errors;
  ConsumeStats c = read(*doc, "ConsumeStats", errors);
  if (errors.failed()) return errors.take();
  return c;
}

std::vector<std::uint8_t> ConsumeStats::encode() const {
  return write_body([this](json::Writer& w) { write(w); });
}

std::int64_t ConsumeStats::total_diff() const {
  std::int64_t sum = 0;
  for (const auto& [mq, o] : offset_table) sum += o.broker_offset - o.consumer_offset;
  return sum;
}

}  // namespace ferry::remoting::body
