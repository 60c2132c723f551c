#include "remoting/body/consume_stats_list.h"

#include <fmt/format.h>

#include "remoting/body/body_json.h"

namespace ferry::remoting::body {

Result<ConsumeStatsList> ConsumeStatsList::decode(Bytes body) {
  auto doc = parse_body(body, "ConsumeStatsList");
  if (!doc) return std::move(doc).error();
  json::JsonErrors errors;
  json::ObjectReader r(*doc, "ConsumeStatsList", errors);
  ConsumeStatsList list;
  list.broker_addr = r.optional_string("brokerAddr").value_or("");
  list.total_diff = r.int64_or("totalDiff", 0);
  const rapidjson::Value* groups = r.optional_array("consumeStatsList");
  for (rapidjson::SizeType i = 0; groups != nullptr && i < groups->Size() && !errors.failed(); ++i) {
    const rapidjson::Value& entry = (*groups)[i];
    const std::string path = fmt::format("ConsumeStatsList.consumeStatsList[{}]", i);
    if (!entry.IsObject()) {
      errors.fail(path + ": not a JSON object");
      break;
    }
    // Counted, not compared with MemberEnd(): clang 14 (the CI fuzz build) finds rapidjson's
    // iterator comparisons ambiguous under C++20.
    auto member_it = entry.MemberBegin();
    for (rapidjson::SizeType k = 0; k < entry.MemberCount(); ++k, ++member_it) {
      const auto& member = *member_it;
      const std::string group(member.name.GetString(), member.name.GetStringLength());
      const std::string group_path = fmt::format("{}.{}", path, group);
      if (!member.value.IsArray()) {
        errors.fail(group_path + ": not a JSON array");
        break;
      }
      GroupConsumeStats g{group, {}};
      for (rapidjson::SizeType j = 0; j < member.value.Size() && !errors.failed(); ++j) {
        g.stats.push_back(ConsumeStats::read(member.value[j], fmt::format("{}[{}]", group_path, j), errors));
      }
      list.consume_stats_list.push_back(std::move(g));
    }
  }
  if (errors.failed()) return errors.take();
  return list;
}

std::vector<std::uint8_t> ConsumeStatsList::encode() const {
  return write_body([this](json::Writer& w) {
    w.StartObject();
    write_string_field(w, "brokerAddr", broker_addr);
    json::write_key(w, "consumeStatsList");
    w.StartArray();
    for (const GroupConsumeStats& g : consume_stats_list) {
      w.StartObject();
      json::write_key(w, g.group);
      w.StartArray();
      for (const ConsumeStats& s : g.stats) s.write(w);
      w.EndArray();
      w.EndObject();
    }
    w.EndArray();
    json::write_key(w, "totalDiff");
    w.Int64(total_diff);
    w.EndObject();
  });
}

}  // namespace ferry::remoting::body
