// How mqadmin shows messages: a detail block for one message (queryMsgById, queryMsgByOffset)
// and table rows for many (queryMsgByKey, consumeMessage).
#pragma once

#include <string>
#include <vector>

#include "cli/table.h"
#include "common/message.h"

namespace ferry::mqadmin {

// "Topic:  T\nTags:  ...\n..." with every property, aligned.
std::string message_detail(const MessageExt& m);

// Columns of message_row.
std::vector<std::string> message_headers();
std::vector<std::string> message_row(const MessageExt& m, const std::string& broker_name);

// The body as text, non-printable bytes as '.', cut at `max_chars` (with "...").
std::string body_preview(const MessageExt& m, std::size_t max_chars);

// RocketMQ's MessageExt.toString() (printMsg): "MessageExt [brokerName=B, queueId=0, ...,
// toString()=Message{topic='T', flag=0, properties={K=V, ...}, body=[104, 105], transactionId='null'}]".
// Hosts as Java's InetSocketAddress ("/127.0.0.1:10911"), msgId the offset msgId (the field
// MessageDecoder sets), the body as Java's Arrays.toString of signed bytes, properties in stored
// order (Java's HashMap order is its hash order).
std::string java_message_text(const MessageExt& m, std::string_view broker_name);

// "2024-05-01 12:00:00.123" (local time) of an epoch-ms timestamp.
std::string format_time_ms(std::int64_t epoch_ms);

}  // namespace ferry::mqadmin
