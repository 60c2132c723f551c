// The message model: Message (what a producer sends) and MessageExt (a stored message as a
// consumer or the store sees it).
//
// Typed accessors read and write the well-known properties (message_const.h). Getters of text
// properties return nullopt when the property is absent; numeric getters return an error
// (invalid_argument, naming the property and its text) when the text is not a number, because a
// malformed DELAY or REAL_QID must not be silently taken as "absent".
#pragma once

#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "common/host_port.h"
#include "common/offsets.h"
#include "common/properties.h"
#include "runtime/result.h"
#include "runtime/time.h"

namespace ferry {

struct Message {
  std::string topic;
  std::int32_t flag = 0;  // opaque to RocketMQ; carried as is
  std::vector<std::uint8_t> body;
  Properties properties;

  // TAGS: one tag (RocketMQ 4.x messages carry at most one).
  std::optional<std::string_view> tags() const;
  void set_tags(std::string_view tags);

  // KEYS: business keys, space-separated in the property. keys() splits it, dropping empty
  // pieces; the views live as long as the property is unchanged.
  std::vector<std::string_view> keys() const;
  void set_keys(std::span<const std::string> keys);
  void set_keys(std::string_view space_separated);

  // UNIQ_KEY: the client-side unique id (unique_id.h).
  std::optional<std::string_view> uniq_key() const;
  void set_uniq_key(std::string id);

  // DELAY: delay level (1..18 for the default table; 0 = none). Absent means 0.
  Result<std::int32_t> delay_level() const;
  void set_delay_level(std::int32_t level);

  // Timer messages (RocketMQ 5's Message.setDelayTimeSec / setDelayTimeMs / setDeliverTimeMs):
  // deliver after a delay, or at an absolute wall-clock time (ms since the epoch); the broker
  // keeps the message on its timer wheel until then (docs/store.md "Timer messages"). A delay
  // level, when set too, wins.
  void set_delay_time_sec(std::int64_t seconds);
  void set_delay_time_ms(std::int64_t ms);
  void set_deliver_time_ms(WallMs at);

  // WAIT: whether the sender waits for flush / replication. Absent means true; otherwise true
  // only for "true" in any letter case (Java's Boolean.parseBoolean).
  bool wait_store_ok() const;
  void set_wait_store_ok(bool wait);

  std::optional<std::string_view> retry_topic() const;
  void set_retry_topic(std::string_view topic);
  std::optional<std::string_view> real_topic() const;
  void set_real_topic(std::string_view topic);
  Result<std::optional<QueueId>> real_queue_id() const;
  void set_real_queue_id(QueueId id);
  std::optional<std::string_view> origin_message_id() const;
  void set_origin_message_id(std::string_view id);
  Result<std::optional<std::int32_t>> max_reconsume_times() const;
  void set_max_reconsume_times(std::int32_t times);
  std::optional<std::string_view> cluster() const;
  void set_cluster(std::string_view cluster);

  bool operator==(const Message&) const = default;
};

// A stored message: a Message plus what the broker assigned when it stored it.
struct MessageExt : Message {
  QueueId queue_id;
  QueueOffset queue_offset;
  PhysicalOffset physical_offset;  // the record's CommitLog offset
  std::int32_t store_size = 0;     // the record's total size in bytes
  std::int32_t sys_flag = 0;       // sys_flag.h
  WallMs born_timestamp_ms = 0;
  HostPort born_host;
  WallMs store_timestamp_ms = 0;
  HostPort store_host;
  std::int32_t reconsume_times = 0;
  std::int64_t prepared_transaction_offset = 0;
  std::int32_t body_crc = 0;  // zlib crc32 of the stored body & 0x7FFFFFFF
  std::string offset_msg_id;  // store host + physical offset (msg_id.h)

  // The id a consumer shows: UNIQ_KEY when present, else the offset msgId (as RocketMQ's
  // MessageClientExt.getMsgId does).
  std::string_view msg_id() const;

  bool operator==(const MessageExt&) const = default;
};

// Parses a decimal int32 property value. Errors: invalid_argument naming `key` and the text.
Result<std::int32_t> parse_int32_property(std::string_view key, std::string_view text);

}  // namespace ferry
