// The SEND_BATCH_MESSAGE body (RocketMQ's MessageDecoder.encodeMessages): for each message,
// big-endian
//   i32 totalSize | i32 magic (0) | i32 bodyCRC (0) | i32 flag | i32 bodyLen | body |
//   i16 propertiesLen | properties
// totalSize counts the whole entry. The broker fills in magic and CRC. Batches are never
// compressed.
#pragma once

#include <cstdint>
#include <span>
#include <vector>

#include "common/message.h"
#include "runtime/result.h"

namespace ferry::client {

// Errors (invalid_argument): properties that do not encode or exceed 32767 bytes (naming the
// message index).
Result<std::vector<std::uint8_t>> encode_batch(std::span<const Message> msgs);

}  // namespace ferry::client
