// HEART_BEAT (34) request body:
//   {"clientID":"192.0.2.2@5831",
//    "producerDataSet":[{"groupName":"PID_X"}],
//    "consumerDataSet":[{"groupName":"GID_X","consumeType":"CONSUME_PASSIVELY",
//      "messageModel":"CLUSTERING","consumeFromWhere":"CONSUME_FROM_LAST_OFFSET","unitMode":false,
//      "subscriptionDataSet":[{"topic":"T","subString":"*","tagsSet":[],"codeSet":[],
//        "subVersion":1795991228460,"expressionType":"TAG","classFilterMode":false}]}]}
// The Java "sets" are JSON arrays; their order is kept as received.
#pragma once

#include <rapidjson/document.h>

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "remoting/body/consumer_enums.h"
#include "remoting/json/json_reader.h"
#include "remoting/json/json_writer.h"
#include "runtime/bytes.h"
#include "runtime/result.h"

namespace ferry::remoting::body {

struct SubscriptionData {
  std::string topic;
  std::string sub_string;             // "*" or "TagA || TagB" (or an SQL92 expression)
  std::vector<std::string> tags_set;  // the tags of sub_string
  std::vector<std::int32_t> code_set; // Java String.hashCode of each tag
  std::int64_t sub_version = 0;       // the client's ms timestamp of the subscription
  std::string expression_type = "TAG";
  bool class_filter_mode = false;

  static SubscriptionData read(const rapidjson::Value& v, std::string path, json::JsonErrors& e);
  void write(json::Writer& w) const;
  bool operator==(const SubscriptionData&) const = default;
};

struct ProducerData {
  std::string group_name;

  static ProducerData read(const rapidjson::Value& v, std::string path, json::JsonErrors& e);
  void write(json::Writer& w) const;
  bool operator==(const ProducerData&) const = default;
};

struct ConsumerData {
  std::string group_name;
  ConsumeType consume_type = ConsumeType::CONSUME_PASSIVELY;
  MessageModel message_model = MessageModel::CLUSTERING;
  ConsumeFromWhere consume_from_where = ConsumeFromWhere::CONSUME_FROM_LAST_OFFSET;
  std::vector<SubscriptionData> subscription_data_set;
  bool unit_mode = false;

  static ConsumerData read(const rapidjson::Value& v, std::string path, json::JsonErrors& e);
  void write(json::Writer& w) const;
  bool operator==(const ConsumerData&) const = default;
};

struct HeartbeatData {
  std::string client_id;  // "clientID"
  std::vector<ProducerData> producer_data_set;
  std::vector<ConsumerData> consumer_data_set;

  // Errors: Errc::corrupt for malformed JSON, Errc::invalid_argument naming the field's path
  // ("HeartbeatData.consumerDataSet[0].messageModel: unknown value \"X\"").
  static Result<HeartbeatData> decode(Bytes body);
  std::vector<std::uint8_t> encode() const;
  bool operator==(const HeartbeatData&) const = default;
};

// CHECK_CLIENT_CONFIG's body (RocketMQ's CheckClientRequestBody):
//   {"clientId":"...","group":"G","subscriptionData":{...SubscriptionData...}}
// A consumer sends one per subscription to every broker before it starts.
struct CheckClientRequestBody {
  std::string client_id;  // "clientId"
  std::string group;
  std::optional<SubscriptionData> subscription_data;

  // Errors: as HeartbeatData::decode.
  static Result<CheckClientRequestBody> decode(Bytes body);
  std::vector<std::uint8_t> encode() const;
  bool operator==(const CheckClientRequestBody&) const = default;
};

}  // namespace ferry::remoting::body
