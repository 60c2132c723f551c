#include "broker/consumer_offset_processor.h"

#include <fmt/format.h>

#include <algorithm>

#include "common/names.h"
#include "remoting/header/consumer_offset_header.h"
#include "remoting/response_code.h"

namespace ferry::broker {

namespace code = remoting::response_code;

ConsumerOffsetProcessor::ConsumerOffsetProcessor(const BrokerConfig& config, store::MessageStore& store,
                                                 const TopicConfigManager& topics, ConsumerOffsetManager& offsets)
    : config_(config), store_(store), topics_(topics), offsets_(offsets) {}

bool ConsumerOffsetProcessor::first_message_on_disk(const std::string& topic, QueueId queue) const {
  const store::ConsumeQueue* q = store_.find_queue(topic, queue);
  if (q == nullptr || q->max_offset().value() == 0) return false;
  auto unit = q->read(q->min_offset());
  if (!unit || !unit->is_message()) return false;
  const std::int64_t behind = store_.max_phy_offset() - unit->commit_log_offset;
  return behind > in_memory_reach_bytes(config_);
}

Task<Reply> ConsumerOffsetProcessor::query(RequestContext ctx) {
  auto h = remoting::QueryConsumerOffsetRequestHeader::from_fields(ctx.request.ext_fields);
  if (!h) co_return bad_header(ctx.request, h.error());
  std::optional<QueueOffset> offset = offsets_.query(h->consumer_group, h->topic, h->queue_id);
  if (!offset) {
    const QueueOffset min = store_.min_offset(h->topic, h->queue_id);
    if (min.value() <= 0 && !first_message_on_disk(h->topic, h->queue_id)) offset = QueueOffset(0);
  }
  if (!offset) {
    co_return reply(ctx.request, code::QUERY_NOT_FOUND,
                    fmt::format("Not found: group[{}] has no committed offset for {}:{}", h->consumer_group,
                                h->topic, h->queue_id));
  }
  RemotingCommand out = reply(ctx.request, code::SUCCESS);
  out.ext_fields = remoting::QueryConsumerOffsetResponseHeader{*offset}.to_fields();
  co_return out;
}

Task<Reply> ConsumerOffsetProcessor::update(RequestContext ctx) {
  auto h = remoting::UpdateConsumerOffsetRequestHeader::from_fields(ctx.request.ext_fields);
  if (!h) co_return bad_header(ctx.request, h.error());
  if (h->commit_offset < QueueOffset(0) || h->queue_id < QueueId(0)) {
    co_return reply(ctx.request, code::SYSTEM_ERROR,
                    fmt::format("UpdateConsumerOffsetRequestHeader: queueId {} / commitOffset {} must not be negative",
                                h->queue_id, h->commit_offset));
  }
  for (const Status& valid : {validate_group(h->consumer_group), validate_topic(h->topic)}) {
    if (!valid) co_return reply(ctx.request, code::SYSTEM_ERROR, valid.error().detail);
  }
  const TopicConfig* tc = topics_.find(h->topic);
  if (tc == nullptr) co_return reply(ctx.request, code::TOPIC_NOT_EXIST, fmt::format("topic[{}] not exist", h->topic));
  if (h->queue_id.value() >= std::max(tc->read_queue_nums, tc->write_queue_nums)) {
    co_return reply(ctx.request, code::SYSTEM_ERROR,
                    fmt::format("queueId[{}] is illegal, topic:[{}] has {} queues", h->queue_id, h->topic,
                                std::max(tc->read_queue_nums, tc->write_queue_nums)));
  }
  Status committed = offsets_.commit(h->consumer_group, h->topic, h->queue_id, h->commit_offset);
  if (!committed) co_return reply(ctx.request, code::SYSTEM_ERROR, committed.error().detail);
  co_return reply(ctx.request, code::SUCCESS);
}

}  // namespace ferry::broker
