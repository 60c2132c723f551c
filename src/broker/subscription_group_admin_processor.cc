#include "broker/subscription_group_admin_processor.h"

#include <fmt/format.h>

#include "common/names.h"
#include "remoting/body/body_json.h"
#include "remoting/header/topic_admin_header.h"
#include "remoting/response_code.h"

namespace ferry::broker {

namespace code = remoting::response_code;
namespace json = remoting::json;

Task<Reply> SubscriptionGroupAdminProcessor::update(RequestContext ctx) {
  auto doc = remoting::body::parse_body(ctx.request.body, "SubscriptionGroupConfig");
  if (!doc) co_return bad_header(ctx.request, doc.error());
  json::JsonErrors errors;
  SubscriptionGroupConfig c = SubscriptionGroupConfig::read(*doc, "SubscriptionGroupConfig", errors);
  if (errors.failed()) co_return bad_header(ctx.request, errors.take());
  if (Status v = validate_group(c.group_name); !v) {
    co_return reply(ctx.request, code::SYSTEM_ERROR, "SubscriptionGroupConfig.groupName: " + v.error().detail);
  }
  if (c.retry_queue_nums < 0 || c.retry_queue_nums > 1024) {
    co_return reply(ctx.request, code::SYSTEM_ERROR,
                    fmt::format("SubscriptionGroupConfig.retryQueueNums: {} is not in 0..1024", c.retry_queue_nums));
  }
  if (c.retry_max_times < -1) {
    co_return reply(ctx.request, code::SYSTEM_ERROR,
                    fmt::format("SubscriptionGroupConfig.retryMaxTimes: {} is below -1", c.retry_max_times));
  }
  groups_.put(std::move(c));
  co_return reply(ctx.request, code::SUCCESS);
}

Task<Reply> SubscriptionGroupAdminProcessor::get_all(RequestContext ctx) {
  RemotingCommand r = reply(ctx.request, code::SUCCESS);
  const std::string text = SubscriptionGroupManager::encode(groups_.table(), groups_.data_version());
  r.body.assign(text.begin(), text.end());
  co_return r;
}

Task<Reply> SubscriptionGroupAdminProcessor::get_one(RequestContext ctx) {
  auto h = remoting::GetSubscriptionGroupConfigRequestHeader::from_fields(ctx.request.ext_fields);
  if (!h) co_return bad_header(ctx.request, h.error());
  const SubscriptionGroupConfig* c = groups_.find(h->group);
  if (c == nullptr) co_return reply(ctx.request, code::SYSTEM_ERROR, "No group in this broker");
  RemotingCommand r = reply(ctx.request, code::SUCCESS);
  r.body = remoting::body::write_body([c](json::Writer& w) { c->write(w); });
  co_return r;
}

Task<Reply> SubscriptionGroupAdminProcessor::remove(RequestContext ctx) {
  auto h = remoting::DeleteSubscriptionGroupRequestHeader::from_fields(ctx.request.ext_fields);
  if (!h) co_return bad_header(ctx.request, h.error());
  if (h->remove_offset && !remove_offsets_) {
    co_return reply(ctx.request, code::SYSTEM_ERROR,
                    fmt::format("removeOffset: this broker cannot remove the offsets of group '{}'", h->group_name));
  }
  (void)groups_.remove(h->group_name);
  if (h->remove_offset) remove_offsets_(h->group_name);
  co_return reply(ctx.request, code::SUCCESS);
}

}  // namespace ferry::broker
