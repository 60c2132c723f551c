// What the broker must answer on one connection, predicted from the bytes the fuzzer sends.
//
// The bytes go through the same FrameDecoder the broker's channels use. Every decoded two-way
// request (neither the response nor the oneway flag) is owed a reply with its opaque; a stream
// that stops decoding (bad length, bad header) is owed a close of the connection; a stream that
// ends inside a frame is owed nothing more (the broker waits for the rest). A pure function of
// the bytes and the frame limit.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include "remoting/frame_decoder.h"

namespace ferry::sim::fuzz {

struct StreamExpectation {
  std::vector<std::int32_t> replies;         // opaques owed a reply, in stream order (may repeat)
  std::vector<remoting::RemotingCommand> requests;  // every command the broker decodes
  bool close = false;                         // the stream goes bad: the broker must close
  std::string close_reason;                   // the decoder's error
  bool incomplete_tail = false;               // the stream ends inside a frame
};

inline StreamExpectation expect_of(const std::vector<std::uint8_t>& stream, std::size_t frame_bytes_max) {
  StreamExpectation e;
  remoting::FrameDecoder d(frame_bytes_max);
  if (stream.empty()) return e;
  if (Status fed = d.feed(Bytes(stream.data(), stream.size())); !fed.ok()) {
    e.close = true;
    e.close_reason = fed.error().to_string();
    return e;
  }
  for (;;) {
    auto next = d.next();
    if (!next.ok()) {
      e.close = true;
      e.close_reason = next.error().to_string();
      return e;
    }
    if (!next->has_value()) break;
    remoting::RemotingCommand& c = **next;
    if (!c.is_response() && !c.is_oneway()) e.replies.push_back(c.opaque);
    e.requests.push_back(std::move(c));
  }
  e.incomplete_tail = d.buffered_bytes() > 0;
  return e;
}

}  // namespace ferry::sim::fuzz
