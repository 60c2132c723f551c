// UPDATE_NAMESRV_CONFIG (318) and GET_NAMESRV_CONFIG (319): the NameServer's settings as
// properties text (RocketMQ 4.9 DefaultRequestProcessor.updateConfig / getConfig).
#include <fmt/format.h>

#include <functional>
#include <vector>

#include "namesrv/request_processor.h"
#include "remoting/body/properties_text.h"
#include "remoting/decimal_text.h"
#include "remoting/response_code.h"

namespace ferry::namesrv {

namespace {

struct NamesrvKey {
  std::string_view key;
  std::function<std::string(const NameServerConfig&)> get;
  std::function<Status(NameServerConfig&, std::string_view)> set;  // nullptr: fixed while running
};

std::string ms_text(Duration d) { return std::to_string(std::chrono::duration_cast<std::chrono::milliseconds>(d).count()); }

const std::vector<NamesrvKey>& keys() {
  static const std::vector<NamesrvKey> table = {
      NamesrvKey{"orderMessageEnable", [](const NameServerConfig& c) { return std::string(c.order_message_enable ? "true" : "false"); },
                 [](NameServerConfig& c, std::string_view v) -> Status {
                   const std::optional<bool> b = remoting::parse_bool(v);
                   if (!b) return Error(Errc::invalid_argument, fmt::format("orderMessageEnable: \"{}\" is not true or false", v));
                   c.order_message_enable = *b;
                   return Status();
                 }},
      NamesrvKey{"listenPort", [](const NameServerConfig& c) { return std::to_string(c.listen_port); }, nullptr},
      NamesrvKey{"scanNotActiveBrokerInterval", [](const NameServerConfig& c) { return ms_text(c.scan_interval); }, nullptr},
      NamesrvKey{"brokerChannelExpiredTime", [](const NameServerConfig& c) { return ms_text(c.broker_expiry); }, nullptr},
  };
  return table;
}

const NamesrvKey* find_key(std::string_view key) {
  for (const NamesrvKey& k : keys()) {
    if (k.key == key) return &k;
  }
  return nullptr;
}

}  // namespace

remoting::RemotingCommand RequestProcessor::update_config(const remoting::RemotingCommand& request) {
  const std::string text(request.body.begin(), request.body.end());
  auto changes = remoting::body::parse_properties_text(text);
  if (!changes.ok()) return error_reply(request, "updateNamesrvConfig: " + changes.error().detail);
  NameServerConfig trial = config_;  // every change is checked before any is applied
  for (int pass = 0; pass < 2; ++pass) {
    NameServerConfig& target = pass == 0 ? trial : config_;
    for (const auto& [key, value] : *changes) {
      const NamesrvKey* k = find_key(key);
      if (k == nullptr) return error_reply(request, fmt::format("updateNamesrvConfig: key '{}' is not a NameServer setting Ferry knows", key));
      if (!k->set) {
        return error_reply(request, fmt::format("updateNamesrvConfig: key '{}' cannot change while the NameServer runs "
                                                "(edit its configuration file and restart)", key));
      }
      if (Status s = k->set(target, value); !s.ok()) return error_reply(request, "updateNamesrvConfig: " + s.error().detail);
    }
  }
  if (!changes->empty()) {
    rt_.log().info("updateNamesrvConfig: {}", remoting::body::properties_text(*changes));
    if (persister_) {
      if (Status p = persister_(*changes); !p.ok()) {
        return error_reply(request, "updateNamesrvConfig: applied, but not saved to the configuration file: " + p.error().to_string());
      }
    }
  }
  return remoting::make_response(request, remoting::response_code::SUCCESS);
}

remoting::RemotingCommand RequestProcessor::get_config(const remoting::RemotingCommand& request) {
  std::map<std::string, std::string> settings;
  for (const NamesrvKey& k : keys()) settings.emplace(std::string(k.key), k.get(config_));
  remoting::RemotingCommand reply = remoting::make_response(request, remoting::response_code::SUCCESS);
  const std::string text = remoting::body::properties_text(settings);
  reply.body.assign(text.begin(), text.end());
  return reply;
}

}  // namespace ferry::namesrv
