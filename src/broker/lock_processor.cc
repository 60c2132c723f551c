#include "broker/lock_processor.h"

#include <fmt/format.h>

#include <variant>

#include "remoting/body/lock_batch_body.h"
#include "remoting/response_code.h"

namespace ferry::broker {

namespace code = remoting::response_code;
using remoting::body::LockBatchRequestBody;

namespace {

// The decoded body, or the error reply.
std::variant<LockBatchRequestBody, RemotingCommand> decode(const RemotingCommand& req, std::size_t queues_max) {
  auto b = LockBatchRequestBody::decode(req.body);
  if (!b) return bad_header(req, b.error());
  if (b->consumer_group.empty()) return reply(req, code::SYSTEM_ERROR, "LockBatchRequestBody.consumerGroup: empty");
  if (b->client_id.empty()) return reply(req, code::SYSTEM_ERROR, "LockBatchRequestBody.clientId: empty");
  if (b->mq_set.size() > queues_max) {
    return reply(req, code::SYSTEM_ERROR,
                 fmt::format("LockBatchRequestBody.mqSet: {} queues, at most {}", b->mq_set.size(), queues_max));
  }
  return std::move(*b);
}

}  // namespace

Task<Reply> LockProcessor::lock(RequestContext ctx) {
  auto d = decode(ctx.request, config_.lock_batch_queues_max);
  if (auto* err = std::get_if<RemotingCommand>(&d)) co_return std::move(*err);
  const LockBatchRequestBody& b = std::get<LockBatchRequestBody>(d);
  remoting::body::LockBatchResponseBody out;
  out.lock_ok_mq_set = locks_.try_lock_batch(b.consumer_group, b.mq_set, b.client_id);
  RemotingCommand r = reply(ctx.request, code::SUCCESS);
  r.body = out.encode();
  co_return r;
}

Task<Reply> LockProcessor::unlock(RequestContext ctx) {
  auto d = decode(ctx.request, config_.lock_batch_queues_max);
  if (auto* err = std::get_if<RemotingCommand>(&d)) co_return std::move(*err);
  const LockBatchRequestBody& b = std::get<LockBatchRequestBody>(d);
  locks_.unlock_batch(b.consumer_group, b.mq_set, b.client_id);
  co_return reply(ctx.request, code::SUCCESS);
}

}  // namespace ferry::broker
