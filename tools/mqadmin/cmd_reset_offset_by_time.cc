// resetOffsetByTime: moves a consumer group's offsets of every queue of a topic to the first
// message stored at or after a point in time (RocketMQ's ResetOffsetByTimeCommand): through the
// group's online consumers, else on the stored offsets (cli/offset_reset.h says how). The table
// shows what each broker sent, or each queue's offsets before and after. "-s now" is RocketMQ's
// -1: each queue's max offset.
//
// -f false (RocketMQ's --force): only move offsets back; a queue whose committed offset is already
// before the time's offset keeps it.
#include <fmt/format.h>

#include <cstdio>

#include "cli/offset_reset.h"
#include "cli/table.h"
#include "cli/time_arg.h"
#include "tools/mqadmin/command.h"

namespace ferry::mqadmin {

namespace {

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
  const bool to_max = *f.get("timestamp") == "now";  // RocketMQ sends -1 for "now"

  Result<cli::OffsetReset> reset = cli::reset_offset_by_time(s, group, topic, *ts, to_max, force);
  if (!reset.ok()) return fail(kName, reset.error());
  if (reset->through_consumers) {
    cli::Table t({"#Broker", "Queue", "ResetOffset"});
    for (const cli::OffsetResetRow& row : reset->rows) {
      t.add_row({row.queue.broker_name, std::to_string(row.queue.queue_id.value()), std::to_string(row.reset_offset.value())});
    }
    std::printf("reset group %s on topic %s to %s (%lld ms) through its online consumers, force %s\n%s", group.c_str(),
                topic.c_str(), cli::format_utc_ms(*ts).c_str(), static_cast<long long>(*ts), force ? "true" : "false",
                t.render().c_str());
    return kExitOk;
  }
  cli::Table t({"#Broker", "Queue", "BrokerOffset", "ConsumerOffset", "TimestampOffset", "ResetOffset"});
  const auto text = [](const std::optional<QueueOffset>& o) { return o ? std::to_string(o->value()) : std::string("-"); };
  for (const cli::OffsetResetRow& row : reset->rows) {
    t.add_row({row.queue.broker_name, std::to_string(row.queue.queue_id.value()), text(row.broker_offset),
               text(row.consumer_offset), text(row.timestamp_offset), std::to_string(row.reset_offset.value())});
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
