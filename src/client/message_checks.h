// Producer-side message checks (RocketMQ's Validators.checkMessage and MessageBatch rules).
// Every error is Errc::invalid_argument and says what is wrong with which message.
#pragma once

#include <cstddef>
#include <span>

#include "common/message.h"
#include "runtime/result.h"

namespace ferry::client {

// A valid topic clients may send to, and a body of 1..max_body_bytes bytes.
Status check_message(const Message& msg, std::size_t max_body_bytes);

// A batch: not empty, one topic, no retry topic, no delayed message, the same WAIT for all, and
// every message passing check_message.
Status check_batch(std::span<const Message> msgs, std::size_t max_body_bytes);

}  // namespace ferry::client
