#include "broker/metadata_export_processor.h"

#include <fmt/format.h>

#include "remoting/frame_format.h"
#include "remoting/response_code.h"

namespace ferry::broker {

namespace code = remoting::response_code;

namespace {

// SUCCESS carrying `text`, or SYSTEM_ERROR when no frame could carry it.
RemotingCommand table_reply(const RemotingCommand& request, std::string_view what, const std::string& text) {
  // Headroom for the frame's length fields and the reply header (a few hundred bytes).
  constexpr std::size_t kHeaderRoom = 64 * 1024;
  if (text.size() > remoting::kFrameBytesMaxDefault - kHeaderRoom) {
    return reply(request, code::SYSTEM_ERROR,
                 fmt::format("{} are {} bytes as JSON, more than a frame carries ({} bytes)", what, text.size(),
                             remoting::kFrameBytesMaxDefault));
  }
  RemotingCommand r = reply(request, code::SUCCESS);
  r.body.assign(text.begin(), text.end());
  return r;
}

}  // namespace

Task<Reply> MetadataExportProcessor::all_topics(RequestContext ctx) {
  co_return table_reply(ctx.request, "the topic configs",
                        TopicConfigManager::encode(topics_.table(), topics_.data_version()));
}

Task<Reply> MetadataExportProcessor::all_consumer_offsets(RequestContext ctx) {
  co_return table_reply(ctx.request, "the consumer offsets", ConsumerOffsetManager::encode(offsets_.table()));
}

Task<Reply> MetadataExportProcessor::all_delay_offsets(RequestContext ctx) {
  co_return table_reply(ctx.request, "the delay offsets", ScheduleMessageService::encode(schedule_.offsets()));
}

}  // namespace ferry::broker
