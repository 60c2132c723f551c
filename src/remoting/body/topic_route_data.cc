#include "remoting/body/topic_route_data.h"

#include "remoting/body/body_json.h"

namespace ferry::remoting::body {

QueueData QueueData::read(const rapidjson::Value& v, std::string path, json::JsonErrors& errors) {
  json::ObjectReader r(v, std::move(path), errors);
  QueueData q;
  q.broker_name = r.string("brokerName");
  q.read_queue_nums = r.int32("readQueueNums");
  q.write_queue_nums = r.int32("writeQueueNums");
  q.perm = r.int32("perm");
  q.topic_sys_flag = r.int32_or("topicSysFlag", r.int32_or("topicSynFlag", 0));
  return q;
}

void QueueData::write(json::Writer& w) const {
  w.StartObject();
  write_string_field(w, "brokerName", broker_name);
  w.Key("readQueueNums");
  w.Int(read_queue_nums);
  w.Key("writeQueueNums");
  w.Int(write_queue_nums);
  w.Key("perm");
  w.Int(perm);
  w.Key("topicSynFlag");
  w.Int(topic_sys_flag);
  w.Key("topicSysFlag");
  w.Int(topic_sys_flag);
  w.EndObject();
}

Result<TopicRouteData> TopicRouteData::decode(Bytes body) {
  auto doc = parse_body(body, "TopicRouteData");
  if (!doc) return std::move(doc).error();
  json::JsonErrors errors;
  json::ObjectReader r(*doc, "TopicRouteData", errors);
  TopicRouteData t;
  t.order_topic_conf = r.optional_string("orderTopicConf");
  t.queue_datas = read_array<QueueData>(r, "queueDatas", false);
  t.broker_datas = read_array<BrokerData>(r, "brokerDatas", false);
  if (const rapidjson::Value* table = r.optional_object("filterServerTable")) {
    json::ObjectReader tr(*table, r.path_of("filterServerTable"), errors);
    for (auto it = table->MemberBegin(); it != table->MemberEnd() && !errors.failed(); ++it) {
      const std::string addr(it->name.GetString(), it->name.GetStringLength());
      t.filter_server_table[addr] = tr.string_array(addr);
    }
  }
  if (errors.failed()) return errors.take();
  return t;
}

std::vector<std::uint8_t> TopicRouteData::encode() const {
  return write_body([this](json::Writer& w) {
    w.StartObject();
    if (order_topic_conf) write_string_field(w, "orderTopicConf", *order_topic_conf);
    write_array(w, "queueDatas", queue_datas);
    write_array(w, "brokerDatas", broker_datas);
    json::write_key(w, "filterServerTable");
    w.StartObject();
    for (const auto& [addr, servers] : filter_server_table) write_string_array(w, addr, servers);
    w.EndObject();
    w.EndObject();
  });
}

}  // namespace ferry::remoting::body
