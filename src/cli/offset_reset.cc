#include "cli/offset_reset.h"

#include <fmt/format.h>

#include <set>

#include "cli/broker_calls.h"
#include "client/consumer_calls.h"
#include "remoting/body/consumer_id_list.h"
#include "remoting/body/offset_tables.h"
#include "remoting/header/client_admin_header.h"
#include "remoting/header/client_header.h"
#include "remoting/header/consumer_offset_header.h"
#include "remoting/request_code.h"
#include "remoting/response_code.h"

namespace ferry::cli {

namespace {

namespace rc = remoting::request_code;
namespace code = remoting::response_code;

// The online consumers of `group` at every master of `queues`' brokers (sorted, unique).
Result<std::vector<std::string>> online_consumers(AdminSession& s, const std::string& group,
                                                  const std::vector<MessageQueue>& queues) {
  std::set<std::string> ids;
  std::set<std::string> asked;
  for (const MessageQueue& q : queues) {
    if (!asked.insert(q.broker_name).second) continue;
    std::optional<std::string> addr = s.instance().master_address(q.broker_name);
    if (!addr) return Error(Errc::not_found, fmt::format("no master address for broker '{}'", q.broker_name));
    remoting::RemotingCommand req = remoting::make_request(rc::GET_CONSUMER_LIST_BY_GROUP, 0);
    req.ext_fields = remoting::GetConsumerListByGroupRequestHeader{group}.to_fields();
    // SYSTEM_ERROR: "no consumer for this group".
    Result<remoting::RemotingCommand> r = call_broker(s, *addr, std::move(req), {code::SUCCESS, code::SYSTEM_ERROR});
    if (!r.ok()) return std::move(r).error();
    if (r->code != code::SUCCESS) continue;
    Result<remoting::body::ConsumerIdList> list = remoting::body::ConsumerIdList::decode(r->body);
    if (!list.ok()) return Error(Errc::corrupt, fmt::format("broker {}: consumer id list: {}", *addr, list.error().detail));
    ids.insert(list->consumer_id_list.begin(), list->consumer_id_list.end());
  }
  return std::vector<std::string>(ids.begin(), ids.end());
}

// 222 to the master of each broker of `queues`; nullopt when a broker answered CONSUMER_NOT_ONLINE
// (the caller resets the stored offsets), else every offset the brokers sent their consumers.
Result<std::optional<remoting::body::OffsetTable>> reset_through_consumers(AdminSession& s, const std::string& group,
                                                                           const std::string& topic, std::int64_t ts,
                                                                           bool force,
                                                                           const std::vector<MessageQueue>& queues) {
  remoting::body::OffsetTable all;
  std::set<std::string> asked;
  for (const MessageQueue& q : queues) {
    if (!asked.insert(q.broker_name).second) continue;
    std::optional<std::string> addr = s.instance().master_address(q.broker_name);
    if (!addr) return Error(Errc::not_found, fmt::format("no master address for broker '{}'", q.broker_name));
    remoting::RemotingCommand req = remoting::make_request(rc::INVOKE_BROKER_TO_RESET_OFFSET, 0);
    req.ext_fields = remoting::ResetOffsetRequestHeader{topic, group, ts, force}.to_fields();
    Result<remoting::RemotingCommand> r = call_broker(s, *addr, std::move(req), {code::SUCCESS, code::CONSUMER_NOT_ONLINE});
    if (!r.ok()) return std::move(r).error();
    if (r->code == code::CONSUMER_NOT_ONLINE) return std::optional<remoting::body::OffsetTable>();
    Result<remoting::body::ResetOffsetBody> body = remoting::body::ResetOffsetBody::decode(r->body);
    if (!body.ok()) return Error(Errc::corrupt, fmt::format("broker {}: reset offsets: {}", *addr, body.error().detail));
    all.insert(body->offset_table.begin(), body->offset_table.end());
  }
  return std::optional<remoting::body::OffsetTable>(std::move(all));
}

}  // namespace

Result<OffsetReset> reset_offset_by_time(AdminSession& s, const std::string& group, const std::string& topic,
                                         std::int64_t timestamp_ms, bool to_max, bool force) {
  Status routed = s.run(s.instance().update_topic_route(topic));
  if (!routed.ok()) return std::move(routed).error();
  const std::vector<MessageQueue> queues = s.instance().subscribe_queues(topic);
  if (queues.empty()) return Error(Errc::invalid_argument, fmt::format("topic '{}' has no readable queue", topic));

  Result<std::optional<remoting::body::OffsetTable>> online =
      reset_through_consumers(s, group, topic, to_max ? remoting::kResetToMax : timestamp_ms, force, queues);
  if (!online.ok()) return std::move(online).error();
  OffsetReset out;
  if (online->has_value()) {
    out.through_consumers = true;
    for (const auto& [mq, offset] : **online) out.rows.push_back(OffsetResetRow{mq, {}, {}, {}, offset});
    return out;
  }

  // CONSUMER_NOT_ONLINE: the stored offsets, unless a consumer came online meanwhile.
  Result<std::vector<std::string>> listed = online_consumers(s, group, queues);
  if (!listed.ok()) return std::move(listed).error();
  if (!listed->empty()) {
    std::string list;
    for (const std::string& id : *listed) list += (list.empty() ? "" : ", ") + id;
    return Error(Errc::busy, fmt::format("group '{}' has {} consumer(s) online ({}); a running consumer overwrites a "
                                         "reset offset with its own at its next commit: stop them, then reset again",
                                         group, listed->size(), list));
  }
  for (const MessageQueue& q : queues) {
    Result<QueueOffset> max = s.run(client::max_offset(s.instance(), q));
    if (!max.ok()) return std::move(max).error();
    Result<std::optional<QueueOffset>> current = s.run(client::query_consumer_offset(s.instance(), group, q));
    if (!current.ok()) return std::move(current).error();
    Result<QueueOffset> found = s.run(client::search_offset(s.instance(), q, timestamp_ms));
    if (!found.ok()) return std::move(found).error();
    QueueOffset target = *found;
    if (!force && current->has_value() && **current < target) target = **current;  // only move back
    std::optional<std::string> addr = s.instance().master_address(q.broker_name);
    if (!addr) return Error(Errc::not_found, fmt::format("no master address for broker '{}'", q.broker_name));
    remoting::RemotingCommand req = remoting::make_request(rc::UPDATE_CONSUMER_OFFSET, 0);
    req.ext_fields = remoting::UpdateConsumerOffsetRequestHeader{group, topic, q.queue_id, target}.to_fields();
    Result<remoting::RemotingCommand> r = call_broker(s, *addr, std::move(req));
    if (!r.ok()) return std::move(r).error();
    out.rows.push_back(OffsetResetRow{q, *max, *current, *found, target});
  }
  return out;
}

}  // namespace ferry::cli
