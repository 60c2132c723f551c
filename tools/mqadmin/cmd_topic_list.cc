// topicList: every topic the NameServer knows, one per line (sorted).
#include <cstdio>

#include "tools/mqadmin/command.h"

namespace ferry::mqadmin {

namespace {

int run(const ParsedFlags&, AdminSession& s) {
  Result<std::vector<std::string>> topics = s.run(s.admin().topic_list());
  if (!topics.ok()) return fail("topicList", topics.error());
  for (const std::string& t : *topics) std::printf("%s\n", t.c_str());
  return kExitOk;
}

}  // namespace

Command topic_list_command() { return Command{"topicList", "list every topic the NameServer knows", {}, run}; }

}  // namespace ferry::mqadmin
