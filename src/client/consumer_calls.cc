#include "client/consumer_calls.h"

#include <fmt/format.h>

#include "client/client_errors.h"
#include "remoting/body/consumer_id_list.h"
#include "remoting/body/lock_batch_body.h"
#include "remoting/header/client_header.h"
#include "remoting/header/consumer_offset_header.h"
#include "remoting/header/queue_offset_header.h"
#include "remoting/request_code.h"
#include "remoting/response_code.h"

namespace ferry::client {

namespace rc = remoting::request_code;
namespace code = remoting::response_code;
namespace body = remoting::body;

namespace {

struct Target {
  std::string addr;
  std::string where;  // "broker 'name' (addr)"
};

// Which broker of a group a call may go to.
enum class Reach : std::uint8_t {
  master_only,        // writes, queue locks
  master_else_slave,  // reads and consumer offsets (RocketMQ's findBrokerAddressInAdmin)
};

// The broker of `broker_name` that `reach` allows, after one route update of `topic` when
// unknown.
Task<Result<Target>> target(ClientInstance& ci, std::string broker_name, std::string topic, Reach reach) {
  auto look = [&]() {
    return reach == Reach::master_else_slave ? ci.any_address(broker_name) : ci.master_address(broker_name);
  };
  std::optional<std::string> addr = look();
  if (!addr && !topic.empty()) {
    Status s = co_await ci.update_topic_route(topic);
    (void)s;  // judged by the look-up below
    addr = look();
  }
  if (!addr) co_return Error(Errc::not_found, fmt::format("no address for broker '{}'", broker_name));
  co_return Target{*addr, broker_where(broker_name, *addr)};
}

// Invokes and accepts only SUCCESS.
Task<Result<remoting::RemotingCommand>> call(ClientInstance& ci, Target t, remoting::RemotingCommand req, Duration timeout) {
  const std::int32_t request_code = req.code;
  Result<remoting::RemotingCommand> r = co_await ci.rpc().invoke(t.addr, std::move(req), timeout);
  if (!r.ok()) co_return with_context(t.where, std::move(r).error());
  if (r->code != code::SUCCESS) co_return reply_error(t.where, request_code, *r);
  co_return r;
}

}  // namespace

Task<Result<std::vector<std::string>>> find_consumer_ids(ClientInstance& ci, std::string topic, std::string group) {
  std::optional<TopicRouteData> route = ci.route(topic);
  if (!route || route->broker_datas.empty()) {
    co_return Error(Errc::not_found, fmt::format("consumer ids of group '{}': no route for topic '{}'", group, topic));
  }
  const auto& brokers = route->broker_datas;
  const auto& pick = brokers[static_cast<std::size_t>(ci.runtime().random().below(brokers.size()))];
  Task<Result<Target>> tt = target(ci, pick.broker_name, topic, Reach::master_else_slave);
  Result<Target> t = co_await std::move(tt);
  if (!t.ok()) co_return std::move(t).error();
  remoting::RemotingCommand req = remoting::make_request(rc::GET_CONSUMER_LIST_BY_GROUP, 0);
  req.ext_fields = remoting::GetConsumerListByGroupRequestHeader{group}.to_fields();
  Task<Result<remoting::RemotingCommand>> ct = call(ci, *t, std::move(req), ci.config().api_timeout);
  Result<remoting::RemotingCommand> r = co_await std::move(ct);
  if (!r.ok()) co_return with_context(fmt::format("consumer ids of group '{}'", group), std::move(r).error());
  Result<body::ConsumerIdList> ids = body::ConsumerIdList::decode(r->body);
  if (!ids.ok()) co_return Error(Errc::corrupt, fmt::format("{}: consumer id list: {}", t->where, ids.error().detail));
  co_return std::move(ids->consumer_id_list);
}

Task<Result<std::optional<QueueOffset>>> query_consumer_offset(ClientInstance& ci, std::string group, MessageQueue mq) {
  Task<Result<Target>> tt = target(ci, mq.broker_name, mq.topic, Reach::master_else_slave);
  Result<Target> t = co_await std::move(tt);
  if (!t.ok()) co_return std::move(t).error();
  remoting::RemotingCommand req = remoting::make_request(rc::QUERY_CONSUMER_OFFSET, 0);
  req.ext_fields = remoting::QueryConsumerOffsetRequestHeader{group, mq.topic, mq.queue_id}.to_fields();
  Result<remoting::RemotingCommand> r = co_await ci.rpc().invoke(t->addr, std::move(req), ci.config().api_timeout);
  if (!r.ok()) co_return with_context(t->where, std::move(r).error());
  if (r->code == code::QUERY_NOT_FOUND) co_return std::optional<QueueOffset>();
  if (r->code != code::SUCCESS) co_return reply_error(t->where, rc::QUERY_CONSUMER_OFFSET, *r);
  Result<remoting::QueryConsumerOffsetResponseHeader> h = remoting::QueryConsumerOffsetResponseHeader::from_fields(r->ext_fields);
  if (!h.ok()) co_return Error(Errc::corrupt, fmt::format("{}: {}", t->where, h.error().detail));
  co_return std::optional<QueueOffset>(h->offset);
}

namespace {
remoting::RemotingCommand offset_update_request(const std::string& group, const MessageQueue& mq, QueueOffset offset) {
  remoting::RemotingCommand req = remoting::make_request(rc::UPDATE_CONSUMER_OFFSET, 0);
  req.ext_fields = remoting::UpdateConsumerOffsetRequestHeader{group, mq.topic, mq.queue_id, offset}.to_fields();
  return req;
}
}  // namespace

Task<Status> update_consumer_offset_oneway(ClientInstance& ci, std::string group, MessageQueue mq, QueueOffset offset) {
  Task<Result<Target>> tt = target(ci, mq.broker_name, mq.topic, Reach::master_else_slave);
  Result<Target> t = co_await std::move(tt);
  if (!t.ok()) co_return std::move(t).error();
  remoting::RemotingCommand req = offset_update_request(group, mq, offset);
  Status s = co_await ci.rpc().invoke_oneway(t->addr, std::move(req));
  if (!s.ok()) co_return with_context(t->where, std::move(s).error());
  co_return Status{};
}

Task<Status> update_consumer_offset(ClientInstance& ci, std::string group, MessageQueue mq, QueueOffset offset) {
  Task<Result<Target>> tt = target(ci, mq.broker_name, mq.topic, Reach::master_else_slave);
  Result<Target> t = co_await std::move(tt);
  if (!t.ok()) co_return std::move(t).error();
  remoting::RemotingCommand req = offset_update_request(group, mq, offset);
  Task<Result<remoting::RemotingCommand>> ct = call(ci, *t, std::move(req), ci.config().api_timeout);
  Result<remoting::RemotingCommand> r = co_await std::move(ct);
  if (!r.ok()) co_return std::move(r).error();
  co_return Status{};
}

Task<Result<QueueOffset>> max_offset(ClientInstance& ci, MessageQueue mq) {
  Task<Result<Target>> tt = target(ci, mq.broker_name, mq.topic, Reach::master_else_slave);
  Result<Target> t = co_await std::move(tt);
  if (!t.ok()) co_return std::move(t).error();
  remoting::RemotingCommand req = remoting::make_request(rc::GET_MAX_OFFSET, 0);
  req.ext_fields = remoting::GetMaxOffsetRequestHeader{mq.topic, mq.queue_id}.to_fields();
  Task<Result<remoting::RemotingCommand>> ct = call(ci, *t, std::move(req), ci.config().api_timeout);
  Result<remoting::RemotingCommand> r = co_await std::move(ct);
  if (!r.ok()) co_return std::move(r).error();
  Result<remoting::GetMaxOffsetResponseHeader> h = remoting::GetMaxOffsetResponseHeader::from_fields(r->ext_fields);
  if (!h.ok()) co_return Error(Errc::corrupt, fmt::format("{}: {}", t->where, h.error().detail));
  co_return h->offset;
}

Task<Result<QueueOffset>> min_offset(ClientInstance& ci, MessageQueue mq) {
  Task<Result<Target>> tt = target(ci, mq.broker_name, mq.topic, Reach::master_else_slave);
  Result<Target> t = co_await std::move(tt);
  if (!t.ok()) co_return std::move(t).error();
  remoting::RemotingCommand req = remoting::make_request(rc::GET_MIN_OFFSET, 0);
  req.ext_fields = remoting::GetMinOffsetRequestHeader{mq.topic, mq.queue_id}.to_fields();
  Task<Result<remoting::RemotingCommand>> ct = call(ci, *t, std::move(req), ci.config().api_timeout);
  Result<remoting::RemotingCommand> r = co_await std::move(ct);
  if (!r.ok()) co_return std::move(r).error();
  Result<remoting::GetMinOffsetResponseHeader> h = remoting::GetMinOffsetResponseHeader::from_fields(r->ext_fields);
  if (!h.ok()) co_return Error(Errc::corrupt, fmt::format("{}: {}", t->where, h.error().detail));
  co_return h->offset;
}

Task<Result<QueueOffset>> search_offset(ClientInstance& ci, MessageQueue mq, WallMs timestamp_ms) {
  Task<Result<Target>> tt = target(ci, mq.broker_name, mq.topic, Reach::master_else_slave);
  Result<Target> t = co_await std::move(tt);
  if (!t.ok()) co_return std::move(t).error();
  remoting::RemotingCommand req = remoting::make_request(rc::SEARCH_OFFSET_BY_TIMESTAMP, 0);
  req.ext_fields = remoting::SearchOffsetRequestHeader{mq.topic, mq.queue_id, timestamp_ms}.to_fields();
  Task<Result<remoting::RemotingCommand>> ct = call(ci, *t, std::move(req), ci.config().api_timeout);
  Result<remoting::RemotingCommand> r = co_await std::move(ct);
  if (!r.ok()) co_return std::move(r).error();
  Result<remoting::SearchOffsetResponseHeader> h = remoting::SearchOffsetResponseHeader::from_fields(r->ext_fields);
  if (!h.ok()) co_return Error(Errc::corrupt, fmt::format("{}: {}", t->where, h.error().detail));
  co_return h->offset;
}

Task<Result<std::vector<MessageQueue>>> lock_batch(ClientInstance& ci, std::string group, std::string broker_name,
                                                   std::vector<MessageQueue> mqs) {
  const std::string topic = mqs.empty() ? std::string() : mqs.front().topic;
  Task<Result<Target>> tt = target(ci, broker_name, topic, Reach::master_only);
  Result<Target> t = co_await std::move(tt);
  if (!t.ok()) co_return std::move(t).error();
  body::LockBatchRequestBody b;
  b.consumer_group = group;
  b.client_id = ci.client_id();
  b.mq_set = std::move(mqs);
  remoting::RemotingCommand req = remoting::make_request(rc::LOCK_BATCH_MQ, 0);
  req.body = b.encode();
  Task<Result<remoting::RemotingCommand>> ct = call(ci, *t, std::move(req), ci.config().api_timeout);
  Result<remoting::RemotingCommand> r = co_await std::move(ct);
  if (!r.ok()) co_return std::move(r).error();
  Result<body::LockBatchResponseBody> locked = body::LockBatchResponseBody::decode(r->body);
  if (!locked.ok()) co_return Error(Errc::corrupt, fmt::format("{}: lock reply: {}", t->where, locked.error().detail));
  co_return std::move(locked->lock_ok_mq_set);
}

Task<Status> unlock_batch(ClientInstance& ci, std::string group, std::string broker_name, std::vector<MessageQueue> mqs,
                          bool oneway) {
  const std::string topic = mqs.empty() ? std::string() : mqs.front().topic;
  Task<Result<Target>> tt = target(ci, broker_name, topic, Reach::master_only);
  Result<Target> t = co_await std::move(tt);
  if (!t.ok()) co_return std::move(t).error();
  body::UnlockBatchRequestBody b;
  b.consumer_group = group;
  b.client_id = ci.client_id();
  b.mq_set = std::move(mqs);
  remoting::RemotingCommand req = remoting::make_request(rc::UNLOCK_BATCH_MQ, 0);
  req.body = b.encode();
  if (oneway) {
    Status s = co_await ci.rpc().invoke_oneway(t->addr, std::move(req));
    if (!s.ok()) co_return with_context(t->where, std::move(s).error());
    co_return Status{};
  }
  Task<Result<remoting::RemotingCommand>> ct = call(ci, *t, std::move(req), ci.config().api_timeout);
  Result<remoting::RemotingCommand> r = co_await std::move(ct);
  if (!r.ok()) co_return std::move(r).error();
  co_return Status{};
}

Task<Status> send_message_back(ClientInstance& ci, SendBackRequest q, MessageExt msg) {
  Task<Result<Target>> tt = target(ci, q.broker_name, msg.topic, Reach::master_only);
  Result<Target> t = co_await std::move(tt);
  if (!t.ok()) co_return std::move(t).error();
  remoting::ConsumerSendMsgBackRequestHeader h;
  h.offset = msg.physical_offset;
  h.group = q.group;
  h.delay_level = q.delay_level;
  h.origin_msg_id = std::string(msg.msg_id());
  h.origin_topic = msg.topic;
  h.max_reconsume_times = q.max_reconsume_times;
  remoting::RemotingCommand req = remoting::make_request(rc::CONSUMER_SEND_MSG_BACK, 0);
  req.ext_fields = h.to_fields();
  Task<Result<remoting::RemotingCommand>> ct = call(ci, *t, std::move(req), q.timeout);
  Result<remoting::RemotingCommand> r = co_await std::move(ct);
  if (!r.ok()) co_return std::move(r).error();
  co_return Status{};
}

}  // namespace ferry::client
