#include "client/consumer_config.h"

#include "common/names.h"
#include "runtime/assert.h"

namespace ferry::client {

void PushConsumerConfig::check() const {
  FERRY_ASSERT(pull_batch_size >= 1 && pull_batch_size <= 1024, "PushConsumerConfig: pull_batch_size {}", pull_batch_size);
  FERRY_ASSERT(consume_message_batch_max_size >= 1 && consume_message_batch_max_size <= 1024,
               "PushConsumerConfig: consume_message_batch_max_size {}", consume_message_batch_max_size);
  FERRY_ASSERT(pull_threshold_for_queue >= 1, "PushConsumerConfig: pull_threshold_for_queue {}", pull_threshold_for_queue);
  FERRY_ASSERT(pull_threshold_size_for_queue_bytes >= 1, "PushConsumerConfig: pull_threshold_size_for_queue_bytes {}",
               pull_threshold_size_for_queue_bytes);
  FERRY_ASSERT(consume_threads >= 1 && consume_threads <= 1000, "PushConsumerConfig: consume_threads {}", consume_threads);
  FERRY_ASSERT(broker_suspend_max < pull_timeout_when_suspend,
               "PushConsumerConfig: the pull timeout {} ms must exceed the broker suspend {} ms",
               to_ms(pull_timeout_when_suspend), to_ms(broker_suspend_max));
  FERRY_ASSERT(lock_renew_interval < lock_max_live_time, "PushConsumerConfig: lock renewal {} ms >= lock life {} ms",
               to_ms(lock_renew_interval), to_ms(lock_max_live_time));
  FERRY_ASSERT(max_reconsume_times >= -1, "PushConsumerConfig: max_reconsume_times {}", max_reconsume_times);
  FERRY_ASSERT(consume_timeout > Duration::zero(), "PushConsumerConfig: consume_timeout {} ms", to_ms(consume_timeout));
  FERRY_ASSERT(!offset_store_dir.empty(), "PushConsumerConfig: empty offset_store_dir");
}

void LitePullConsumerConfig::check() const {
  FERRY_ASSERT(pull_batch_size >= 1 && pull_batch_size <= 1024, "LitePullConsumerConfig: pull_batch_size {}", pull_batch_size);
  FERRY_ASSERT(pull_threshold_for_all >= 1, "LitePullConsumerConfig: pull_threshold_for_all {}", pull_threshold_for_all);
  FERRY_ASSERT(pull_threshold_for_queue >= 1, "LitePullConsumerConfig: pull_threshold_for_queue {}", pull_threshold_for_queue);
  FERRY_ASSERT(broker_suspend_max < pull_timeout_when_suspend,
               "LitePullConsumerConfig: the pull timeout {} ms must exceed the broker suspend {} ms",
               to_ms(pull_timeout_when_suspend), to_ms(broker_suspend_max));
  FERRY_ASSERT(auto_commit_interval > Duration::zero(), "LitePullConsumerConfig: auto_commit_interval {} ms",
               to_ms(auto_commit_interval));
  FERRY_ASSERT(pull_delay_when_pause > Duration::zero(), "LitePullConsumerConfig: pull_delay_when_pause {} ms",
               to_ms(pull_delay_when_pause));
  FERRY_ASSERT(!offset_store_dir.empty(), "LitePullConsumerConfig: empty offset_store_dir");
}

}  // namespace ferry::client
