#include "broker/retry_topics.h"

namespace ferry::broker {

const TopicConfig* ensure_topic(TopicConfigManager& topics, std::string_view topic, std::int32_t queues,
                                std::int32_t perm, std::int32_t topic_sys_flag) {
  if (const TopicConfig* existing = topics.find(topic)) return existing;
  if (queues <= 0) return nullptr;
  TopicConfig c;
  c.topic_name = std::string(topic);
  c.read_queue_nums = queues;
  c.write_queue_nums = queues;
  c.perm = perm;
  c.topic_sys_flag = topic_sys_flag;
  if (!topics.put(std::move(c))) return nullptr;  // the table is full (put logs nothing; callers reply)
  return topics.find(topic);
}

}  // namespace ferry::broker
