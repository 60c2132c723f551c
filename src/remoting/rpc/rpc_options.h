// Limits and timeouts of the RPC layer. Every queue and in-flight set here is bounded.
#pragma once

#include <cstddef>

#include "remoting/frame_format.h"
#include "runtime/time.h"

namespace ferry::remoting {

struct RpcOptions {
  // Largest frame accepted or sent (length field included).
  std::size_t frame_bytes_max = kFrameBytesMaxDefault;
  // Bytes queued for writing on one connection before send() waits (back-pressure).
  std::size_t write_queue_bytes_max = 64 * 1024 * 1024;
  // Bytes handed to one gather write at most (many small frames share one write).
  std::size_t write_batch_bytes_max = 1024 * 1024;
  // The reader's buffer per connection.
  std::size_t read_buffer_bytes = 64 * 1024;
  // Requests of one connection being processed at once; beyond, replies SYSTEM_BUSY (2).
  std::size_t requests_in_flight_max = 65536;
  // Calls awaiting a reply, per peer; beyond, invoke fails with Errc::busy.
  std::size_t pending_calls_max = 65536;
  // Client: how long a connect may take.
  Duration connect_timeout = std::chrono::seconds(3);
};

}  // namespace ferry::remoting
