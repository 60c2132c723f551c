#include "broker/broker_config_processor.h"

#include <fmt/format.h>

#include "broker/runtime_config.h"
#include "remoting/body/properties_text.h"
#include "remoting/response_code.h"

namespace ferry::broker {

namespace code = remoting::response_code;

Task<Reply> BrokerConfigProcessor::update(RequestContext ctx) {
  const std::string text(ctx.request.body.begin(), ctx.request.body.end());
  auto changes = remoting::body::parse_properties_text(text);
  if (!changes.ok()) co_return reply(ctx.request, code::SYSTEM_ERROR, "updateBrokerConfig: " + changes.error().detail);
  if (changes->empty()) co_return reply(ctx.request, code::SUCCESS);
  if (Status s = apply_runtime_changes(config_, *changes); !s.ok()) {
    co_return reply(ctx.request, code::SYSTEM_ERROR, "updateBrokerConfig: " + s.error().detail);
  }
  ++counter_;
  timestamp_ms_ = rt_.wall_ms();
  std::string what;
  for (const auto& [k, v] : *changes) what += fmt::format("{}{}={}", what.empty() ? "" : ", ", k, v);
  rt_.log().info("updateBrokerConfig from {}: {}", ctx.channel ? ctx.channel->peer_text() : "?", what);
  if (on_changed_) on_changed_();
  if (persister_) {
    if (Status p = persister_(*changes); !p.ok()) {
      co_return reply(ctx.request, code::SYSTEM_ERROR,
                      fmt::format("updateBrokerConfig: applied, but not saved to the configuration file: {}",
                                  p.error().to_string()));
    }
  }
  co_return reply(ctx.request, code::SUCCESS);
}

Task<Reply> BrokerConfigProcessor::get(RequestContext ctx) {
  RemotingCommand r = reply(ctx.request, code::SUCCESS);
  const std::string text = remoting::body::properties_text(reported_settings(config_));
  r.body.assign(text.begin(), text.end());
  r.ext_fields.set("version", fmt::format(R"({{"counter":{},"timestamp":{}}})", counter_, timestamp_ms_));
  co_return r;
}

}  // namespace ferry::broker
