#include "broker/metadata_json.h"

#include <charconv>

namespace ferry::broker {

namespace json = remoting::json;

void write_offset_map(json::Writer& w, const OffsetMap& offsets) {
  w.StartObject();
  for (const auto& [key, offset] : offsets) {
    json::write_key(w, std::to_string(key));
    w.Int64(offset);
  }
  w.EndObject();
}

void read_offset_map(const rapidjson::Value& object, const std::string& path, const OffsetMapKeys& keys, OffsetMap& out,
                     json::JsonErrors& errors) {
  for (auto it = object.MemberBegin(); it != object.MemberEnd(); ++it) {
    const std::string_view text(it->name.GetString(), it->name.GetStringLength());
    std::int32_t key = 0;
    auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), key);
    const auto offset = json::as_int64(it->value);
    if (ec != std::errc() || end != text.data() + text.size() || key < keys.min || key > keys.max) {
      errors.fail(fmt::format("{}: {} \"{}\" is not {}", path, keys.name, text, keys.rule));
      break;
    }
    if (!offset.has_value() || *offset < 0) {
      errors.fail(fmt::format("{}[\"{}\"]: not a non-negative offset", path, text));
      break;
    }
    out[key] = *offset;
  }
}

}  // namespace ferry::broker
