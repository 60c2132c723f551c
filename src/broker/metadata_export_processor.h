// MetadataExportProcessor: a broker's whole metadata tables for its slaves (and admin tools):
// GET_ALL_TOPIC_CONFIG (21), GET_ALL_CONSUMER_OFFSET (43), GET_ALL_DELAY_OFFSET (45)
// (RocketMQ's AdminBrokerProcessor; GET_ALL_SUBSCRIPTIONGROUP_CONFIG 201 is
// SubscriptionGroupAdminProcessor's). No request header; each reply body is the table as its
// file under config/ holds it, the JSON RocketMQ 4.9 writes:
//   21: TopicConfigSerializeWrapper {"dataVersion":{"counter":N,"timestamp":ms},
//       "topicConfigTable":{"T":{...TopicConfig...}}}
//   43: ConsumerOffsetSerializeWrapper {"offsetTable":{"topic@group":{"0":12,"1":7}}}
//   45: the delay offsets {"offsetTable":{"1":12,"3":0}} (level → next queue offset)
// Replies: SUCCESS with the body, encoded from memory when the request is served (the newest
// state, persisted or not). A body that would not fit in a frame (kFrameBytesMaxDefault) →
// SYSTEM_ERROR (1) naming its size, as no peer could read it.
#pragma once

#include "broker/consumer_offset_manager.h"
#include "broker/replies.h"
#include "broker/schedule_message_service.h"
#include "broker/topic_config_manager.h"

namespace ferry::broker {

class MetadataExportProcessor {
 public:
  MetadataExportProcessor(TopicConfigManager& topics, ConsumerOffsetManager& offsets, ScheduleMessageService& schedule)
      : topics_(topics), offsets_(offsets), schedule_(schedule) {}

  Task<Reply> all_topics(RequestContext ctx);
  Task<Reply> all_consumer_offsets(RequestContext ctx);
  Task<Reply> all_delay_offsets(RequestContext ctx);

 private:
  TopicConfigManager& topics_;
  ConsumerOffsetManager& offsets_;
  ScheduleMessageService& schedule_;
};

}  // namespace ferry::broker
