#include "tests/sim/fuzz/fuzz_connection.h"

#include <fmt/format.h>

#include <chrono>

#include "common/msg_id.h"
#include "remoting/frame_decoder.h"
#include "remoting/response_code.h"

namespace ferry::sim::fuzz {

namespace code = remoting::response_code;
using remoting::RemotingCommand;

Task<void> drive_connection(Runtime* rt, Endpoint broker, std::vector<std::uint8_t> stream, bool close_after_write,
                            std::shared_ptr<ConnectionRun> run) {
  auto conn = co_await rt->network().connect(broker, std::chrono::seconds(10));
  if (!conn.ok()) {
    run->failures.push_back("connect failed: " + conn.error().to_string());
    run->done = true;
    co_return;
  }
  std::unique_ptr<Connection> c = std::move(*conn);
  Status wrote = co_await c->write(Bytes(stream.data(), stream.size()));
  if (close_after_write || (run->owed.empty() && !run->expect.close)) {
    c->close();
    run->done = true;
    co_return;
  }
  // A write error is a close by the broker (it may close a bad stream before reading all of it).
  remoting::FrameDecoder replies;
  std::vector<std::uint8_t> buf(64 * 1024);
  while (!run->owed.empty() || run->expect.close) {
    auto n = co_await c->read_some(MutableBytes(buf.data(), buf.size()));
    if (!n.ok()) {
      run->closed_by_peer = true;
      break;
    }
    if (Status fed = replies.feed(Bytes(buf.data(), *n)); !fed.ok()) {
      run->failures.push_back("the broker's bytes do not decode: " + fed.error().to_string());
      break;
    }
    for (;;) {
      auto next = replies.next();
      if (!next.ok()) {
        run->failures.push_back("the broker's bytes do not decode: " + next.error().to_string());
        break;
      }
      if (!next->has_value()) break;
      const RemotingCommand& r = **next;
      if (!r.is_response()) continue;  // a request from the broker (NOTIFY_CONSUMER_IDS_CHANGED)
      auto it = run->owed.find(r.opaque);
      if (it == run->owed.end()) {
        run->failures.push_back(fmt::format("a reply with opaque {} that no request carried (code {})", r.opaque, r.code));
        continue;
      }
      ++run->replies;
      ++run->outcomes[{run->code_of[r.opaque], r.code}];
      if (r.code == code::SUCCESS) {
        if (const std::string* id = r.ext_fields.find("msgId")) {  // a send's; a batch's are comma-joined
          auto decoded = decode_offset_msg_id(std::string_view(*id).substr(0, id->find(',')));
          if (decoded.ok()) run->stored.push_back(decoded->offset.value());
        }
      }
      if (--it->second == 0) run->owed.erase(it);
      if (r.code == code::SYSTEM_ERROR && r.remark.value_or("").starts_with("internal error:")) {
        run->failures.push_back(fmt::format("a processor threw: {}", r.remark.value_or("")));
      }
    }
    if (replies.failed()) break;
  }
  (void)wrote;
  c->close();
  run->done = true;
}

}  // namespace ferry::sim::fuzz
