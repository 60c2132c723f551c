// Reading a stored message back by its CommitLog offset (RocketMQ's lookMessageByOffset), and
// storing a copy of it elsewhere: the send-back (retry / DLQ) and delayed-delivery paths.
#pragma once

#include <string>

#include "common/message.h"
#include "store/message_store.h"

namespace ferry::broker {

// The message whose record starts at `offset`, body as stored (compressed when its sys_flag
// says so). Errors: not_found (no record there, or cleaned up), corrupt.
Result<MessageExt> look_message(const store::MessageStore& store, PhysicalOffset offset);

// A copy of `m` for `topic`/`queue` with `properties` (already encoded) and `reconsume_times`:
// same flag, body, sys_flag, born timestamp and host. The views point into `m` and `properties`,
// which must outlive the put call.
store::PutRequest copy_of(const MessageExt& m, std::string_view topic, QueueId queue,
                          std::string_view properties, std::int32_t reconsume_times);

}  // namespace ferry::broker
