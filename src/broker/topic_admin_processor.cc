#include "broker/topic_admin_processor.h"

#include <fmt/format.h>

#include "common/names.h"
#include "remoting/header/topic_admin_header.h"
#include "remoting/response_code.h"

namespace ferry::broker {

namespace code = remoting::response_code;

Task<Reply> TopicAdminProcessor::create_or_update(RequestContext ctx) {
  auto h = remoting::CreateTopicRequestHeader::from_fields(ctx.request.ext_fields);
  if (!h) co_return bad_header(ctx.request, h.error());
  if (Status valid = validate_topic(h->topic); !valid) co_return reply(ctx.request, code::SYSTEM_ERROR, valid.error().detail);
  if (is_system_topic(h->topic)) {
    co_return reply(ctx.request, code::SYSTEM_ERROR, fmt::format("the topic[{}] is conflict with system topic", h->topic));
  }
  if (h->topic == config_.broker_cluster_name) {
    co_return reply(ctx.request, code::SYSTEM_ERROR, fmt::format("the topic[{}] is conflict with the cluster name", h->topic));
  }
  for (const auto& [name, n] : {std::pair{"readQueueNums", h->read_queue_nums}, std::pair{"writeQueueNums", h->write_queue_nums}}) {
    if (n < 1 || n > kTopicQueueNumsMax) {
      co_return reply(ctx.request, code::SYSTEM_ERROR,
                      fmt::format("CreateTopicRequestHeader: field {} = {} is not in 1..{}", name, n, kTopicQueueNumsMax));
    }
  }
  if (h->perm < 0 || h->perm > 15) {
    co_return reply(ctx.request, code::SYSTEM_ERROR, fmt::format("CreateTopicRequestHeader: field perm = {} is not in 0..15", h->perm));
  }
  TopicConfig c;
  c.topic_name = h->topic;
  c.read_queue_nums = h->read_queue_nums;
  c.write_queue_nums = h->write_queue_nums;
  c.perm = h->perm;
  c.topic_filter_type = h->topic_filter_type;
  c.topic_sys_flag = h->topic_sys_flag.value_or(0);
  c.order = h->order;
  if (Status put = topics_.put(std::move(c)); !put) co_return reply(ctx.request, code::SYSTEM_ERROR, put.error().detail);
  co_return reply(ctx.request, code::SUCCESS);
}

Task<Reply> TopicAdminProcessor::remove(RequestContext ctx) {
  auto h = remoting::DeleteTopicRequestHeader::from_fields(ctx.request.ext_fields);
  if (!h) co_return bad_header(ctx.request, h.error());
  const std::string& topic = h->topic;
  if (is_system_topic(topic)) {
    co_return reply(ctx.request, code::SYSTEM_ERROR, fmt::format("the topic[{}] is a system topic", topic));
  }
  (void)topics_.remove(topic);
  offsets_.remove_topic(topic);
  co_return reply(ctx.request, code::SUCCESS);
}

}  // namespace ferry::broker
