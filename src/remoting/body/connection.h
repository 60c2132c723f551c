// The connection bodies of RocketMQ's admin requests (fields in fastjson's alphabetical order):
//   Connection         {"clientAddr":"ip:port","clientId":"..","language":"JAVA","version":407}
//   GET_CONSUMER_CONNECTION_LIST (203) → ConsumerConnection
//     {"connectionSet":[Connection...],"consumeFromWhere":"CONSUME_FROM_LAST_OFFSET",
//      "consumeType":"CONSUME_PASSIVELY","messageModel":"CLUSTERING",
//      "subscriptionTable":{"T":SubscriptionData...}}
//   GET_PRODUCER_CONNECTION_LIST (204) → ProducerConnection {"connectionSet":[Connection...]}
// The language is kept as the text the peer wrote (a newer client may name one Ferry lacks).
#pragma once

#include <cstdint>
#include <map>
#include <string>
#include <vector>

#include "remoting/body/consumer_enums.h"
#include "remoting/body/heartbeat_data.h"
#include "runtime/bytes.h"
#include "runtime/result.h"

namespace ferry::remoting::body {

// The most connections a body may list when read (more is an error).
inline constexpr std::size_t kConnectionsMax = 100'000;

struct Connection {
  std::string client_id;
  std::string client_addr;  // "ip:port" of the client's connection, as the broker sees it
  std::string language;     // LanguageCode's Java name ("JAVA", "CPP")
  std::int32_t version = 0;

  static Connection read(const rapidjson::Value& v, std::string path, json::JsonErrors& e);
  void write(json::Writer& w) const;
  bool operator==(const Connection&) const = default;
};

struct ConsumerConnection {
  std::vector<Connection> connection_set;  // sorted by client id when the broker writes it
  std::map<std::string, SubscriptionData> subscription_table;  // by topic
  ConsumeType consume_type = ConsumeType::CONSUME_PASSIVELY;
  MessageModel message_model = MessageModel::CLUSTERING;
  ConsumeFromWhere consume_from_where = ConsumeFromWhere::CONSUME_FROM_LAST_OFFSET;

  // Errors (corrupt / invalid_argument) name the field's path or the unknown enum name.
  static Result<ConsumerConnection> decode(Bytes body);
  std::vector<std::uint8_t> encode() const;
  bool operator==(const ConsumerConnection&) const = default;
};

struct ProducerConnection {
  std::vector<Connection> connection_set;

  static Result<ProducerConnection> decode(Bytes body);
  std::vector<std::uint8_t> encode() const;
  bool operator==(const ProducerConnection&) const = default;
};

}  // namespace ferry::remoting::body
