// BrokerConfigProcessor: UPDATE_BROKER_CONFIG (25) and GET_BROKER_CONFIG (26), RocketMQ 4.9's
// shapes (AdminBrokerProcessor.updateBrokerConfig / getBrokerConfig):
//   25: body = properties text ("key=value" lines) → the keys change in the running broker
//       (broker/runtime_config.h says which may) and, through the persister the daemon installs,
//       in the broker.conf it started from; SUCCESS. Refusals, SYSTEM_ERROR (1) with a remark
//       naming the key: an unknown key, a key that cannot change at run time, a bad value, a
//       malformed body (nothing changes then). A persister failure → SYSTEM_ERROR saying the
//       change is applied but not saved. An empty body changes nothing (SUCCESS, as RocketMQ).
//   26: no header → body = the reported settings as properties text, reply header `version` =
//       the settings' DataVersion JSON {"counter":N,"timestamp":ms} (counter + 1 per update).
// Without a persister (the simulator) changes live in memory only.
#pragma once

#include <functional>
#include <map>
#include <string>

#include "broker/broker_config.h"
#include "broker/replies.h"
#include "runtime/runtime.h"

namespace ferry::broker {

class BrokerConfigProcessor {
 public:
  // Writes `changes` into the broker's configuration file. Called on the node's loop after the
  // changes are applied; errors are reported to the requester.
  using Persister = std::function<Status(const std::map<std::string, std::string>& changes)>;

  // `config` is the broker's own (changed in place); `on_changed` runs after each applied update
  // (the broker registers with the NameServers, so a new brokerPermission shows in routes).
  BrokerConfigProcessor(Runtime& rt, BrokerConfig& config, std::function<void()> on_changed)
      : rt_(rt), config_(config), on_changed_(std::move(on_changed)) {}

  void set_persister(Persister p) { persister_ = std::move(p); }

  Task<Reply> update(RequestContext ctx);
  Task<Reply> get(RequestContext ctx);

  std::int64_t version_counter() const { return counter_; }

 private:
  Runtime& rt_;
  BrokerConfig& config_;
  std::function<void()> on_changed_;
  Persister persister_;
  std::int64_t counter_ = 0;
  std::int64_t timestamp_ms_ = 0;
};

}  // namespace ferry::broker
