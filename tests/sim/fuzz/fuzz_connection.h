// One fuzzed connection to a broker, driven from a bare simulated node: connect, write a stream
// of frames in one gather write, then read the broker's replies until every reply the stream is
// owed (stream_oracle.h) has arrived, or the broker closes the connection. What happened is left
// in a ConnectionRun the test owns and judges once `done` is set.
//
// Judged on the way, as failures of the run: a reply whose opaque no request carried (or a second
// reply to one), bytes from the broker that do not decode as frames, and a processor that threw
// (SYSTEM_ERROR "internal error: ..."). Requests the broker sends (NOTIFY_CONSUMER_IDS_CHANGED)
// are skipped. The task ends on its own (a reply, a close, or the peer timeout of the simulated
// network); destroying the node destroys it, and `done` then stays false.
#pragma once

#include <cstdint>
#include <map>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "runtime/network.h"
#include "runtime/runtime.h"
#include "tests/sim/fuzz/stream_oracle.h"

namespace ferry::sim::fuzz {

struct ConnectionRun {
  std::string what;             // the frames sent, for a failure message
  StreamExpectation expect;
  std::map<std::int32_t, int> owed;  // opaque -> replies still owed
  bool done = false;
  bool closed_by_peer = false;
  std::vector<std::string> failures;
  int replies = 0;
  std::map<std::int32_t, std::int32_t> code_of;  // request code by opaque (the last one with it)
  std::map<std::pair<std::int32_t, std::int32_t>, int> outcomes;  // (request code, reply code) -> replies
  std::vector<std::int64_t> stored;  // CommitLog offsets of records that sends stored (their msgIds)
};

// Sends `stream` to `broker` and follows `run` (its `expect` and `owed` filled by the caller). With
// `close_after_write`, or when neither a reply nor a close is owed, the client closes right after
// writing (a client that goes away, maybe mid-frame) and nothing is judged.
Task<void> drive_connection(Runtime* rt, Endpoint broker, std::vector<std::uint8_t> stream, bool close_after_write,
                            std::shared_ptr<ConnectionRun> run);

}  // namespace ferry::sim::fuzz
