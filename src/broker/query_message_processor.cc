#include "broker/query_message_processor.h"

#include <fmt/format.h>

#include <algorithm>
#include <cstdint>

#include "remoting/header/query_message_header.h"
#include "remoting/response_code.h"

namespace ferry::broker {

namespace code = remoting::response_code;

Task<Reply> QueryMessageProcessor::query(RequestContext ctx) {
  auto h = remoting::QueryMessageRequestHeader::from_fields(ctx.request.ext_fields);
  if (!h) co_return bad_header(ctx.request, h.error());
  if (h->max_num <= 0) {
    co_return reply(ctx.request, code::SYSTEM_ERROR,
                    fmt::format("QueryMessageRequestHeader: field maxNum = {} is not positive", h->max_num));
  }
  std::int64_t begin = h->begin_timestamp;
  std::int64_t end = h->end_timestamp;
  if (h->unique_key_query) {
    begin = 0;
    end = INT64_MAX;
  }
  const std::size_t max = std::min<std::size_t>(static_cast<std::size_t>(h->max_num), store_.config().index_query_results_max);
  auto found = store_.query_by_key(h->topic, h->key, max, begin, end);
  if (!found) co_return reply(ctx.request, code::SYSTEM_ERROR, found.error().to_string());
  remoting::QueryMessageResponseHeader rh;
  rh.index_last_update_timestamp = found->index_last_update_timestamp_ms;
  rh.index_last_update_phyoffset = found->index_last_update_phy_offset;
  RemotingCommand out = reply(ctx.request, found->messages.empty() ? code::QUERY_NOT_FOUND : code::SUCCESS,
                              found->messages.empty() ? "can not find message, maybe time range not correct" : "");
  out.ext_fields = rh.to_fields();
  out.body_views = std::move(found->messages);
  co_return out;
}

Task<Reply> QueryMessageProcessor::view(RequestContext ctx) {
  auto h = remoting::ViewMessageRequestHeader::from_fields(ctx.request.ext_fields);
  if (!h) co_return bad_header(ctx.request, h.error());
  if (h->offset < PhysicalOffset(0)) {
    co_return reply(ctx.request, code::SYSTEM_ERROR, fmt::format("ViewMessageRequestHeader: field offset = {} is negative", h->offset));
  }
  auto record = store_.message_at(h->offset);
  if (!record) {
    co_return reply(ctx.request, code::SYSTEM_ERROR,
                    fmt::format("can not find message by the offset {}: {}", h->offset, record.error().to_string()));
  }
  RemotingCommand out = reply(ctx.request, code::SUCCESS);
  out.body_views.push_back(std::move(*record));
  co_return out;
}

}  // namespace ferry::broker
