// resetOffsetByTime: moves a consumer group's offsets of every queue of a topic to the first
// message stored at or after a point in time (RocketMQ's ResetOffsetByTimeCommand).
//
// First, with the group's consumers online: INVOKE_BROKER_TO_RESET_OFFSET (222) to the master of
// each broker of the topic; the broker computes the offsets and tells every online consumer
// (RESET_CONSUMER_CLIENT_OFFSET), which restart their queues there and commit the new offsets.
// The table shows what each broker sent. "-s now" is RocketMQ's -1: each queue's max offset.
//
// When a broker answers CONSUMER_NOT_ONLINE (206), as RocketMQ's tool the command resets the
// stored offsets itself (its resetOffsetByTimeOld path): SEARCH_OFFSET_BY_TIMESTAMP, then
// UPDATE_CONSUMER_OFFSET at each queue's master, awaiting its reply. A time after the newest
// message gives the queue's max offset. That path still refuses when some broker lists a
// consumer of the group (GET_CONSUMER_LIST_BY_GROUP: one that came online meanwhile would
// overwrite the reset with its own offset at its next commit).
//
// -f false (RocketMQ's --force): only move offsets back; a queue whose committed offset is already
// before the time's offset keeps it.
#include <fmt/format.h>

#include <cstdio>
#include <set>

#include "cli/table.h"
#include "cli/time_arg.h"
#include "client/consumer_calls.h"
#include "remoting/body/consumer_id_list.h"
#include "remoting/body/offset_tables.h"
#include "remoting/header/client_admin_header.h"
#include "remoting/header/client_header.h"
#include "remoting/header/consumer_offset_header.h"
#include "remoting/request_code.h"
#include "remoting/response_code.h"
#include "tools/mqadmin/broker_calls.h"
#include "tools/mqadmin/command.h"

namespace ferry::mqadmin {

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

int run(const ParsedFlags& f, AdminSession& s) {
  constexpr std::string_view kName = "resetOffsetByTime";
  const std::string group = *f.get("group");
  const std::string topic = *f.get("topic");
  const WallMs now = s.rt().wall_ms();
  Result<std::int64_t> ts = cli::parse_time_arg(*f.get("timestamp"), now);
  if (!ts.ok()) return usage_error(kName, fmt::format("-s: {}", ts.error().detail));
  Result<std::optional<bool>> force_flag = f.bool_of("force");
  if (!force_flag.ok()) return usage_error(kName, force_flag.error().detail);
  const bool force = force_flag->value_or(true);

  Status routed = s.run(s.instance().update_topic_route(topic));
  if (!routed.ok()) return fail(kName, routed.error());
  const std::vector<MessageQueue> queues = s.instance().subscribe_queues(topic);
  if (queues.empty()) return fail(kName, fmt::format("topic '{}' has no readable queue", topic));

  const bool to_max = *f.get("timestamp") == "now";  // RocketMQ sends -1 for "now"
  Result<std::optional<remoting::body::OffsetTable>> online =
      reset_through_consumers(s, group, topic, to_max ? remoting::kResetToMax : *ts, force, queues);
  if (!online.ok()) return fail(kName, online.error());
  if (online->has_value()) {
    cli::Table t({"#Broker", "Queue", "ResetOffset"});
    for (const auto& [mq, offset] : **online) {
      t.add_row({mq.broker_name, std::to_string(mq.queue_id.value()), std::to_string(offset.value())});
    }
    std::printf("reset group %s on topic %s to %s (%lld ms) through its online consumers, force %s\n%s", group.c_str(),
                topic.c_str(), cli::format_utc_ms(*ts).c_str(), static_cast<long long>(*ts), force ? "true" : "false",
                t.render().c_str());
    return kExitOk;
  }

  // CONSUMER_NOT_ONLINE: the stored offsets, unless a consumer came online meanwhile.
  Result<std::vector<std::string>> listed = online_consumers(s, group, queues);
  if (!listed.ok()) return fail(kName, listed.error());
  if (!listed->empty()) {
    std::string list;
    for (const std::string& id : *listed) list += (list.empty() ? "" : ", ") + id;
    return fail(kName, fmt::format("group '{}' has {} consumer(s) online ({}); a running consumer overwrites a reset "
                                   "offset with its own at its next commit: stop them, then run this again",
                                   group, listed->size(), list));
  }

  cli::Table t({"#Broker", "Queue", "BrokerOffset", "ConsumerOffset", "TimestampOffset", "ResetOffset"});
  for (const MessageQueue& q : queues) {
    Result<QueueOffset> max = s.run(client::max_offset(s.instance(), q));
    if (!max.ok()) return fail(kName, max.error());
    Result<std::optional<QueueOffset>> current = s.run(client::query_consumer_offset(s.instance(), group, q));
    if (!current.ok()) return fail(kName, current.error());
    Result<QueueOffset> found = s.run(client::search_offset(s.instance(), q, *ts));
    if (!found.ok()) return fail(kName, found.error());
    QueueOffset target = *found;
    if (!force && current->has_value() && **current < target) target = **current;  // only move back
    std::optional<std::string> addr = s.instance().master_address(q.broker_name);
    if (!addr) return fail(kName, fmt::format("no master address for broker '{}'", q.broker_name));
    remoting::RemotingCommand req = remoting::make_request(rc::UPDATE_CONSUMER_OFFSET, 0);
    req.ext_fields = remoting::UpdateConsumerOffsetRequestHeader{group, topic, q.queue_id, target}.to_fields();
    Result<remoting::RemotingCommand> r = call_broker(s, *addr, std::move(req));
    if (!r.ok()) return fail(kName, r.error());
    t.add_row({q.broker_name, std::to_string(q.queue_id.value()), std::to_string(max->value()),
               current->has_value() ? std::to_string((*current)->value()) : "-", std::to_string(found->value()),
               std::to_string(target.value())});
  }
  std::printf("reset group %s on topic %s to %s (%lld ms)\n%s", group.c_str(), topic.c_str(), cli::format_utc_ms(*ts).c_str(),
              static_cast<long long>(*ts), t.render().c_str());
  return kExitOk;
}

}  // namespace

Command reset_offset_by_time_command() {
  return Command{
      "resetOffsetByTime",
      "move a consumer group's offsets on a topic to the first message stored at or after a time (online consumers restart there)",
      {
          {'g', "group", "GROUP", "consumer group", true},
          {'t', "topic", "TOPIC", "topic", true},
          {'s', "timestamp", "TIME", "ms since the epoch, 'now', or ISO 8601 like 2026-01-01T08:30:00Z (no zone: local time)",
           true},
          {'f', "force", "BOOL", "true (default): set the offsets even forward; false: only move them back"},
      },
      run,
  };
}

}  // namespace ferry::mqadmin
