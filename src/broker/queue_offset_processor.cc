#include "broker/queue_offset_processor.h"

#include "remoting/header/queue_offset_header.h"
#include "remoting/response_code.h"

namespace ferry::broker {

namespace code = remoting::response_code;

Task<Reply> QueueOffsetProcessor::max_offset(RequestContext ctx) {
  auto h = remoting::GetMaxOffsetRequestHeader::from_fields(ctx.request.ext_fields);
  if (!h) co_return bad_header(ctx.request, h.error());
  RemotingCommand out = reply(ctx.request, code::SUCCESS);
  out.ext_fields = remoting::GetMaxOffsetResponseHeader{store_.max_offset(h->topic, h->queue_id)}.to_fields();
  co_return out;
}

Task<Reply> QueueOffsetProcessor::min_offset(RequestContext ctx) {
  auto h = remoting::GetMinOffsetRequestHeader::from_fields(ctx.request.ext_fields);
  if (!h) co_return bad_header(ctx.request, h.error());
  RemotingCommand out = reply(ctx.request, code::SUCCESS);
  out.ext_fields = remoting::GetMinOffsetResponseHeader{store_.min_offset(h->topic, h->queue_id)}.to_fields();
  co_return out;
}

Task<Reply> QueueOffsetProcessor::search_by_timestamp(RequestContext ctx) {
  auto h = remoting::SearchOffsetRequestHeader::from_fields(ctx.request.ext_fields);
  if (!h) co_return bad_header(ctx.request, h.error());
  auto found = store_.offset_by_time(h->topic, h->queue_id, h->timestamp);
  const QueueOffset offset = found ? *found : store_.max_offset(h->topic, h->queue_id);
  RemotingCommand out = reply(ctx.request, code::SUCCESS);
  out.ext_fields = remoting::SearchOffsetResponseHeader{offset}.to_fields();
  co_return out;
}

Task<Reply> QueueOffsetProcessor::earliest_store_time(RequestContext ctx) {
  auto h = remoting::GetEarliestMsgStoretimeRequestHeader::from_fields(ctx.request.ext_fields);
  if (!h) co_return bad_header(ctx.request, h.error());
  auto t = store_.earliest_store_time(h->topic, h->queue_id);
  RemotingCommand out = reply(ctx.request, code::SUCCESS);
  out.ext_fields = remoting::GetEarliestMsgStoretimeResponseHeader{t ? *t : -1}.to_fields();
  co_return out;
}

}  // namespace ferry::broker
