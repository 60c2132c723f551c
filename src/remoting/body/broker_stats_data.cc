#include "remoting/body/broker_stats_data.h"

namespace ferry::remoting::body {

namespace {

void write_item(json::Writer& w, std::string_view name, const BrokerStatsItem& item) {
  json::write_key(w, name);
  item.write(w);
}

}  // namespace

BrokerStatsItem BrokerStatsItem::read(const rapidjson::Value& v, std::string path, json::JsonErrors& e) {
  json::ObjectReader r(v, std::move(path), e);
  BrokerStatsItem item;
  item.sum = r.int64("sum");
  item.tps = r.number("tps");
  item.avgpt = r.number("avgpt");
  return item;
}

void BrokerStatsItem::write(json::Writer& w) const {
  w.StartObject();
  json::write_key(w, "avgpt");
  w.Double(avgpt);
  json::write_key(w, "sum");
  w.Int64(sum);
  json::write_key(w, "tps");
  w.Double(tps);
  w.EndObject();
}

Result<BrokerStatsData> BrokerStatsData::decode(Bytes body) {
  auto doc = parse_body(body, "BrokerStatsData");
  if (!doc) return std::move(doc).error();
  json::JsonErrors errors;
  json::ObjectReader r(*doc, "BrokerStatsData", errors);
  BrokerStatsData d;
  const auto item = [&r](std::string_view name) {
    const rapidjson::Value* v = r.object(name);
    return v == nullptr ? BrokerStatsItem{} : BrokerStatsItem::read(*v, r.path_of(name), r.errors());
  };
  d.stats_minute = item("statsMinute");
  d.stats_hour = item("statsHour");
  d.stats_day = item("statsDay");
  if (errors.failed()) return errors.take();
  return d;
}

std::vector<std::uint8_t> BrokerStatsData::encode() const {
  return write_body([this](json::Writer& w) {
    w.StartObject();
    write_item(w, "statsDay", stats_day);
    write_item(w, "statsHour", stats_hour);
    write_item(w, "statsMinute", stats_minute);
    w.EndObject();
  });
}

}  // namespace ferry::remoting::body
