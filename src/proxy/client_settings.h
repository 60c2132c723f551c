// The settings a client sends on its Telemetry stream and the ones the proxy answers with
// (RocketMQ 5's proxy, ClientActivity and GrpcClientSettingsManager; facts in
// docs/rocketmq5-proxy-facts.md §5).
//
//   ClientSettingsStore store(4096);
//   V2Result<v2::Settings> answer = store.accept("client-1", command.settings());   // SETTINGS
//   v2::Status s = store.heartbeat("client-1");                                        // Heartbeat
//   v2::Status t = store.terminate("client-1");                                        // NotifyClientTermination
//
// accept(): settings with neither publishing nor subscription are refused (RocketMQ fails the
// stream with INVALID_ARGUMENT); the topics and the group are checked (ILLEGAL_TOPIC,
// ILLEGAL_CONSUMER_GROUP). The answer echoes the client's settings with the proxy's on top:
//   a producer: backoff_policy = {3 attempts, exponential 10 ms .. 1 s, x2} (what the Node.js client
//     needs to start), publishing.validate_message_type = true, publishing.max_body_size = the
//     proxy's body limit (a client adopts it; 0 would refuse every send);
//   a consumer: receive_batch_size 32, long_polling_timeout 20 s, fifo false (MessagingCore's
//     telemetry_with_group sets it from the group's consumeMessageOrderly), backoff_policy = {retryMaxTimes + 1 = 17
//     attempts, customized 1s 5s 10s 30s 1m .. 2h};
//   metric = {on: false}.
// Bounded: at most `clients_max` clients (a new one beyond is refused TOO_MANY_REQUESTS).
#pragma once

#include <cstdint>
#include <map>
#include <string>
#include <vector>

#include "apache/rocketmq/v2/definition.pb.h"
#include "proxy/v2_send.h"

namespace ferry::proxy {

class ClientSettingsStore {
 public:
  ClientSettingsStore(std::size_t clients_max, std::int64_t max_body_bytes)
      : clients_max_(clients_max), max_body_bytes_(max_body_bytes) {}

  // The settings to answer the client's SETTINGS command with, or the refusal.
  V2Result<v2::Settings> accept(const std::string& client_id, const v2::Settings& settings);
  // {OK} when the client sent its settings; else UNRECOGNIZED_CLIENT_TYPE.
  v2::Status heartbeat(const std::string& client_id) const;
  // Forgets the client: {OK}, or UNRECOGNIZED_CLIENT_TYPE when it was not known.
  v2::Status terminate(const std::string& client_id);

  // What the client was answered (nullptr: unknown).
  const v2::Settings* find(const std::string& client_id) const;
  // The clients whose publishing settings name `topic`, by client id.
  std::vector<std::string> publishers_of(const std::string& topic) const;
  std::size_t size() const { return clients_.size(); }

 private:
  std::size_t clients_max_;
  std::int64_t max_body_bytes_;
  std::map<std::string, v2::Settings> clients_;
};

}  // namespace ferry::proxy
