// topicStatus: min and max offset of every readable queue of a topic.
#include <cstdio>

#include "tools/mqadmin/command.h"
#include "tools/cli/table.h"

namespace ferry::mqadmin {

namespace {

int run(const ParsedFlags& f, AdminSession& s) {
  const std::string topic = *f.get("topic");
  Result<std::vector<client::QueueStatus>> status = s.run(s.admin().topic_status(topic));
  if (!status.ok()) return fail("topicStatus", status.error());
  cli::Table t({"#Broker", "Queue", "MinOffset", "MaxOffset"});
  for (const auto& q : *status) {
    t.add_row({q.queue.broker_name, std::to_string(q.queue.queue_id.value()), std::to_string(q.min_offset.value()),
               std::to_string(q.max_offset.value())});
  }
  std::printf("%s", t.render().c_str());
  return kExitOk;
}

}  // namespace

Command topic_status_command() {
  return Command{"topicStatus", "show min and max offsets of every queue of a topic",
                 {{'t', "topic", "TOPIC", "topic name", true}}, run};
}

}  // namespace ferry::mqadmin
