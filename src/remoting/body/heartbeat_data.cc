#include "remoting/body/heartbeat_data.h"

#include <limits>

#include "remoting/body/body_json.h"

namespace ferry::remoting::body {

SubscriptionData SubscriptionData::read(const rapidjson::Value& v, std::string path,
                                        json::JsonErrors& e) {
  json::ObjectReader r(v, std::move(path), e);
  SubscriptionData s;
  s.topic = r.string("topic");
  s.sub_string = r.string("subString");
  s.tags_set = r.string_array("tagsSet");
  if (const rapidjson::Value* codes = r.optional_array("codeSet")) {
    for (rapidjson::SizeType i = 0; i < codes->Size(); ++i) {
      const auto code = json::as_int64((*codes)[i]);
      if (!code || *code < std::numeric_limits<std::int32_t>::min() ||
          *code > std::numeric_limits<std::int32_t>::max()) {
        e.fail(fmt::format("{}[{}]: not an int32", r.path_of("codeSet"), i));
        break;
      }
      s.code_set.push_back(static_cast<std::int32_t>(*code));
    }
  }
  s.sub_version = r.int64_or("subVersion", 0);
  s.expression_type = r.optional_string("expressionType").value_or("TAG");
  s.class_filter_mode = r.boolean_or("classFilterMode", false);
  return s;
}

void SubscriptionData::write(json::Writer& w) const {
  w.StartObject();
  write_string_field(w, "topic", topic);
  write_string_field(w, "subString", sub_string);
  write_string_array(w, "tagsSet", tags_set);
  w.Key("codeSet");
  w.StartArray();
  for (std::int32_t c : code_set) w.Int(c);
  w.EndArray();
  w.Key("subVersion");
  w.Int64(sub_version);
  write_string_field(w, "expressionType", expression_type);
  w.Key("classFilterMode");
  w.Bool(class_filter_mode);
  w.EndObject();
}

ProducerData ProducerData::read(const rapidjson::Value& v, std::string path, json::JsonErrors& e) {
  json::ObjectReader r(v, std::move(path), e);
  return ProducerData{r.string("groupName")};
}

void ProducerData::write(json::Writer& w) const {
  w.StartObject();
  write_string_field(w, "groupName", group_name);
  w.EndObject();
}

ConsumerData ConsumerData::read(const rapidjson::Value& v, std::string path, json::JsonErrors& e) {
  json::ObjectReader r(v, std::move(path), e);
  ConsumerData c;
  c.group_name = r.string("groupName");
  c.consume_type = read_enum(r, "consumeType", consume_type_from_name, c.consume_type);
  c.message_model = read_enum(r, "messageModel", message_model_from_name, c.message_model);
  c.consume_from_where =
      read_enum(r, "consumeFromWhere", consume_from_where_from_name, c.consume_from_where);
  c.subscription_data_set = read_array<SubscriptionData>(r, "subscriptionDataSet", false);
  c.unit_mode = r.boolean_or("unitMode", false);
  return c;
}

void ConsumerData::write(json::Writer& w) const {
  w.StartObject();
  write_string_field(w, "groupName", group_name);
  write_string_field(w, "consumeType", name(consume_type));
  write_string_field(w, "messageModel", name(message_model));
  write_string_field(w, "consumeFromWhere", name(consume_from_where));
  write_array(w, "subscriptionDataSet", subscription_data_set);
  w.Key("unitMode");
  w.Bool(unit_mode);
  w.EndObject();
}

Result<HeartbeatData> HeartbeatData::decode(Bytes body) {
  auto doc = parse_body(body, "HeartbeatData");
  if (!doc) return std::move(doc).error();
  json::JsonErrors errors;
  json::ObjectReader r(*doc, "HeartbeatData", errors);
  HeartbeatData h;
  h.client_id = r.string("clientID");
  h.producer_data_set = read_array<ProducerData>(r, "producerDataSet", false);
  h.consumer_data_set = read_array<ConsumerData>(r, "consumerDataSet", false);
  if (errors.failed()) return errors.take();
  return h;
}

std::vector<std::uint8_t> HeartbeatData::encode() const {
  return write_body([this](json::Writer& w) {
    w.StartObject();
    write_string_field(w, "clientID", client_id);
    write_array(w, "producerDataSet", producer_data_set);
    write_array(w, "consumerDataSet", consumer_data_set);
    w.EndObject();
  });
}

Result<CheckClientRequestBody> CheckClientRequestBody::decode(Bytes body) {
  auto doc = parse_body(body, "CheckClientRequestBody");
  if (!doc) return std::move(doc).error();
  json::JsonErrors errors;
  json::ObjectReader r(*doc, "CheckClientRequestBody", errors);
  CheckClientRequestBody b;
  b.client_id = r.optional_string("clientId").value_or("");
  b.group = r.optional_string("group").value_or("");
  if (const rapidjson::Value* sub = r.optional_object("subscriptionData")) {
    b.subscription_data = SubscriptionData::read(*sub, r.path_of("subscriptionData"), errors);
  }
  if (errors.failed()) return errors.take();
  return b;
}

std::vector<std::uint8_t> CheckClientRequestBody::encode() const {
  return write_body([this](json::Writer& w) {
    w.StartObject();
    write_string_field(w, "clientId", client_id);
    write_string_field(w, "group", group);
    if (subscription_data) {
      w.Key("subscriptionData");
      subscription_data->write(w);
    }
    w.EndObject();
  });
}

}  // namespace ferry::remoting::body
