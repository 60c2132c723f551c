#include "remoting/body/subscription_group_config.h"

#include "remoting/body/body_json.h"

namespace ferry::remoting::body {

SubscriptionGroupConfig SubscriptionGroupConfig::read(const rapidjson::Value& v, std::string path,
                                                      json::JsonErrors& errors) {
  json::ObjectReader r(v, std::move(path), errors);
  SubscriptionGroupConfig c;
  c.group_name = r.string("groupName");
  c.consume_enable = r.boolean_or("consumeEnable", true);
  c.consume_from_min_enable = r.boolean_or("consumeFromMinEnable", true);
  c.consume_broadcast_enable = r.boolean_or("consumeBroadcastEnable", true);
  c.retry_queue_nums = r.int32_or("retryQueueNums", 1);
  c.retry_max_times = r.int32_or("retryMaxTimes", kRetryMaxTimesDefault);
  c.broker_id = r.int64_or("brokerId", 0);
  c.which_broker_when_consume_slowly = r.int64_or("whichBrokerWhenConsumeSlowly", 1);
  c.notify_consumer_ids_changed_enable = r.boolean_or("notifyConsumerIdsChangedEnable", true);
  c.consume_message_orderly = r.boolean_or("consumeMessageOrderly", false);
  return c;
}

void SubscriptionGroupConfig::write(json::Writer& w) const {
  w.StartObject();
  write_string_field(w, "groupName", group_name);
  w.Key("consumeEnable");
  w.Bool(consume_enable);
  w.Key("consumeFromMinEnable");
  w.Bool(consume_from_min_enable);
  w.Key("consumeBroadcastEnable");
  w.Bool(consume_broadcast_enable);
  w.Key("retryQueueNums");
  w.Int(retry_queue_nums);
  w.Key("retryMaxTimes");
  w.Int(retry_max_times);
  w.Key("brokerId");
  w.Int64(broker_id);
  w.Key("whichBrokerWhenConsumeSlowly");
  w.Int64(which_broker_when_consume_slowly);
  w.Key("notifyConsumerIdsChangedEnable");
  w.Bool(notify_consumer_ids_changed_enable);
  w.Key("consumeMessageOrderly");
  w.Bool(consume_message_orderly);
  w.EndObject();
}

}  // namespace ferry::remoting::body
