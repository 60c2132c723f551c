#include "remoting/body/epoch_acks.h"

#include <charconv>
#include <limits>

#include "remoting/body/body_json.h"

namespace ferry::remoting::body {

Result<EpochAcks> EpochAcks::decode(Bytes body) {
  auto doc = parse_body(body, "EpochAcks");
  if (!doc) return std::move(doc).error();
  json::JsonErrors errors;
  json::ObjectReader r(*doc, "EpochAcks", errors);
  EpochAcks a;
  a.last_epoch = r.int32("lastEpoch");
  if (const rapidjson::Value* table = r.optional_object("ackedByEpoch")) {
    const std::string path = r.path_of("ackedByEpoch");
    for (auto it = table->MemberBegin(); it != table->MemberEnd() && !errors.failed(); ++it) {
      const std::string key(it->name.GetString(), it->name.GetStringLength());
      std::int32_t epoch = 0;
      const auto [end, ec] = std::from_chars(key.data(), key.data() + key.size(), epoch);
      if (ec != std::errc() || end != key.data() + key.size()) {
        errors.fail(fmt::format("{}: key \"{}\" is not an epoch number", path, key));
        break;
      }
      const std::optional<std::int64_t> count = json::as_int64(it->value);
      if (!count || *count < 0) {
        errors.fail(fmt::format("{}[\"{}\"]: not a count of sends", path, key));
        break;
      }
      a.acked_by_epoch.emplace(epoch, *count);
    }
  }
  if (errors.failed()) return errors.take();
  return a;
}

std::vector<std::uint8_t> EpochAcks::encode() const {
  return write_body([this](json::Writer& w) {
    w.StartObject();
    json::write_key(w, "lastEpoch");
    w.Int(last_epoch);
    json::write_key(w, "ackedByEpoch");
    w.StartObject();
    for (const auto& [epoch, count] : acked_by_epoch) {
      json::write_key(w, fmt::format("{}", epoch));
      w.Int64(count);
    }
    w.EndObject();
    w.EndObject();
  });
}

}  // namespace ferry::remoting::body
