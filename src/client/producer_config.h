// ProducerConfig: the knobs of one producer (RocketMQ's DefaultMQProducer), with its defaults.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>

#include "common/compression.h"
#include "common/names.h"
#include "runtime/time.h"

namespace ferry::client {

struct ProducerConfig {
  std::string group = "DEFAULT_PRODUCER";                       // producerGroup
  std::string create_topic_key = std::string(kAutoCreateTopicKey);  // createTopicKey (TBW102)
  std::int32_t default_topic_queue_nums = 4;                    // defaultTopicQueueNums
  // sendMsgTimeout: the whole send, retries included.
  Duration send_timeout = std::chrono::seconds(3);
  // compressMsgBodyOverHowmuch / compressLevel: bodies of this size and more are zlib'd.
  std::size_t compress_body_over_bytes = kCompressBodyOverBytes;
  int compress_level = kDefaultZlibLevel;
  std::int32_t retry_times_when_send_failed = 2;        // sync: retries on another broker
  std::int32_t retry_times_when_send_async_failed = 2;  // async: the same for callback sends
  // retryAnotherBrokerWhenNotStoreOK: a sync send answered FLUSH_DISK_TIMEOUT / FLUSH_SLAVE_TIMEOUT
  // / SLAVE_NOT_AVAILABLE is retried on another broker instead of returned.
  bool retry_another_broker_when_not_store_ok = false;
  std::size_t max_message_size_bytes = 4 * 1024 * 1024;  // maxMessageSize (body bytes)
  bool send_latency_fault_enable = false;                // sendLatencyFaultEnable
  // Async sends in flight at most; beyond, the callback gets Errc::busy at once (RocketMQ's
  // back-pressure semaphore).
  std::size_t async_sends_in_flight_max = 10'000;
  // enableMsgTrace: a Pub trace record for each stored send (trace_dispatcher.h), to trace_topic
  // (customizedTraceTopic; empty = RMQ_SYS_TRACE_TOPIC).
  bool enable_msg_trace = false;
  std::string trace_topic;

  void check() const;
};

}  // namespace ferry::client
