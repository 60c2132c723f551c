#include "broker/store_admin_processor.h"

#include <fmt/format.h>

#include "common/names.h"
#include "remoting/response_code.h"

namespace ferry::broker {

namespace code = remoting::response_code;

Task<Reply> StoreAdminProcessor::clean_expired_consume_queue(RequestContext ctx) {
  const std::string from = ctx.channel ? ctx.channel->peer_text() : "?";
  // One admission per run: its start and end lines go out together or not at all.
  const std::optional<std::uint64_t> held = run_log_.admit(rt_.now());
  if (held) rt_.log().warn("cleanExpiredCQ from {}: start{}", from, held_back_note(*held));
  auto report = store_.clean_expired_queues({std::string(kScheduleTopic), std::string(kTimerTopic)});
  if (!report.ok()) {
    if (auto errors_held = error_log_.admit(rt_.now(), static_cast<std::int64_t>(report.error().code))) {
      rt_.log().error("cleanExpiredCQ from {}: {}{}", from, report.error().to_string(), held_back_note(*errors_held));
    }
    co_return reply(ctx.request, code::SYSTEM_ERROR, "cleanExpiredCQ: " + report.error().to_string());
  }
  if (held) {
    rt_.log().warn("cleanExpiredCQ from {}: end, {} queue(s) destroyed (CommitLog starts at {})", from,
                   report->removed.size(), report->log_min.value());
  }
  co_return reply(ctx.request, code::SUCCESS);
}

}  // namespace ferry::broker
