// SEND_MESSAGE (10) / SEND_MESSAGE_V2 (310) / SEND_BATCH_MESSAGE (320) request header, and the
// send reply header.
//
// V1 uses RocketMQ's field names; V2 (also used for batches) the same fields under one-letter
// names to save bytes: a producerGroup, b topic, c defaultTopic, d defaultTopicQueueNums,
// e queueId, f sysFlag, g bornTimestamp, h flag, i properties, j reconsumeTimes, k unitMode,
// l maxReconsumeTimes, m batch, n brokerName.
//
// Each struct names its extFields once, in fields(), which the decoders and encoders walk
// (remoting/header/field_codec.h says what required / optional mean); the request's table gives
// each field's V1 and V2 names side by side.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "common/offsets.h"
#include "remoting/ext_fields.h"
#include "remoting/header/field_codec.h"
#include "runtime/bytes.h"
#include "runtime/result.h"

namespace ferry::remoting {

struct SendMessageRequestHeader {
  std::string producer_group;
  std::string topic;
  std::string default_topic;            // the template topic for auto-creation (TBW102)
  std::int32_t default_topic_queue_nums = 0;
  QueueId queue_id;                     // < 0: the broker picks a writable queue
  std::int32_t sys_flag = 0;
  std::int64_t born_timestamp = 0;      // ms since the epoch, the producer's clock
  std::int32_t flag = 0;
  std::optional<std::string> properties;  // "k\x01v\x02k\x01v"
  std::optional<std::int32_t> reconsume_times;
  bool unit_mode = false;
  bool batch = false;
  std::optional<std::int32_t> max_reconsume_times;
  std::optional<std::string> broker_name;  // RocketMQ 5 clients only (V1 "bname", V2 "n")

  enum class Version : std::uint8_t { v1, v2 };
  // Fields in wire order; unit_mode and batch are always written, absent optionals never.
  static constexpr auto fields(Version version) {
    using H = SendMessageRequestHeader;
    const auto name = [version](std::string_view v1, std::string_view v2) {
      return version == Version::v1 ? v1 : v2;
    };
    return header_table(name("SendMessageRequestHeader", "SendMessageRequestHeaderV2"),
                        required(name("producerGroup", "a"), &H::producer_group),
                        required(name("topic", "b"), &H::topic),
                        required(name("defaultTopic", "c"), &H::default_topic),
                        required(name("defaultTopicQueueNums", "d"), &H::default_topic_queue_nums),
                        required(name("queueId", "e"), &H::queue_id),
                        required(name("sysFlag", "f"), &H::sys_flag),
                        required(name("bornTimestamp", "g"), &H::born_timestamp),
                        required(name("flag", "h"), &H::flag),
                        optional(name("properties", "i"), &H::properties),
                        optional(name("reconsumeTimes", "j"), &H::reconsume_times),
                        optional(name("unitMode", "k"), &H::unit_mode),
                        optional(name("maxReconsumeTimes", "l"), &H::max_reconsume_times),
                        optional(name("batch", "m"), &H::batch),
                        optional(name("bname", "n"), &H::broker_name));
  }

  // Errors name the missing or malformed field, e.g. "SendMessageRequestHeader: missing field
  // topic" / "SendMessageRequestHeaderV2: field e = \"x\" is not an int32".
  static Result<SendMessageRequestHeader> from_fields(const ExtFields& f) {  // V1 names
    return fields(Version::v1).decode(f);
  }
  static Result<SendMessageRequestHeader> from_fields_v2(const ExtFields& f) {  // a..n
    return fields(Version::v2).decode(f);
  }
  // V1 for SEND_MESSAGE; V2 for SEND_MESSAGE_V2 and SEND_BATCH_MESSAGE; another code is an
  // Errc::invalid_argument error.
  static Result<SendMessageRequestHeader> from_request(std::int32_t code, const ExtFields& f);
  // The same, moving the string values out of `f` (a processor decoding the request it owns).
  static Result<SendMessageRequestHeader> from_request(std::int32_t code, ExtFields&& f);
  // The same from the request's extFields in the binary header's entry form
  // (RemotingCommand::raw_ext_fields); malformed entries are Errc::corrupt.
  static Result<SendMessageRequestHeader> from_request_binary(std::int32_t code, Bytes entries);
  // The V2 fields appended to `out` in the binary header's entry form (for raw_ext_fields).
  void to_binary_v2(std::vector<std::uint8_t>& out) const { fields(Version::v2).encode_binary(*this, out); }
  // The rvalue forms move the header's strings into the fields.
  ExtFields to_fields() const& { return fields(Version::v1).encode(*this); }
  ExtFields to_fields() && { return fields(Version::v1).encode(std::move(*this)); }
  ExtFields to_fields_v2() const& { return fields(Version::v2).encode(*this); }
  ExtFields to_fields_v2() && { return fields(Version::v2).encode(std::move(*this)); }

  bool operator==(const SendMessageRequestHeader&) const = default;
};

struct SendMessageResponseHeader {
  std::string msg_id;  // offset msgId(s), uppercase hex, comma-joined for a batch
  QueueId queue_id;
  QueueOffset queue_offset;  // of the first message of a batch
  std::optional<std::string> transaction_id;
  std::optional<std::string> msg_region;  // extField "MSG_REGION"
  std::optional<std::string> trace_on;    // extField "TRACE_ON" ("true"/"false")

  static constexpr auto fields() {
    using H = SendMessageResponseHeader;
    return header_table("SendMessageResponseHeader",
                        required("msgId", &H::msg_id),
                        required("queueId", &H::queue_id),
                        required("queueOffset", &H::queue_offset),
                        optional("transactionId", &H::transaction_id),
                        optional("MSG_REGION", &H::msg_region),
                        optional("TRACE_ON", &H::trace_on));
  }
  // Errors (Errc::invalid_argument) name the missing or malformed field.
  static Result<SendMessageResponseHeader> from_fields(const ExtFields& f) {
    return fields().decode(f);
  }
  // The same from the reply's extFields in the binary header's entry form (raw_ext_fields).
  static Result<SendMessageResponseHeader> from_binary(Bytes entries) { return fields().decode_binary(entries); }
  ExtFields to_fields() const& { return fields().encode(*this); }
  ExtFields to_fields() && { return fields().encode(std::move(*this)); }
  // The fields appended to `out` in the binary header's entry form (for raw_ext_fields).
  void to_binary(std::vector<std::uint8_t>& out) const { fields().encode_binary(*this, out); }

  bool operator==(const SendMessageResponseHeader&) const = default;
};

}  // namespace ferry::remoting
